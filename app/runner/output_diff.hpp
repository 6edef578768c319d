#pragma once
// Comparing one sink's output with what it should be, and saying the difference in stream
// terms: which window of which key is missing, extra or different, which late or error record
// differs — not "line 412 differs". Used by `tideline-run --expect`.

#include <string>
#include <vector>

namespace tideline::runner {

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

struct SinkDiff
{
    bool equal = true;
    int missing = 0;
    int extra = 0;
    int different = 0;
    bool orderOnly = false; ///< same rows, other order
    /// The report, one line per finding (already capped), without the sink's heading.
    std::vector<std::string> lines;
};

/// Compares JSON-lines (or CSV: `jsonLines` false, compared as text lines) outputs.
[[nodiscard]] SinkDiff diffOutputs(const std::vector<std::string> &expected,
                                   const std::vector<std::string> &actual,
                                   const RowIdentity &identity,
                                   bool jsonLines);

/// "2026-12-01T10:05:00.000Z (1796119500000)": event times as people and tools read them.
std::string describeTime(long long epochMs);

} // namespace tideline::runner
