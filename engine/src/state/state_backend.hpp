#pragma once
// settings.state: "memory" (default) keeps all keyed state in the operators' own tables;
// "rocksdb" keeps hot keys there too but gives each stateful operator a memory budget
// (settings.state_memory_mb, default 256 MB per operator) and a SpillStore for the cold keys.
//
// Operators opt in by implementing StatefulOperator. The checkpoint coordinator calls
// configureStateBackends() once after the job is compiled and before any state is restored,
// so restored state already respects the budget.

#include "state/spill_store.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace tideline {
class Runtime;
}

namespace tideline::state {

inline constexpr double kDefaultMemoryMb = 256;

struct StateBackendConfig
{
    bool spill = false;                ///< settings.state == "rocksdb"
    std::size_t memoryBudget = 0;      ///< bytes of keyed state kept in memory (spill only)
    std::shared_ptr<SpillStore> store; ///< this operator's store (spill only)
};

/// What a spilling operator reports (tests, the end-of-run log line).
struct SpillStats
{
    std::int64_t entriesInMemory = 0;
    std::int64_t entriesSpilled = 0; ///< now on disk
    std::int64_t peakEntriesSpilled = 0;
    std::int64_t spillPasses = 0; ///< eviction passes run
    std::int64_t readBacks = 0;   ///< entries read back from disk on access or firing
};

class StatefulOperator
{
public:
    virtual ~StatefulOperator() = default;
    /// Called once, before restoreState and before the first record.
    virtual void configureState(StateBackendConfig cfg) = 0;
    virtual SpillStats spillStats() const = 0;
};

/// Reads settings.state / settings.state_memory_mb and configures every StatefulOperator of the
/// job. Working folders: <checkpoint dir>/work/<node id> when checkpoints are on, else
/// <temp>/tideline-state-<pid>-<job number>/<node id>. Returns "" or the reason the job cannot run.
std::string configureStateBackends(Runtime &rt,
                                   const std::string &checkpointDir,
                                   const std::function<void(const std::string &)> &log);

/// One log line per node that spilled during the run (peak entries on disk, read-backs).
void logSpillSummary(Runtime &rt, const std::function<void(const std::string &)> &log);

} // namespace tideline::state
