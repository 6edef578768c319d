#include "checkpoint/member.hpp"

#include "checkpoint/checksum.hpp"
#include "checkpoint/files.hpp"
#include "checkpoint/folder_lock.hpp"
#include "checkpoint/restorer.hpp"
#include "checkpoint/state_db.hpp"
#include "checkpoint/task_pointer.hpp"

#include <algorithm>
#include <filesystem>
#include <stdexcept>

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

GroupMember::GroupMember(RuntimePort &rt)
    : m_rt(rt)
{
}

Status GroupMember::enter(Settings &settings)
{
    const std::string &member = m_rt.options().member;
    if (!validMemberName(member))
        return Status::error(
            "--member `" + member
            + "`: use letters, digits, '-', '_' or '.' (up to 64), e.g. --member $(hostname)");
    m_sharedDir = settings.dir;
    settings.dir = (fs::path(m_sharedDir) / "members" / member).string();
    std::error_code ec;
    fs::create_directories(settings.dir, ec);
    if (ec)
        return Status::error("settings.checkpoint.dir: cannot create " + settings.dir + ": "
                             + causeFromErrno(ec.value()));
    // (The folder and member locks are the run's: checkpoint/folder_lock.hpp.)
    return {};
}

void GroupMember::stash(int section, int partition, const NodeEntry &entry, std::string blob)
{
    m_stash[{section, partition}][entry.id] = Stashed{entry, std::move(blob)};
}

void GroupMember::resetInstances(int section, int p)
{
    for (int t : m_rt.section(section).templates)
        if (Status s = m_rt.resetInstance(m_rt.instance(t, p)); !s.ok())
            throw std::runtime_error(s.message());
}

Status GroupMember::restoreInstances(int section, int p, Saved &saved, const std::string &origin)
{
    resetInstances(section, p);
    std::vector<int> insts;
    for (int t : m_rt.section(section).templates)
        insts.push_back(m_rt.instance(t, p));
    const auto &reset = m_rt.options().resetState;
    auto isReset = [&](const NodeInfo &node) {
        return std::find(reset.begin(), reset.end(), node.spec->id) != reset.end();
    };
    // Check everything before restoring anything.
    for (int v : insts) {
        const NodeInfo node = m_rt.nodeInfo(v);
        auto it = saved.find(node.id);
        if (it == saved.end() || isReset(node))
            continue; // new in this version of the pipeline, or --reset-state: starts empty
        const NodeEntry &e = it->second.entry;
        if (std::string diff = stateMismatch(e, node, m_rt.op(v).stateFingerprint()); !diff.empty())
            return Status::error("the state of `" + node.id + "` in " + origin
                                 + " does not fit the node as configured here (" + diff
                                 + "): do all members run the same pipeline? To drop it, rerun "
                                   "with --reset-state "
                                 + node.spec->id);
        if (crc32c(it->second.blob) != e.crc && e.bytes > 0)
            return Status::error("the state of `" + node.id + "` in " + origin
                                 + " fails its checksum");
    }
    for (int v : insts) {
        const NodeInfo node = m_rt.nodeInfo(v);
        auto it = saved.find(node.id);
        if (it == saved.end())
            continue;
        if (isReset(node)) {
            m_rt.log("`" + node.id + "`: saved state discarded (--reset-state)");
            continue;
        }
        try {
            if (Status s = restoreNode(m_rt, v, it->second.entry, it->second.blob); !s.ok())
                return s.prefixed(origin + ": ");
        } catch (const EarlierCheckpointNeeded &e) {
            // Only a whole-job restore can go back a checkpoint; a partition cannot.
            return Status::error("`" + node.id + "` in " + origin + ": " + e.what());
        }
    }
    m_rt.primeInstances(insts);
    return {};
}

std::int64_t GroupMember::adoptPartition(int section, int p)
{
    const SectionInfo sec = m_rt.section(section);
    const std::string sourceId = m_rt.nodeInfo(sec.source).id;
    const std::string what = "partition " + std::to_string(p) + " of `" + sourceId + "`";
    auto stashed = m_stash.find({section, p});
    auto fromStash = [&]() -> std::int64_t {
        Status s = restoreInstances(section, p, stashed->second, "the restored checkpoint");
        m_stash.erase(stashed);
        if (!s.ok())
            throw std::runtime_error("cannot restore " + what + ": " + s.message());
        m_rt.log(what + ": state restored from this member's checkpoint");
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
                    m_rt.log(what + ": " + origin + " is unusable (" + err
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
            Saved saved;
            for (const auto &n : m.nodes)
                if (blobs.count(n.id))
                    saved[n.id] = Stashed{n, std::move(blobs[n.id])};
            if (Status s = restoreInstances(section, p, saved, origin); !s.ok())
                throw std::runtime_error("cannot restore " + what + ": " + s.message() + fix);
            if (stashed != m_stash.end())
                m_stash.erase(stashed);
            m_rt.log(what + ": state restored from " + origin + ", resuming at offset "
                     + std::to_string(tp.offset));
            return tp.offset;
        }
        if (!why.empty()) {
            // A damaged pointer is treated like a damaged checkpoint: fall back to an older
            // consistent state (this member's own, with its own offset) or refuse with the fix.
            if (stashed != m_stash.end()) {
                m_rt.log(what + ": " + why
                         + "; restoring it from this member's own checkpoint instead");
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

std::int64_t GroupMember::handOver(const std::vector<int> &partitions,
                                   const std::function<Status(std::int64_t &id)> &checkpointNow)
{
    std::int64_t id = -1;
    if (Status s = checkpointNow(id); !s.ok()) {
        m_rt.log("handing over partition(s) " + partitionList(partitions)
                 + " failed: " + s.message()
                 + "; their next owner resumes them from the last completed checkpoint "
                   "(records since then are processed again)");
        return -1;
    }
    m_rt.log("handed over partition(s) " + partitionList(partitions) + " in checkpoint "
             + std::to_string(id));
    return id;
}

} // namespace tideline::checkpoint
