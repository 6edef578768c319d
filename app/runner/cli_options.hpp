#pragma once
// Command line of tideline-run (the contract's runner interface plus extensions).

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tideline::runner {

struct CliOptions
{
    std::string pipeline;
    bool validateOnly = false;
    bool help = false;
    bool version = false;
    bool describe = false; ///< print the node reference (Markdown) and exit
    std::string metricsFile;
    std::int64_t metricsIntervalMs = 1000;
    bool fresh = false;
    std::string checkpointDir;
    std::string member = "default";
    std::vector<std::string> resetState;
    std::vector<std::string> discardOutput;
    std::string savepointDir;  ///< take a savepoint there when the run stops
    std::string restoreFrom;   ///< start from this savepoint/checkpoint folder
    std::string dumpTable;     ///< print a sink.upsert table as JSON lines and exit
    std::string metricsListen; ///< host:port for Prometheus metrics
    std::string logFormat = "text";
    std::string expectDir;       ///< compare each sink's output with DIR/<sink>.jsonl|.csv
    bool updateExpected = false; ///< write those files from this run instead
    /// --explain EXPR / --explain-output EXPR: run with lineage, print where the matching
    /// input records went (or what made the matching output rows).
    std::string explain;
    std::string explainOutput;
    std::string explainFormat = "text";
    std::size_t lineageRecords = 0; ///< --lineage-budget RECORDS,MIB (0: the default)
    std::size_t lineageMiB = 0;
    bool explaining() const { return !explain.empty() || !explainOutput.empty(); }
};

/// Parses argv. Returns "" or a usage error.
std::string parseCli(int argc, char **argv, CliOptions &out);
const char *usage();

} // namespace tideline::runner
