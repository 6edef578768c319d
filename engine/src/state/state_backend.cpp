#include "state/state_backend.hpp"

#include "runtime/runtime.hpp"

#include <atomic>
#include <filesystem>
#include <unistd.h>

namespace tideline::state {

namespace fs = std::filesystem;

std::string configureStateBackends(Runtime &rt,
                                   const std::string &checkpointDir,
                                   const std::function<void(const std::string &)> &log)
{
    const Json &settings = rt.spec().settings;
    const bool spill = settings.value("state", std::string("memory")) == "rocksdb";
    double mb = kDefaultMemoryMb;
    if (auto it = settings.find("state_memory_mb"); it != settings.end() && it->is_number())
        mb = it->get<double>();
    const auto budget = static_cast<std::size_t>(std::max(mb, 0.001) * 1024.0 * 1024.0);

    // Without checkpoints: a folder per job (a process such as the designer may hold two jobs
    // of one pipeline at once; each wipes its folder when it opens).
    static std::atomic<int> jobs{0};
    fs::path base = checkpointDir.empty() ? fs::temp_directory_path()
                                                / ("tideline-state-" + std::to_string(::getpid())
                                                   + "-" + std::to_string(++jobs))
                                          : fs::path(checkpointDir) / "work";
    // Also used for partition-task instances (re)created while the job runs.
    rt.configureNodeState = [spill, budget, base](Runtime::Node &node) -> std::string {
        auto *op = dynamic_cast<StatefulOperator *>(node.op.get());
        if (op == nullptr)
            return {};
        StateBackendConfig cfg;
        cfg.spill = spill;
        if (spill) {
            cfg.memoryBudget = budget;
            std::string error;
            // The store's own write buffer is a slice of the budget, so that what is spilled
            // leaves memory.
            const std::size_t memtable = std::min<std::size_t>(budget / 8, 16u << 20);
            cfg.store = SpillStore::open((base / node.id).string(), memtable, error);
            if (!cfg.store)
                return "node `" + node.id + "`: settings.state \"rocksdb\": " + error;
        }
        op->configureState(std::move(cfg));
        return {};
    };
    int configured = 0;
    for (auto &node : rt.nodes()) {
        if (dynamic_cast<StatefulOperator *>(node.op.get()) == nullptr)
            continue;
        if (std::string err = rt.configureNodeState(node); !err.empty())
            return err;
        ++configured;
    }
    if (spill && log)
        log("settings.state \"rocksdb\": " + std::to_string(configured)
            + " stateful node(s) keep up to " + std::to_string(budget >> 10)
            + " KiB of keyed state in memory each and spill colder keys to RocksDB under "
            + base.string());
    return {};
}

void logSpillSummary(Runtime &rt, const std::function<void(const std::string &)> &log)
{
    if (!log)
        return;
    for (auto &node : rt.nodes()) {
        auto *op = dynamic_cast<StatefulOperator *>(node.op.get());
        if (op == nullptr)
            continue;
        const SpillStats st = op->spillStats();
        if (st.spillPasses == 0)
            continue;
        log("node `" + node.id + "`: " + std::to_string(st.spillPasses) + " spill pass(es), up to "
            + std::to_string(st.peakEntriesSpilled) + " state entries on disk, "
            + std::to_string(st.readBacks) + " read back");
    }
}

} // namespace tideline::state
