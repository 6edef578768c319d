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
    int parallelism = 0; ///< --parallelism: 0 = settings.parallelism, -1 = auto
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
    std::string recordDir;       ///< --record: capture every source's input into DIR
    std::int64_t recordMaxRecords = 0, recordMaxBytes = 0, recordMaxDurationMs = 0;
    std::string semantics;  ///< --semantics: overrides settings.semantics for this run
    std::string replayDir;  ///< --replay: run on the recording in DIR instead of the sources
    double replaySpeed = 0; ///< 0 = flat out, 1 = as recorded, N = N times faster
    std::vector<std::string>
        sweeps;        ///< --sweep NODE.PARAM=V1,V2,... (checked against the pipeline later)
    int sweepJobs = 0; ///< combinations at once (0 = the machine's cores)
    std::string sweepFormat = "text"; ///< text, csv or json
    /// --explain EXPR / --explain-output EXPR: run with lineage, print where the matching
    /// input records went (or what made the matching output rows).
    std::string explain;
    std::string explainOutput;
    std::string explainFormat = "text";
    std::size_t lineageRecords = 0; ///< --lineage-budget RECORDS,MIB (0: the default)
    std::size_t lineageMiB = 0;
    bool explaining() const { return !explain.empty() || !explainOutput.empty(); }
    /// --compare-engines [ENGINES]: run the (bounded) pipeline once per semantics mode and
    /// print where their outputs and drops differ (compare_command.cpp).
    bool compareEngines = false;
    std::vector<std::string> compareEngineNames; ///< empty: flink, spark, kafka-streams
    std::string compareFormat = "text";          ///< text or json
};

/// Parses argv. Returns "" or a usage error.
std::string parseCli(int argc, char **argv, CliOptions &out);
const char *usage();

} // namespace tideline::runner
