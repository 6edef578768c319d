#pragma once
// Expected outputs: run a bounded pipeline, read back what each sink wrote, and compare it with
// DIR/<sink id>.jsonl (or .csv), or write those files. One implementation behind
// `tideline-run --expect DIR` / `--update-expected` and the designer's Check / Save outputs as
// expected, so both say the same thing about the same run (issue 19, item 3).
//
// Why the run writes into a temporary folder: a check must not touch what the pipeline's real
// runs produced (their output files, upsert tables and checkpoints), and must not resume from
// those checkpoints. So prepare() points every sink's path (and the checkpoint dir) into a
// fresh folder; the pipeline otherwise runs exactly as written, checkpoints and staging
// included. `sink.console` is captured as the JSON lines it prints; a sink.upsert table is
// compared by its rows in key order (what `--dump-table` prints).
//
// The difference is said in stream terms: which window of which key is missing, extra or
// different, which late or error record differs — not "line 412 differs".
//
// Use: prepare() on a copy of the spec → Job::create / run it to the end → (sinks closed: the
// Job destroyed) readOutputs() → compare() or write() → printReport() or show the Report.
// Nothing here runs the job or owns a thread; the caller does (the runner on its main thread,
// the designer on a worker).

#include <tideline/engine/spec.hpp>

#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

