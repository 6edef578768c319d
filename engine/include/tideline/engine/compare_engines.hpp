#pragma once
// Compare engines (issue 20, item 2): the same bounded pipeline on the same input run once per
// semantics mode — Flink (the default), Spark Structured Streaming, Kafka Streams — and the
// difference said in stream terms: the rows only one engine emits, the rows of the same window
// and key whose values differ, and what each engine drops (late, duplicates, unmatched join
// records, errors) at which node and why. One implementation behind `tideline-run
// --compare-engines` and the designer's Test › Compare Engines, so both say the same thing.
//
// Why through expected_outputs: a comparison is a check whose "expected" side is another
// engine's run. Each run points its sinks into its own temporary folder (expected::prepare),
// runs to the end of its bounded input and is read back (expected::readOutputs); the rows are
// paired by their identity (a window's key and bounds) by expected::diffOutputs, so an update
// row of Spark's update mode pairs with the n-th row of the same window elsewhere.
//
// A mode a pipeline cannot run in (validation refuses it: Spark's update mode with a session
// window, say) is a run with an error, not a failed comparison: the other engines are still
// compared, and the error says why that engine is missing.

#include <tideline/engine/expected_outputs.hpp>
#include <tideline/engine/job.hpp>
#include <tideline/engine/spec.hpp>
#include <tideline/observe/metrics.hpp>

#include <atomic>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace tideline::compare {

/// The modes of `settings.semantics`, in the order runs and columns appear.
const std::vector<std::string> &allEngines();
/// "Flink", "Spark", "Kafka Streams": how people name them.
std::string engineTitle(std::string_view engine);

/// What one node dropped or sent aside in one engine's run (only nodes that dropped anything).
struct NodeDrops
{
    std::string node;
    std::string kind;
    std::int64_t late = 0;           ///< sent to `late` (or, in a mode without one, counted there)
    std::int64_t duplicates = 0;     ///< dedup: dropped as a duplicate
    std::int64_t unmatched = 0;      ///< join: no partner before the watermark passed
    std::int64_t errors = 0;         ///< sent to `errors`
    observe::CauseCounts lateCauses; ///< the reasons, in words, as the node gave them
    observe::CauseCounts errorCauses;
};

/// One engine's run.
struct EngineRun
{
    std::string engine; ///< "flink", "spark", "kafka-streams"
    /// Why there is no output for this engine (validation refused the mode, the run failed or
    /// was cancelled); "" when it ran to the end.
    std::string error;
    /// Validation's warnings about this mode that it does not give in Flink mode ("Spark has
    /// no late side output"), formatted; the file's own warnings are not repeated.
    std::vector<std::string> notes;
    std::int64_t recordsRead = 0;
    std::int64_t wallMs = 0;
    expected::Plan plan;                       ///< what each sink was captured as
    std::vector<expected::SinkOutput> outputs; ///< one per plan capture
    std::vector<NodeDrops> drops;              ///< in the pipeline's node order

    bool ran() const { return error.empty(); }
    /// The captured rows of sink `sinkId` (nullptr: no such capture, or the run failed).
    const std::vector<std::string> *rowsOf(std::string_view sinkId) const;
};

/// One sink compared between two engines: `a` read as the expected side, so a Missing finding
/// is a row only `a` emits and an Extra one a row only `b` emits.
struct PairDiff
{
    std::string sinkId;
    std::string a;
    std::string b;
    std::size_t rowsA = 0;
    std::size_t rowsB = 0;
    /// The rows as each engine emitted them (updates, changelogs and all).
    expected::SinkDiff diff;
    /// The final answers: for a window's rows, the last row of each window and key, without
    /// its `emit` field (what a table keyed by the window would hold at the end); other rows
    /// as they are. Equal when the engines end with the same results however they emitted them.
    expected::SinkDiff finalDiff;
};

/// A finding's detail with the engines named: "expected line 3" reads "line 3 of Flink's
/// output", "clicks: expected 4, got 1" reads "clicks: Flink 4, Kafka Streams 1".
[[nodiscard]] std::string describeDetail(const PairDiff &pair, const expected::Finding &finding);

/// The final answers of `rows` (see PairDiff::finalDiff).
[[nodiscard]] std::vector<std::string> finalRows(const std::vector<std::string> &rows,
                                                 const expected::RowIdentity &identity);

struct Report
{
    std::vector<EngineRun> runs;        ///< one per engine asked for, in that order
    std::vector<PairDiff> pairs;        ///< for every sink, every pair of engines that both ran
    std::vector<std::string> unchecked; ///< sinks whose output is not a file (not compared)
    bool cancelled = false;

    const EngineRun *run(std::string_view engine) const;
    /// True when every engine ran and every pair of them agrees on every sink.
    [[nodiscard]] bool allAgree() const;
};

struct Options
{
    std::string baseDir = "."; ///< folder of the pipeline file (relative paths)
    std::vector<std::string> engines = allEngines();
    int jobs = 0;         ///< engines run at once; 0 = the machine's cores
    std::string tempRoot; ///< where the runs' folders go ("" = the system's)
    /// Called for each engine's run on its worker thread after the sinks are pointed into its
    /// folder (a replay of a recording in place of the sources); "" or an error for that run.
    std::function<std::string(PipelineSpec &, JobOptions &)> configureJob;
    /// Called once the Job exists, with the options configureJob set.
    std::function<void(const JobOptions &, Job &)> attachJob;
    /// Called when an engine's run ends, from its worker thread (serialised).
    std::function<void(const EngineRun &)> onRunFinished;
    const std::atomic<bool> *cancel = nullptr; ///< set from any thread to stop every run
};

/// `spec` with `settings.semantics` set to `engine` (the mode's own settings block untouched).
[[nodiscard]] PipelineSpec withEngine(const PipelineSpec &spec, std::string_view engine);

/// Why the pipeline cannot be compared at all ("" when it can): an unknown engine name, a
/// source that never ends (unless `boundedByCaller`: the caller replays a recording), no sink
/// whose output can be compared.
[[nodiscard]] std::string
check(const PipelineSpec &spec, const Options &options, bool boundedByCaller);

/// Runs the pipeline once per engine and compares the outputs. Blocks until every run ended.
[[nodiscard]] Report run(const PipelineSpec &spec, const Options &options);

/// Compares runs that already happened (run() does this after the runs).
void comparePairs(Report &report);

/// The text report `tideline-run --compare-engines` prints: per engine a line (ran, rows,
/// drops), per sink and pair of engines the differences (capped), then the verdict line.
void printReport(const Report &report, std::ostream &out);
/// The same as one JSON object (`--compare-format json`) for tools.
void writeJson(const Report &report, std::ostream &out);

} // namespace tideline::compare
