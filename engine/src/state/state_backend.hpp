#pragma once
// settings.state: "memory" (default) keeps all keyed state in the operators' own tables;
// "rocksdb" keeps hot keys there too but gives each stateful operator a memory budget
// (settings.state_memory_mb, default 256 MB per operator) and a SpillStore for the cold keys.
//
// Operators opt in by implementing StatefulOperator. The runtime owns one StateBackend per job
// (made when the checkpoint coordinator asks it to configure state, once after the job is
// compiled and before any state is restored, so restored state already respects the budget) and
// asks it again for every partition-task instance it (re)creates while the job runs.

#include "state/spill_store.hpp"

#include <tideline/engine/spec.hpp>
#include <tideline/engine/status.hpp>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

namespace tideline {
class Operator;
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

/// One job's keyed-state settings (settings.state / settings.state_memory_mb) and where its
/// spill stores live: <checkpoint dir>/work/<node id> when checkpoints are on, else
/// <temp>/tideline-state-<pid>-<job number>/<node id> (a process such as the designer may hold
/// two jobs of one pipeline at once; each wipes its folder when it opens).
class StateBackend
{
public:
    StateBackend(const Json &settings, const std::string &checkpointDir);

    /// Gives `op` its state configuration if it is a StatefulOperator (else does nothing).
    /// Fails naming the node when its spill store cannot be opened.
    [[nodiscard]] Status configure(const std::string &nodeId, Operator &op) const;
    [[nodiscard]] bool spills() const { return m_spill; }
    /// The log line for a job whose `stateful` nodes were configured ("" without spilling).
    [[nodiscard]] std::string describe(int stateful) const;

private:
    bool m_spill = false;
    std::size_t m_budget = 0;
    std::filesystem::path m_base;
};

/// True when `op` keeps keyed state through a StateBackend.
[[nodiscard]] bool isStateful(const Operator &op);

/// The end-of-run log line of a node that spilled (peak entries on disk, read-backs), or none.
[[nodiscard]] std::optional<std::string> spillSummary(const std::string &nodeId,
                                                      const Operator &op);

} // namespace tideline::state
