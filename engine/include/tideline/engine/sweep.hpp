#pragma once
// What-if sweeps (issue 19, item 4): run one bounded pipeline once per combination of some
// params' values (watermark delay, allowed lateness, session gap, dedup `within`, ...) and
// measure, per combination, what the choice costs and buys: records dropped as late, late
// records still accepted, results, completeness, how far behind event time the results come
// out, and the peak state. Akidau's "too fast vs. too slow" trade-off, made measurable.
//
// One implementation behind `tideline-run --sweep` and the designer's Sweep dialog.
//
// Why threads in one process, not child processes: a Job is single-threaded and owns all of
// its state; what is process-wide is either immutable after start (the catalog), behind a
// mutex (interned field names, the Kafka log handler) or thread_local (record buffer pools,
// parsers' scratch). So N jobs on N threads share nothing mutable, and the designer and the
// runner run a sweep the same way. Each combination writes into its own temporary folder
// (sinks, checkpoints, spill state), so no two runs touch the same file, and never into the
// pipeline's real outputs.
//
// Every figure is defined once, here:
// - late_dropped: records sent to a `late` port (or counted there when it is unconnected),
//   summed over nodes (NodeMetrics::late).
// - late_accepted: late records a node still took into a result it had already emitted (a
//   window within allowed_lateness_ms; the accounting's Fate::LateAccepted, once per record
//   even when a sliding window's record updates several fired windows).
// - results: rows that reached a sink from a data port (not from `late` / `errors`).
// - completeness: accepted / max accepted over the sweep's combinations, where accepted is,
//   summed over the nodes that have a `late` port, records in minus records sent to late; the
//   most permissive combination (the one that accepted the most) is 1. Without such a node
//   nothing is ever late and every combination is 1.
// - latency: for each result row, the largest event time any watermark node had let through
//   when the row reached its sink, minus the row's own event time (a window's row carries its
//   end - 1 ms), clamped at 0: how far event time had moved on before the result came out.
//   p50 / p99 are nearest-rank percentiles over the result rows with an event time that came
//   out before the input ended; rows flushed once every source had ended (windows or sessions
//   the watermark never reached) are left out — in a stream they would come out later — and
//   counted in resultsAtEnd. No such row: no latency (nullopt, "-").
// - peak_state_entries / peak_state_bytes: summed over nodes, each node's highest state figures
//   (NodeMetrics::peakStateEntries/Bytes, JobOptions::trackPeakState).
//
// Processing-time behaviour (idleness timeouts) follows the wall clock over a file; over a
// recording (`--replay`, virtual clock) it is exact. Options::configureJob is where a replay
// plugs in.

#include <tideline/engine/job.hpp>
#include <tideline/engine/spec.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tideline::sweep {

/// One swept param: NODE.PARAM and its values, typed like the param.
struct Axis
{
    std::string node;
    std::string param;
    std::vector<Json> values;
    std::string label() const { return node + "." + param; }
};

struct Plan
{
    std::vector<Axis> axes;
    /// The number of combinations (the product of the axes' sizes; 0 without axes).
    [[nodiscard]] std::size_t combinations() const;
    /// The values of combination `index`; the last axis varies fastest.
    [[nodiscard]] std::vector<Json> valuesOf(std::size_t index) const;
};

/// The most combinations one sweep runs (a typo such as 1..1000 is refused, not run).
inline constexpr std::size_t kMaxCombinations = 4096;

/// Builds an axis from a node id, a param name and the values as typed: checks the node is in
/// `spec`, its kind has the param, and each value parses as the param's type (and lies in its
/// range and choices). Returns "" or an error naming the node, the param and the fix.
[[nodiscard]] std::string makeAxis(const PipelineSpec &spec,
                                   const std::string &node,
                                   const std::string &param,
                                   const std::vector<std::string> &values,
                                   Axis &out);

/// Parses "NODE.PARAM=v1,v2,..." (the runner's --sweep), then makeAxis().
[[nodiscard]] std::string parseAxis(std::string_view text, const PipelineSpec &spec, Axis &out);