namespace tideline::expected {

// --- one sink's rows -------------------------------------------------------------------------

/// How a sink's rows are identified, so that an expected and an actual row can be paired even
/// when other rows are missing or extra.
struct RowIdentity
{
    /// Fields naming a row (a window's key fields, window_start, window_end). Empty: a row is
    /// identified by its whole text (dedup, filter, map, late and error records).
    std::vector<std::string> fields;
    /// What produced the rows, for the report: "window `per_user`", "the `late` port of `w`".
    std::string producer;
};

/// One difference between a sink's expected and actual rows.
struct Finding
{
    enum class Kind {
        Missing,   ///< an expected row this run did not produce
        Extra,     ///< a row this run produced that was not expected
        Different, ///< the row of the same identity (window, key) with other values
        Corrupt,   ///< an expected line that is not a JSON object
        Order,     ///< the same rows in another order
        More,      ///< "… and N more": the findings beyond the cap
    };
    Kind kind = Kind::Missing;
    /// The row in stream terms: "window [2024-05-01T10:00:00.000Z (…), …) user=\"ann\"
    /// (emit \"final\")", "record sent aside by `w` (…)"; "" for More.
    std::string row;
    /// What about it: "events: expected 4, got 3", "expected line 3", "output line 7".
    std::string detail;
    /// The whole line as the runner prints it ("different  window [...]: events: ...").
    std::string text;
};

struct SinkDiff
{
    bool equal = true;
    int missing = 0;
    int extra = 0;
    int different = 0;
    bool orderOnly = false; ///< same rows, other order
    /// The findings, already capped (the last one a More when there were more).
    std::vector<Finding> findings;
};

/// Compares JSON-lines (or CSV: `jsonLines` false, compared as text lines) outputs.
[[nodiscard]] SinkDiff diffOutputs(const std::vector<std::string> &expected,
                                   const std::vector<std::string> &actual,
                                   const RowIdentity &identity,
                                   bool jsonLines);

/// "2026-12-01T10:05:00.000Z (1796119500000)": event times as people and tools read them.
std::string describeTime(long long epochMs);

// --- a run's sinks ---------------------------------------------------------------------------

struct SinkCapture
{
    std::string sinkId;
    std::string kind;         ///< the sink's kind as written in the pipeline
    std::string capturedPath; ///< where this run writes it (inside the temporary folder)
    std::string expectedName; ///< "<sink id>.jsonl" or "<sink id>.csv"
    bool jsonLines = true;
    bool table = false; ///< a sink.upsert folder, read back with dumpUpsertTable
    RowIdentity identity;
};

struct Plan
{
    std::vector<SinkCapture> captures; ///< in the pipeline's node order
    /// One sentence per sink whose output is not a file (sink.kafka, sink.discard).
    std::vector<std::string> unchecked;
};

/// Why source node `n` would never end, read as the source reads its params (the catalog's
/// defaults for what the file omits: a generator without `count` makes 1,000 events), or ""
/// (also for a node that is not a source). Shared with what-if sweeps (sweep.hpp).
[[nodiscard]] std::string unboundedSource(const NodeSpec &n);

/// Points every sink (and the checkpoint dir) of `spec` into `tempDir` and says in `plan` what
/// each sink's output will be compared as. Refuses (returns the error, "" when ready) a
/// pipeline that would never end — a check needs bounded inputs — or one without a sink whose
/// output can be compared. `caller` names the check in those messages as its users know it
/// ("--expect", "Check"). `inputBoundedByCaller`: the caller replays a recording in place of
/// the sources, so a source that would never end on its own is no reason to refuse. Writes no
/// file.
[[nodiscard]] std::string prepare(PipelineSpec &spec,
                                  const std::string &tempDir,
                                  const std::string &caller,
                                  Plan &plan,
                                  bool inputBoundedByCaller = false);

/// What one sink wrote in the run, read back once the job has closed its sinks.
struct SinkOutput
{
    std::vector<std::string> lines; ///< no file: the sink wrote nothing
    std::string error;              ///< a table that cannot be read; lines is empty then
};

/// One SinkOutput per capture, in the plan's order.
[[nodiscard]] std::vector<SinkOutput> readOutputs(const Plan &plan);

// --- the verdict -----------------------------------------------------------------------------

enum class SinkStatus {
    Ok,      ///< equal to its expected file
    Fail,    ///< different (the counts and findings say how)
    Missing, ///< no expected file for this sink
    Written, ///< write(): its expected file was written
    Error,   ///< its output could not be read, or its expected file not written
};

struct SinkResult
{
    std::string sinkId;
    std::string kind;
    SinkStatus status = SinkStatus::Ok;
    std::string expectedPath; ///< DIR/<expected name>, lexically normal
    std::string producer;     ///< "window `sessions`", "" when its input is not one node's port
    std::size_t expectedRows = 0;
    std::size_t actualRows = 0;
    int missing = 0;
    int extra = 0;
    int different = 0;
    bool orderOnly = false;
    std::vector<Finding> findings; ///< Fail: SinkDiff::findings
    std::string error;             ///< Error: what went wrong
};

struct Report
{
    bool update = false; ///< made by write()
    std::string expectedDir;
    std::vector<SinkResult> sinks;
    std::vector<std::string> unchecked; ///< Plan::unchecked
    /// Files in the folder that match no sink (a renamed or removed sink): a check fails on
    /// them rather than pass silently; write() never deletes a file it did not write.
    std::vector<std::string> staleFiles;
    int matching = 0; ///< sinks that are Ok

    /// The runner's exit status 0: every sink equal (or written) and, for a check, no stale
    /// file.
    [[nodiscard]] bool passed() const;
};

/// Compares each sink's output with expectedDir/<expected name>.
[[nodiscard]] Report
compare(const Plan &plan, const std::vector<SinkOutput> &outputs, const std::string &expectedDir);

/// Writes each sink's output to expectedDir/<expected name> (creating the folder), one line
/// per row, as they are compared.
[[nodiscard]] Report
write(const Plan &plan, const std::vector<SinkOutput> &outputs, const std::string &expectedDir);

/// The report `tideline-run --expect` prints: a heading per sink ("sink counts: ok (12 rows
/// equal DIR/counts.jsonl)", "sink counts: FAIL against ... (rows from window `w`): 1 missing,
/// ...") with its findings indented below, the unchecked sinks, stale files, and for a check
/// the summary line.
void printReport(const Report &report, std::ostream &out);

} // namespace tideline::expected
