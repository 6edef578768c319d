#pragma once
// Runs one compiled pipeline to completion and measures it the way the Nexmark harness does:
// wall time of the run loop, CPU seconds of the whole process (getrusage user + sys, so the
// in-process generator is included), peak RSS, and what reached the sink.discard nodes.

#include <tideline/engine/job.hpp>
#include <tideline/engine/spec.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace tideline::bench {

/// State figures of one stateful node, sampled while the pipeline runs.
struct StateFigures
{
    std::string node;
    std::int64_t peakEntries = 0;  ///< max of state_entries over the samples
    std::int64_t peakBytes = 0;    ///< max of state_bytes over the samples
    std::int64_t finalEntries = 0; ///< state_entries after the run (inputs ended: W = +inf)
    std::int64_t recordsIn = 0;
    std::int64_t recordsOut = 0;
    std::int64_t late = 0;
    std::int64_t duplicatesDropped = 0;
};

/// Source records between two state samples (a publish + snapshot copy, a few microseconds).
constexpr std::int64_t kStateSampleRecords = 4096;

struct Measurement
{
    std::int64_t events = 0; ///< records read from all sources
    double wallSeconds = 0;
    double userSeconds = 0;
    double sysSeconds = 0;
    double peakRssMiB = 0;           ///< ru_maxrss of the process so far
    std::int64_t rows = 0;           ///< rows that reached sink.discard nodes
    std::uint64_t checksum = 0;      ///< sum of the sinks' order-independent checksums
    double loadBefore = 0;           ///< 1-minute load average when the run started
    std::string failure;             ///< set when the pipeline was invalid or failed
    std::vector<StateFigures> state; ///< the nodes asked for in runPipeline(), in that order

    double cpuSeconds() const { return userSeconds + sysSeconds; }
    double eventsPerSecond() const { return wallSeconds > 0 ? double(events) / wallSeconds : 0; }
    double eventsPerCpuSecond() const
    {
        return cpuSeconds() > 0 ? double(events) / cpuSeconds() : 0;
    }
};

/// Validates, compiles and runs `spec` (relative paths against baseDir). Compilation (opening
/// files, building tables) is not timed; the run loop and the final flush are. For the nodes
/// named in `stateNodes`, state_entries/state_bytes are sampled every kStateSampleRecords
/// source records (Job::runFor in chunks, then a metrics snapshot; the sampling is inside the
/// timed run) and their maxima and final values are reported.
/// `base`: options to start from (a replay's feed and clock); baseDir and the metrics interval
/// are set here.
Measurement runPipeline(const PipelineSpec &spec,
                        const std::string &baseDir,
                        const std::vector<std::string> &stateNodes = {},
                        const JobOptions &base = {});

/// Replaces every sink node by a sink.discard with the same id (keeps edges valid).
void discardSinks(PipelineSpec &spec);

/// "12.3M" style figure.
std::string human(double v);
/// Prints the figures as aligned `name value` lines, plus a one-line JSON summary
/// prefixed with `json ` (machine-readable, for docs/benchmarks.md).
void print(const std::string &benchmark,
           const std::string &description,
           const Measurement &m,
           const std::string &extraJson = {});

} // namespace tideline::bench