/// Adds an axis, refusing a second axis on the same param and more than kMaxCombinations.
[[nodiscard]] std::string addAxis(Plan &plan, Axis axis);

/// A copy of `spec` with combination `index`'s values written into its nodes' params.
[[nodiscard]] PipelineSpec apply(const PipelineSpec &spec, const Plan &plan, std::size_t index);

/// Why the sweep cannot run over `spec`'s inputs (a source that never ends), or "".
[[nodiscard]] std::string checkBounded(const PipelineSpec &spec, const std::string &caller);

/// One combination's figures (see the definitions above).
struct Row
{
    std::vector<Json> values;
    std::string error;             ///< the combination is invalid or its run failed; figures are 0
    std::int64_t inputRecords = 0; ///< records read from the sources
    std::int64_t lateDropped = 0;
    std::int64_t lateAccepted = 0;
    std::int64_t results = 0;
    std::int64_t resultsAtEnd = 0; ///< of results, flushed at the end of the input (JSON only)
    std::int64_t accepted = 0; ///< records the late-capable nodes kept (completeness' numerator)
    double completeness = 1.0;
    std::optional<double> latencyP50Ms; ///< nullopt: no result row had an event time
    std::optional<double> latencyP99Ms;
    std::int64_t peakStateEntries = 0;
    std::int64_t peakStateBytes = 0;
    std::int64_t wallMs = 0; ///< how long this combination ran
};

struct Result
{
    std::vector<std::string> axes; ///< the axes' labels, in the plan's order
    std::vector<Row> rows;         ///< one per combination, in the plan's order
    bool cancelled = false;        ///< Options::cancel was set: rows not run carry an error
    std::int64_t wallMs = 0;       ///< the whole sweep
};

struct Progress
{
    std::size_t done = 0;  ///< combinations finished (well or not)
    std::size_t total = 0; ///< combinations in the sweep
    std::size_t index = 0; ///< the combination just finished
};

struct Options
{
    std::string baseDir = "."; ///< folder of the pipeline file (relative paths)
    int jobs = 0;              ///< combinations at once; 0 = the machine's cores
    std::string tempRoot;      ///< where the combinations' folders go ("" = the system's)
    /// run() refuses (every row an error) a pipeline whose sources never end, unless
    /// configureJob makes the input bounded (a recording): then set this.
    bool skipBoundedCheck = false;
    /// Called for each combination, on its worker thread, after the sinks are pointed into the
    /// combination's folder: may change the spec and the job options (e.g. replay a
    /// recording in place of the sources). Returns "" or an error for that combination.
    std::function<std::string(PipelineSpec &, JobOptions &)> configureJob;
    /// Called for each combination on its worker thread once its Job exists, with the options
    /// configureJob set (a replay stops the job where its recording runs out).
    std::function<void(const JobOptions &, Job &)> attachJob;
    /// Called after each combination, from its worker thread (serialised: never two at once).
    std::function<void(const Progress &)> onProgress;
    /// Set from any thread to stop: running combinations stop, the rest do not start.
    const std::atomic<bool> *cancel = nullptr;
};

/// Runs every combination of `plan` over `spec` (validated with each combination's values;
/// an invalid combination becomes a row with an error) and returns the table. Blocks until
/// all have run; uses Options::jobs threads.
[[nodiscard]] Result run(const PipelineSpec &spec, const Plan &plan, const Options &options);

enum class Format { Text, Csv, Json };
[[nodiscard]] std::optional<Format> parseFormat(std::string_view name);

/// The table: text (aligned columns, for people), CSV (a header row), or JSON (one object with
/// "axes" and "rows"; each row {"values": {...}, "late_dropped": ..., ...}).
void write(const Result &result, Format format, std::ostream &out);

/// The columns after the swept values, in the order every format writes them.
const std::vector<std::string> &metricColumns();

} // namespace tideline::sweep
