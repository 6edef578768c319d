#include "checkpoint/restorer.hpp"

#include "checkpoint/member.hpp"

#include <algorithm>

namespace tideline::checkpoint {

std::string stateMismatch(const NodeEntry &saved, const NodeInfo &node, const std::string &fp)
{
    if (saved.kind != node.spec->kind)
        return "kind " + saved.kind + " -> " + node.spec->kind;
    if (saved.fingerprint != fp)
        return "saved `" + saved.fingerprint + "`, now `" + fp + "`";
    return {};
}

Status restoreNode(RuntimePort &rt, int node, const NodeEntry &saved, const std::string &blob)
{
    if (!blob.empty()) {
        try {
            StateReader r(blob);
            rt.op(node).restoreState(r);
            if (r.failed())
                return Status::error("the state of node `" + saved.id
                                     + "` is shorter than its operator expects (written by "
                                       "another version?)");
        } catch (const EarlierCheckpointNeeded &) {
            throw; // the caller starts over from the checkpoint before
        } catch (const std::exception &e) {
            return Status::error("node `" + saved.id + "`: " + e.what());
        }
    }
    rt.restoreNode(node, saved);
    return {};
}

Restorer::Restorer(RuntimePort &rt, const Settings &settings, GroupMember &member)
    : m_rt(rt)
    , m_settings(settings)
    , m_member(member)
{
}

Status Restorer::fromCheckpointDir(const std::string &dir, bool explicitRestore)
{
    auto candidates = scanCheckpoints(dir);
    if (candidates.empty()) {
        if (explicitRestore)
            return Status::error("--restore " + dir
                                 + ": no checkpoint or savepoint there (expected manifest.json "
                                   "or manifest-N.json)");
        m_rt.log("no checkpoint in " + dir + ": starting from the beginning");
        return {};
    }
    int committed = 0;
    std::string lastWhy;
    for (const auto &c : candidates) {
        const std::string id = std::to_string(c.id);
        if (!c.hasManifest) {
            m_rt.log("checkpoint " + id + " in " + dir
                     + " is incomplete (no manifest: the run stopped while writing it); "
                       "skipping it");
            continue;
        }
        ++committed;
        Manifest m;
        std::map<std::string, std::string> blobs;
        const std::string manifestPath = joinPath(dir, checkpointManifestName(c.id));
        if (Status loaded = loadCheckpoint(manifestPath, dir, m, blobs); !loaded.ok()) {
            m_rt.log("checkpoint " + id + " in " + dir + " is unusable: " + loaded.message()
                     + "; trying the previous one");
            lastWhy = loaded.message();
            continue;
        }
        try {
            return apply(m, blobs, "checkpoint " + id + " (" + manifestPath + ")", explicitRestore);
        } catch (const EarlierCheckpointNeeded &e) {
            // A sink's downstream system holds only an earlier checkpoint's output (Kafka
            // aborted the latest transaction): that earlier checkpoint is the consistent one.
            m_rt.log("checkpoint " + id + " is ahead of what a sink committed: " + e.what()
                     + "; restoring the one before it");
            lastWhy = e.what();
            m_member.clearStash();
            if (Status s = m_rt.reopenOperators(); !s.ok())
                return s.prefixed("cannot restore from the checkpoint before " + id + ": ");
            if (Status s = m_rt.configureState(m_settings.enabled ? m_settings.dir : std::string());
                !s.ok())
                return s;
        }
    }
    if (committed == 0) {
        if (explicitRestore)
            return Status::error("--restore " + dir + ": no complete checkpoint there");
        m_rt.log("no complete checkpoint in " + dir + ": starting from the beginning");
        return {};
    }
    return Status::error("none of the " + std::to_string(committed) + " complete checkpoint(s) in "
                         + dir + " is usable (last problem: " + lastWhy
                         + "); start over with --fresh (discards them and the output they "
                           "committed)");
}

Status Restorer::fromSavepoint(const std::string &dir)
{
    Manifest m;
    std::map<std::string, std::string> blobs;
    if (Status loaded = loadCheckpoint(joinPath(dir, "manifest.json"), dir, m, blobs); !loaded.ok())
        return loaded.prefixed("--restore " + dir + ": the savepoint is unusable: ");
    return apply(m, blobs, m.kind + " " + dir, true);
}

Status Restorer::apply(const Manifest &m,
                       std::map<std::string, std::string> &blobs,
                       const std::string &origin,
                       bool verbose)
{
    const int count = m_rt.nodeCount();
    const auto &reset = m_rt.options().resetState;
    auto isReset = [&](const std::string &id) {
        return std::find(reset.begin(), reset.end(), id) != reset.end();
    };
    enum class St { Restored, New, Reset, Incompatible, Skip };
    std::vector<St> status(static_cast<std::size_t>(count), St::New);
    std::vector<NodeInfo> nodes;
    std::vector<std::string> lines, incompatible;
    int restored = 0, considered = 0;
    m_member.preferStash(verbose); // an explicit --restore wins over the group's pointers
    for (int v = 0; v < count; ++v) {
        nodes.push_back(m_rt.nodeInfo(v));
        const NodeInfo &node = nodes.back();
        auto &st = status[static_cast<std::size_t>(v)];
        if (node.isTemplate) {
            st = St::Skip;
            continue;
        }
        if (node.partition >= 0) {
            // A partition task's state is restored when the partition is assigned here.
            st = St::Skip;
            if (const NodeEntry *e = m.node(node.id))
                m_member.stash(node.section, node.partition, *e, std::move(blobs[node.id]));
            continue;
        }
        ++considered;
        const std::string &id = node.id;
        const NodeEntry *e = m.node(id);
        if (!e) {
            st = St::New;
            lines.push_back("node `" + id + "`: new (no saved state; starts empty)");
        } else if (std::string diff = stateMismatch(*e, node, m_rt.op(v).stateFingerprint());
                   !diff.empty()) {
            if (isReset(id)) {
                st = St::Reset;
                lines.push_back("node `" + id + "`: incompatible (" + diff
                                + "); state discarded (--reset-state)");
            } else {
                st = St::Incompatible;
                incompatible.push_back(id);
                lines.push_back("node `" + id + "`: incompatible (" + diff + ")");
            }
        } else if (isReset(id)) {
            st = St::Reset;
            lines.push_back("node `" + id + "`: state discarded (--reset-state)");
        } else {
            st = St::Restored;
            ++restored;
            if (verbose)
                lines.push_back("node `" + id + "`: restored (" + std::to_string(blobs[id].size())
                                + " bytes)");
        }
    }
    for (const auto &e : m.nodes)
        if (m_rt.spec().nodeIndex(e.id) < 0 && e.id.find('#') == std::string::npos)
            lines.push_back(
                "node `" + e.id + "` (" + e.kind
                + "): in the saved state but not in the pipeline; its state is ignored");

    const std::size_t stashed = m_member.stashedTasks();
    m_rt.log("restoring from " + origin + ": " + std::to_string(restored) + " of "
             + std::to_string(considered) + " node(s) restored"
             + (stashed == 0 ? std::string()
                             : "; the state of " + std::to_string(stashed)
                                   + " partition task(s) is restored when partitions are "
                                     "assigned"));
    for (const auto &l : lines)
        m_rt.log("  " + l);
    // A sink that starts without its state starts its output over: what earlier runs committed
    // is deleted only when asked for separately (--discard-output), never as a side effect of
    // the fix a message suggested.
    auto outputAtRisk = [&](int v) -> std::string {
        const NodeInfo &node = nodes[static_cast<std::size_t>(v)];
        if (!node.kind->isSink)
            return {};
        const auto &keep = m_rt.options().discardOutput;
        if (std::find(keep.begin(), keep.end(), node.id) != keep.end())
            return {};
        return m_rt.op(v).outputLostWithoutState();
    };
    if (!incompatible.empty()) {
        std::string ids, flags, notes;
        for (const auto &id : incompatible) {
            ids += (ids.empty() ? "`" : ", `") + id + "`";
            flags += " --reset-state " + id;
            if (std::string lost = outputAtRisk(m_rt.spec().nodeIndex(id)); !lost.empty())
                notes += "; `" + id + "` is a sink and " + lost + ": add --discard-output " + id
                         + " to allow that, or move the file away first";
        }
        return Status::error("cannot restore from " + origin + ": the saved state of " + ids
                             + " does not fit the edited node(s) (see above); rerun with" + flags
                             + " to discard it, or with --fresh to start over" + notes);
    }
    for (int v = 0; v < count; ++v) {
        if (status[static_cast<std::size_t>(v)] != St::Reset)
            continue;
        const std::string &id = nodes[static_cast<std::size_t>(v)].id;
        if (std::string lost = outputAtRisk(v); !lost.empty())
            return Status::error("cannot restore from " + origin + ": --reset-state " + id
                                 + " would start sink `" + id + "` over, and " + lost
                                 + "; add --discard-output " + id
                                 + " to allow that, move the file away first, or keep the "
                                   "sink's state (leave out --reset-state "
                                 + id + ")");
    }

    // Nothing is restored before every node was checked (above); a failure part-way through
    // refuses the run, and EarlierCheckpointNeeded reopens every operator and node anew.
    for (int v = 0; v < count; ++v)
        if (status[static_cast<std::size_t>(v)] == St::Restored) {
            const NodeInfo &node = nodes[static_cast<std::size_t>(v)];
            if (Status s = restoreNode(m_rt, v, *m.node(node.id), blobs[node.id]); !s.ok())
                return s.prefixed("cannot restore from " + origin + ": ");
        }
    // New and reset nodes learn the current watermark now.
    std::vector<int> fresh;
    for (int v : m_rt.topoOrder())
        if (status[static_cast<std::size_t>(v)] != St::Restored
            && status[static_cast<std::size_t>(v)] != St::Skip)
            fresh.push_back(v);
    m_rt.primeWatermarks(fresh);
    m_rt.setRecordsRead(m.recordsRead);
    m_restoredId = m.id;
    if (m.final && m.endStatus == "finished")
        m_rt.log("the " + m.kind
                 + " was taken when the run had finished: the inputs are exhausted and "
                   "nothing is left to replay (use --fresh to run the pipeline again)");
    return {};
}

} // namespace tideline::checkpoint
