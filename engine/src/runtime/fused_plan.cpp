// Which chains take the fused path (fused_source.hpp, ARCHITECTURE.md "One crossing per
// record"): Runtime::planFused, after the parallel stages are planned.

#include "runtime/fused_source.hpp"
#include "runtime/runtime.hpp"

#include <algorithm>
#include <cstdlib>
#include <string_view>

namespace tideline {

void Runtime::planFused(const std::function<void(const std::string &)> &note)
{
    if (const char *off = std::getenv("TIDELINE_FUSED"); off && std::string_view(off) == "0")
        return;
    if (m_options.capture)
        return; // the rounds' path (parallel_stage.cpp): a recording wants lines as read
    for (int v : m_order) {
        Node &stageNode = m_nodes[static_cast<std::size_t>(v)];
        auto *stage = dynamic_cast<parallel::ParallelStage *>(stageNode.op.get());
        if (!stage || stageNode.inbound.size() != 1)
            continue;
        const int m = stageNode.inbound[0].fromNode;
        Node &wmNode = m_nodes[static_cast<std::size_t>(m)];
        auto *wm = dynamic_cast<fusable::PrefixWatermark *>(wmNode.op.get());
        Timestamp delay = 0;
        if (!wm || !wm->prefixMax(delay) || wmNode.inbound.size() != 1 || wmNode.tap
            || wmNode.outputs.empty() || wmNode.outputs[0].targets.size() != 1
            || wmNode.outputs[0].targets[0].node != v || !wmNode.outputs[0].watermarkOnly.empty())
            continue;
        const int s = wmNode.inbound[0].fromNode;
        Node &srcNode = m_nodes[static_cast<std::size_t>(s)];
        auto *indexed = dynamic_cast<fusable::IndexedSource *>(srcNode.op.get());
        auto *file = dynamic_cast<fusable::SplittableFile *>(srcNode.op.get());
        if (!srcNode.source || srcNode.task.isTemplate || srcNode.tap || (!indexed && !file)
            || srcNode.outputs.empty() || srcNode.outputs[0].targets.size() != 1
            || srcNode.outputs[0].targets[0].node != m)
            continue;
        sources::FileChunkConfig fileCfg;
        std::uint64_t offset = 0, line = 0;
        // A replay's records are the recording's: a generator is not run again, a file's
        // recorded lines are taken on the loop thread and parsed on the workers.
        const bool replay = m_options.feed != nullptr;
        const bool byIndex = !replay && indexed && indexed->indexedCount() > 0;
        if (!byIndex
            && !(file && (replay ? file->fuseReplay(fileCfg) : file->fuse(fileCfg, offset, line))))
            continue;
        auto counted = [this, s, m, v](long long made, long long passed, Timestamp maxTs) {
            m_nodes[static_cast<std::size_t>(s)].metrics.recordsOut += made;
            m_recordsRead += made;
            for (int u : {m, v}) {
                auto &mm = m_nodes[static_cast<std::size_t>(u)].metrics;
                mm.recordsIn += u == m ? made : passed;
                if (u == m)
                    mm.recordsOut += passed;
                if (maxTs != kMinTime && (!mm.maxEventTime || maxTs > *mm.maxEventTime))
                    mm.maxEventTime = maxTs;
            }
        };
        auto fused = std::make_unique<parallel::FusedSource>(
            std::move(srcNode.op), byIndex ? nullptr : &fileCfg, replay, offset, line, s, *wm, m,
            *stage, v, *m_pool, *this, std::move(counted));
        // The run's only source: the replay's clock is read by nothing the fused chain or the
        // nodes after it do (the chain has no idleness or lead, and no other source's records
        // are ordered against its), so a flat-out replay takes its lines ahead of it.
        if (replay && std::count_if(m_nodes.begin(), m_nodes.end(), [](const Node &n) {
                          return n.source;
                      }) == 1)
            fused->takeReplayAhead();
        srcNode.op = std::move(fused);
        srcNode.source = static_cast<SourceOperator *>(srcNode.op.get());
        note("`" + srcNode.id + "` -> `" + wmNode.id + "` -> `" + stageNode.id
             + "` fused: records made, stamped and routed on the workers, one crossing each"
             + (replay ? " (the replay's recorded lines taken in order on the loop thread)" : ""));
    }
}

} // namespace tideline
