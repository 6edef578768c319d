// The run's checkpoint wiring and its restart after a RecoverableError (recoverable.hpp): the
// folder lock held for the whole run, the coordinator created after compile(), and, on a
// recoverable failure, every operator recreated and the newest complete checkpoint of this
// run restored (at most kMaxRestarts times).

#include "checkpoint/coordinator.hpp"
#include "checkpoint/folder_lock.hpp"
#include "lineage/lineage_store.hpp"
#include "runtime/fused_source.hpp"
#include "runtime/parallel.hpp"
#include "runtime/recoverable.hpp"
#include "runtime/runtime.hpp"
#include "state/state_backend.hpp"

namespace tideline {

// (Here because the members the destructor ends are the checkpoint module's.)
Runtime::Runtime(const PipelineSpec &spec, JobOptions options)
    : m_spec(spec)
    , m_options(std::move(options))
    , m_clock(m_options.clock ? m_options.clock : &SystemClock::instance())
{
}

Runtime::~Runtime()
{
    closeOperators();
}

void Runtime::closeOperators() noexcept
{
    // A fused source's chunks in flight read its stage's configuration: they go first. Then
    // sinks close before the sources they read from (reverse topological order), so a parallel
    // stage waits for its rounds in flight while the nodes before it still exist: a late record
    // of a fused round is made again with the source's and watermark node's configuration.
    for (auto &node : m_nodes)
        if (auto *fused = dynamic_cast<parallel::FusedSource *>(node.op.get()))
            fused->drain();
    for (auto it = m_order.rbegin(); it != m_order.rend(); ++it)
        m_nodes[static_cast<std::size_t>(*it)].op.reset();
}

Status Runtime::lockCheckpoints()
{
    m_runLocks = std::make_unique<checkpoint::RunLocks>();
    if (std::string err = checkpoint::lockCheckpointFolder(m_spec, m_options, *m_runLocks);
        !err.empty())
        return Status::error(err);
    return {};
}

Status Runtime::initCheckpoints()
{
    m_checkpointsLive = false;
    m_checkpoints = std::make_unique<checkpoint::Coordinator>(*this);
    Status s = m_checkpoints->init();
    m_checkpointsLive = s.ok();
    return s;
}

bool Runtime::restartFromCheckpoint(const std::string &why)
{
    auto log = [this](const std::string &line) {
        if (m_options.log)
            m_options.log(line);
    };
    if (!m_checkpoints || !m_checkpoints->settings().enabled || m_checkpointsCompleted.load() == 0
        || m_restarts >= kMaxRestarts) {
        log(m_restarts >= kMaxRestarts
                ? "not restarting: " + std::to_string(kMaxRestarts) + " restarts already"
                : "not restarting: no checkpoint completed in this run to restore");
        return false;
    }
    ++m_restarts;
    log("restart " + std::to_string(m_restarts) + "/" + std::to_string(kMaxRestarts)
        + " after: " + why + "; restoring the last completed checkpoint");
    // Joins an in-flight checkpoint writer; the hooks point into the old coordinator.
    m_checkpointsLive = false;
    m_checkpoints.reset();
    // The newest complete checkpoint of this run, not the savepoint or state it started from.
    m_options.fresh = false;
    m_options.restoreFrom.clear();
    m_options.resetState.clear();
    Status s = reopenOperators();
    if (s.ok())
        s = initCheckpoints();
    if (!s.ok()) {
        fail(why + "; restarting from the last checkpoint failed: " + s.message());
        return false;
    }
    return true;
}

Status Runtime::reopenOperators()
{
    closeOperators();
    m_sources.clear();
    // The new consumer joins its group again: partitions are assigned (and their task state
    // restored) anew.
    for (auto &section : m_tasks) {
        std::fill(section.owned.begin(), section.owned.end(), 0);
        std::fill(section.suspendedAt.begin(), section.suspendedAt.end(), -1);
    }
    for (std::size_t v = 0; v < m_nodes.size(); ++v) {
        Node &node = m_nodes[v];
        node.source = nullptr;
        clearWatermarks(static_cast<int>(v));
        observe::NodeMetrics m;
        m.node = node.metrics.node;
        m.kind = node.metrics.kind;
        node.metrics = std::move(m);
    }
    for (auto &row : m_fateRows)
        row.fill(0);
    m_recordsRead = 0;
    if (Status s = openOperators(); !s.ok())
        return s;
    if (Status s = remakeParallelStages(); !s.ok())
        return s;
    // The same chains fused again (the plan's conditions are the spec's and the routes').
    planFused([this](const std::string &line) { logParallelism(line); });
    return {};
}

} // namespace tideline
