#include "state/state_backend.hpp"

#include <tideline/engine/operator.hpp>

#include <atomic>
#include <unistd.h>

namespace tideline::state {

namespace fs = std::filesystem;

StateBackend::StateBackend(const Json &settings, const std::string &checkpointDir)
{
    m_spill = settings.value("state", std::string("memory")) == "rocksdb";
    double mb = kDefaultMemoryMb;
    if (auto it = settings.find("state_memory_mb"); it != settings.end() && it->is_number())
        mb = it->get<double>();
    m_budget = static_cast<std::size_t>(std::max(mb, 0.001) * 1024.0 * 1024.0);
    static std::atomic<int> jobs{0};
    m_base = checkpointDir.empty() ? fs::temp_directory_path()
                                         / ("tideline-state-" + std::to_string(::getpid()) + "-"
                                            + std::to_string(++jobs))
                                   : fs::path(checkpointDir) / "work";
}

Status StateBackend::configure(const std::string &nodeId, Operator &op) const
{
    auto *stateful = dynamic_cast<StatefulOperator *>(&op);
    if (stateful == nullptr)
        return {};
    StateBackendConfig cfg;
    cfg.spill = m_spill;
    if (m_spill) {
        cfg.memoryBudget = m_budget;
        std::string error;
        // The store's own write buffer is a slice of the budget, so that what is spilled
        // leaves memory.
        const std::size_t memtable = std::min<std::size_t>(m_budget / 8, 16u << 20);
        cfg.store = SpillStore::open((m_base / nodeId).string(), memtable, error);
        if (!cfg.store)
            return Status::error("node `" + nodeId + "`: settings.state \"rocksdb\": " + error);
    }
    stateful->configureState(std::move(cfg));
    return {};
}

std::string StateBackend::describe(int stateful) const
{
    if (!m_spill)
        return {};
    return "settings.state \"rocksdb\": " + std::to_string(stateful)
           + " stateful node(s) keep up to " + std::to_string(m_budget >> 10)
           + " KiB of keyed state in memory each and spill colder keys to RocksDB under "
           + m_base.string();
}

bool isStateful(const Operator &op)
{
    return dynamic_cast<const StatefulOperator *>(&op) != nullptr;
}

std::optional<std::string> spillSummary(const std::string &nodeId, const Operator &op)
{
    const auto *stateful = dynamic_cast<const StatefulOperator *>(&op);
    if (stateful == nullptr)
        return std::nullopt;
    const SpillStats st = stateful->spillStats();
    if (st.spillPasses == 0)
        return std::nullopt;
    return "node `" + nodeId + "`: " + std::to_string(st.spillPasses) + " spill pass(es), up to "
           + std::to_string(st.peakEntriesSpilled) + " state entries on disk, "
           + std::to_string(st.readBacks) + " read back";
}

} // namespace tideline::state
