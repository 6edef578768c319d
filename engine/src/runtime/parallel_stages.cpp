// Making a planned parallel stage (parallel_plan.cpp decides which; parallel.hpp is how it
// runs), making it again after every operator was reopened (a restart from a checkpoint, or a
// restore that must use an earlier one), and quiescing the stages before a checkpoint.

#include "runtime/parallel.hpp"
#include "runtime/runtime.hpp"

namespace tideline {

Status Runtime::makeParallelStage(const parallel::StageConfig &cfg)
{
    const int v = cfg.node;
    const int n = resolveParallelism(m_spec, m_options);
    if (!m_pool)
        m_pool = std::make_unique<parallel::WorkerPool>(n);
    std::vector<std::unique_ptr<Operator>> instances;
    instances.push_back(std::move(m_nodes[static_cast<std::size_t>(v)].op));
    for (int k = 1; k < n; ++k) {
        if (Status s = makeOperator(v); !s.ok())
            return s;
        instances.push_back(std::move(m_nodes[static_cast<std::size_t>(v)].op));
    }
    m_nodes[static_cast<std::size_t>(v)].op
        = std::make_unique<parallel::ParallelStage>(cfg, std::move(instances), *m_pool, *this);
    // Once per stage: reopenOperators() makes the stages of the same plan again.
    bool known = false;
    for (const auto &plan : m_stagePlans)
        known = known || plan->node == v;
    if (!known)
        m_stagePlans.push_back(std::make_shared<const parallel::StageConfig>(cfg));
    return {};
}

Status Runtime::remakeParallelStages()
{
    // The routes planParallel() rewired (deferred inputs) are unchanged by a reopen; only the
    // operators are new, so the same configs apply.
    std::string ids;
    for (const auto &plan : m_stagePlans) {
        if (Status s = makeParallelStage(*plan); !s.ok())
            return s;
        ids += (ids.empty() ? "`" : ", `") + m_nodes[static_cast<std::size_t>(plan->node)].id + "`";
    }
    if (!ids.empty())
        logParallelism(ids + " made again as instances after reopening the operators");
    return {};
}

Status Runtime::remakeParallelStage(int v)
{
    for (const auto &plan : m_stagePlans)
        if (plan->node == v)
            return makeParallelStage(*plan);
    return {};
}

void Runtime::quiesce()
{
    if (m_stagePlans.empty())
        return;
    // Topological order: what a stage replays may go into a later stage's open round, which
    // that stage then hands over and replays too.
    for (int v : m_order)
        if (auto *stage = dynamic_cast<parallel::ParallelStage *>(
                m_nodes[static_cast<std::size_t>(v)].op.get())) {
            Output out(*this, v);
            stage->quiesce(out);
        }
}

void Runtime::settleAfterSourceFailure() noexcept
{
    // The run fails with the source's error whatever happens here; a stage that fails too
    // (a worker's own error) only keeps back what it had not delivered yet.
    try {
        quiesce();
    } catch (...) {
    }
}

} // namespace tideline
