// A parallel stage's checkpoints (parallel.hpp; checkpoint/keyed_state.hpp says why the state
// is one node's): the quiesce before a snapshot, the instances merged into the single-instance
// node's state, and a restore at any parallelism split by key group.

#include "checkpoint/keyed_state.hpp"
#include "runtime/parallel.hpp"
#include "runtime/parallel_round.hpp"

#include <stdexcept>

namespace tideline::parallel {

void ParallelStage::quiesce(Output &out)
{
    submitOpen();
    collect(true, out);
}

namespace {

checkpoint::KeyedState &keyedState(Operator &op)
{
    // parallel_plan.cpp runs a node in parallel only when its operator is KeyedState.
    auto *k = dynamic_cast<checkpoint::KeyedState *>(&op);
    if (k == nullptr)
        throw std::logic_error("a parallel stage's operator has no keyed state");
    return *k;
}

} // namespace

void ParallelStage::snapshotState(StateWriter &w) const
{
    if (!m_inFlight.empty() || !m_open->steps.empty())
        throw std::logic_error("a parallel stage was snapshotted with rounds in flight (the "
                               "loop quiesces it first)");
    std::vector<const Operator *> parts;
    for (const auto &op : m_instances)
        parts.push_back(op.get());
    keyedState(*m_instances.front()).snapshotMerged(parts, w);
}

void ParallelStage::restoreState(StateReader &r)
{
    // Every instance reads the whole state and keeps its key groups' keys: the same test
    // processRecord routes by, on the same encoded bytes (the operators' state keeps keys as
    // the stage encodes them: GroupKeyCodec for windows, KeyEncoder for dedup).
    const std::string_view all = r.view(r.remaining());
    const int n = static_cast<int>(m_instances.size());
    for (int k = 0; k < n; ++k) {
        StateReader part(all);
        keyedState(*m_instances[static_cast<std::size_t>(k)])
            .restoreKeyed(
                part,
                [k, n](std::string_view key) {
                    return instanceOfKeyGroup(keyGroupOf(key), n) == k;
                },
                k == 0);
        if (part.failed())
            throw std::runtime_error("the saved state is shorter than the operator expects");
        observe::NodeMetrics &m = m_instanceMetrics[static_cast<std::size_t>(k)];
        m = {};
        m_instances[static_cast<std::size_t>(k)]->reportMetrics(m); // the figures restored
    }
}

} // namespace tideline::parallel
