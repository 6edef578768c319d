// Partition tasks on the checkpoint side: the member folder and its lock, handing partitions
// over on revoke, and adopting them on assign (task_pointer.hpp describes the files;
// runtime/partition_tasks.cpp the instances).

#include "checkpoint/checksum.hpp"
#include "checkpoint/coordinator.hpp"
#include "checkpoint/files.hpp"
#include "checkpoint/folder_lock.hpp"
#include "runtime/runtime.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <stdexcept>
#include <sys/file.h>
#include <unistd.h>

namespace tideline::checkpoint {

namespace fs = std::filesystem;

namespace {

std::string partitionList(const std::vector<int> &ps)
{
    std::string out;
    for (int p : ps)
        out += (out.empty() ? "" : ", ") + std::to_string(p);
    return out;
}

} // namespace

std::string Coordinator::enterMemberDir()
{
    const std::string &member = m_rt.options().member;
    if (!validMemberName(member))
        return "--member `" + member
               + "`: use letters, digits, '-', '_' or '.' (up to 64), e.g. --member $(hostname)";
    m_sharedDir = m_settings.dir;
    m_settings.dir = (fs::path(m_sharedDir) / "members" / member).string();
    std::error_code ec;
    fs::create_directories(m_settings.dir, ec);
    if (ec)
        return "settings.checkpoint.dir: cannot create " + m_settings.dir + ": "
               + causeFromErrno(ec.value());
    // (The folder and member locks are the run's: checkpoint/folder_lock.hpp.)
    return {};
}

void Coordinator::resetInstances(int section, int p)
{
    auto &nodes = m_rt.nodes();
    for (int t : m_rt.tasks()[static_cast<std::size_t>(section)].templates) {
        int inst = nodes[static_cast<std::size_t>(t)].instances[static_cast<std::size_t>(p)];
        if (std::string err = m_rt.resetInstance(inst); !err.empty())
            throw std::runtime_error(err);
    }
}

std::string Coordinator::restoreInstances(int section,
                                          int p,
                                          std::map<std::string, StashedNode> &saved,
                                          const std::string &origin)
{
    auto &nodes = m_rt.nodes();
    const auto &sec = m_rt.tasks()[static_cast<std::size_t>(section)];
    resetInstances(section, p);
    std::vector<int> insts;
    for (int t : sec.templates)
        insts.push_back(nodes[static_cast<std::size_t>(t)].instances[static_cast<std::size_t>(p)]);
    const auto &reset = m_rt.options().resetState;
    auto isReset = [&](const Runtime::Node &node) {
        return std::find(reset.begin(), reset.end(), node.spec->id) != reset.end();
    };
    // Check everything before restoring anything.
    for (int v : insts) {
        auto &node = nodes[static_cast<std::size_t>(v)];
        auto it = saved.find(node.id);
        if (it == saved.end() || isReset(node))
            continue; // new in this version of the pipeline, or --reset-state: starts empty
        const NodeEntry &e = it->second.entry;
        std::string fp = node.op->stateFingerprint();
        if (e.kind != node.spec->kind || e.fingerprint != fp)
            return "the state of `" + node.id + "` in " + origin
                   + " does not fit the node as configured here ("
                   + (e.kind != node.spec->kind ? "kind " + e.kind + " -> " + node.spec->kind
                                                : "saved `" + e.fingerprint + "`, now `" + fp + "`")
                   + "): do all members run the same pipeline? To drop it, rerun with "
                     "--reset-state "
                   + node.spec->id;
        if (crc32c(it->second.blob) != e.crc && e.bytes > 0)
            return "the state of `" + node.id + "` in " + origin + " fails its checksum";
    }
    for (int v : insts) {
        auto &node = nodes[static_cast<std::size_t>(v)];
        auto it = saved.find(node.id);
        if (it == saved.end())
            continue;
        if (isReset(node)) {
            log("`" + node.id + "`: saved state discarded (--reset-state)");
            continue;
        }
        const NodeEntry &e = it->second.entry;
        if (!it->second.blob.empty()) {
            try {
                StateReader r(it->second.blob);
                node.op->restoreState(r);
                if (r.failed())
                    return "the state of `" + node.id + "` in " + origin + " is truncated";
            } catch (const std::exception &ex) {
                return "`" + node.id + "` in " + origin + ": " + ex.what();
            }
        }
        node.outW = e.outW;
        node.combinedIn = e.combinedIn;
        // (outIdle stays as resetInstances left it: idle until the partition is owned.)
        // The merge over partitions starts from this partition's own watermark as it was
        // saved. Manifests written before own_w existed only have the merge (out_w): a
        // partition restored from one is raised by its operator with its next record.
        node.ownW = e.hasOwnW ? e.ownW : e.outW;
        node.metrics.recordsIn = e.recordsIn;
        node.metrics.recordsOut = e.recordsOut;
        node.metrics.late = e.late;
        node.metrics.errors = e.errors;
    }
    for (int v : insts)
        for (auto &in : nodes[static_cast<std::size_t>(v)].inbound) {
            const auto &from = nodes[static_cast<std::size_t>(in.fromNode)];
            in.watermark = from.taskPartition >= 0 ? from.outW : kMinTime;
            in.idle = from.outIdle;
        }
    // The shared nodes after the section (sinks) learn where the restored instances are.
    for (int v : insts)
        m_rt.republishWatermark(v);
    return {};
}

std::int64_t Coordinator::adoptPartition(int section, int p)
{
    auto &nodes = m_rt.nodes();
    auto &sec = m_rt.tasks()[static_cast<std::size_t>(section)];
    const std::string &sourceId = nodes[static_cast<std::size_t>(sec.source)].id;
    const std::string what = "partition " + std::to_string(p) + " of `" + sourceId + "`";
    auto stashed = m_stash.find({section, p});
    auto fromStash = [&]() -> std::int64_t {
        std::string err = restoreInstances(section, p, stashed->second, "the restored checkpoint");
        m_stash.erase(stashed);
        if (!err.empty())
            throw std::runtime_error("cannot restore " + what + ": " + err);
        log(what + ": state restored from this member's checkpoint");
        return -1; // the source's own restored offset belongs to the same checkpoint
    };
    if (m_preferStash && stashed != m_stash.end())
        return fromStash();

    if (!m_sharedDir.empty()) {
        TaskPointer tp;
        std::string why;
        const std::string path = taskPointerPath(m_sharedDir, sourceId, p);
        if (readTaskPointer(path, tp, why)) {
            const auto pp = static_cast<std::size_t>(p);
            if (sec.suspendedAt[pp] >= 0 && tp.member == m_rt.options().member
                && tp.checkpoint == sec.suspendedAt[pp]) {
                // Came back unchanged: the suspended instances are exactly that state.
                if (stashed != m_stash.end())
                    m_stash.erase(stashed);
                return tp.offset;
            }
            const std::string manifestPath = (fs::path(m_sharedDir) / tp.manifest).string();
            const std::string origin = "member `" + tp.member + "`'s checkpoint "
                                       + std::to_string(tp.checkpoint) + " (" + manifestPath + ")";
            const std::string fix = "; delete " + path + " to start " + what
                                    + " without its state from the group's committed offset";
            std::string text, err;
            Manifest m;
            if (!readFile(manifestPath, text, err) || !parseManifest(text, m, err)) {
                if (stashed != m_stash.end()) {
                    log(what + ": " + origin + " is unusable (" + err
                        + "); restoring it from this member's own checkpoint instead");
                    return fromStash();
                }
                throw std::runtime_error("cannot restore " + what + " from " + origin + ": " + err
                                         + fix);
            }
            const std::string suffix = "#p" + std::to_string(p);
            std::vector<BlobSpec> specs;
            for (const auto &n : m.nodes)
                if (n.id.size() > suffix.size()
                    && n.id.compare(n.id.size() - suffix.size(), suffix.size(), suffix) == 0)
                    specs.push_back({n.id, n.bytes, n.chunks});
            std::map<std::string, std::string> blobs;
            const std::string stateDir
                = (fs::path(manifestPath).parent_path() / m.stateDir).string();
            if (!readStateDb(stateDir, specs, blobs, err))
                throw std::runtime_error("cannot restore " + what + " from " + origin + ": " + err
                                         + fix);
            std::map<std::string, StashedNode> saved;
            for (const auto &n : m.nodes)
                if (blobs.count(n.id))
                    saved[n.id] = StashedNode{n, std::move(blobs[n.id])};
            if (std::string e = restoreInstances(section, p, saved, origin); !e.empty())
                throw std::runtime_error("cannot restore " + what + ": " + e + fix);
            if (stashed != m_stash.end())
                m_stash.erase(stashed);
            log(what + ": state restored from " + origin + ", resuming at offset "
                + std::to_string(tp.offset));
            return tp.offset;
        }
        if (!why.empty()) {
            // A damaged pointer is treated like a damaged checkpoint: fall back to an older
            // consistent state (this member's own, with its own offset) or refuse with the fix.
            if (stashed != m_stash.end()) {
                log(what + ": " + why + "; restoring it from this member's own checkpoint instead");
                return fromStash();
            }
            throw std::runtime_error("cannot restore " + what + ": " + why + "; delete " + path
                                     + " to start " + what
                                     + " without its state from the group's committed offset");
        }
    }
    if (stashed != m_stash.end())
        return fromStash();
    resetInstances(section, p);
    return -1;
}

std::int64_t Coordinator::handOver(const std::vector<int> &partitions)
{
    if (!m_settings.enabled)
        return -1;
    drain();
    const std::int64_t id = m_nextId;
    std::string err = take(Kind::Checkpoint, m_settings.dir, {}, false);
    m_lastEndMs = m_rt.clock().nowMs();
    if (!err.empty()) {
        log("handing over partition(s) " + partitionList(partitions) + " failed: " + err
            + "; their next owner resumes them from the last completed checkpoint (records "
              "since then are processed again)");
        return -1;
    }
    log("handed over partition(s) " + partitionList(partitions) + " in checkpoint "
        + std::to_string(id));
    return id;
}

} // namespace tideline::checkpoint
