#pragma once
// Lineage (issue 16): where did this record go, and what made this output row?
//
// With JobOptions::lineage.enabled the runtime records, for every input record, each node it
// reached and what happened there (passed, mapped into a new row, joined with which partner,
// counted in which window, dropped as a duplicate of which record, late by how much), and for
// every row a sink received the input records that made it. Kept in memory up to a budget of
// records and bytes; past it the oldest are forgotten first (a long live run keeps its newest
// records traceable), and every answer says how many are no longer traceable and since when
// the rest are ("traced from HH:MM:SS on").
//
// Without it the runtime pays what a tap costs: one pointer test per record and emit.
// [Threading] The store is written on the loop thread; read it after the run (or between two
// runFor() calls).

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tideline::lineage {

struct Options
{
    bool enabled = false;
    /// Input records kept traceable (each with its path and the rows made from it).
    std::size_t maxRecords = 200000;
    /// Bytes of recorded JSON and steps, about.
    std::size_t maxBytes = std::size_t{256} << 20;
};

/// One thing that happened to a record at a node.
struct Step
{
    std::string node;
    std::string kind; ///< "read", "passed", "mapped", "joined", "window", "duplicate", ...
    std::string what; ///< the sentence: "late by 1 ms behind W = 2024-05-01T10:15:05Z (…)"
    std::optional<std::int64_t> windowStart, windowEnd, watermark, eventTime;
    std::vector<std::uint64_t> related; ///< partner / first-seen records, output rows
};

/// An input record (read by a source) and its whole path.
struct TracedInput
{
    std::uint64_t id = 0;
    std::string source;
    std::int64_t seq = 0; ///< 1-based: the source's n-th record
    std::string record;   ///< as read (JSON)
    std::vector<Step> path;
    std::vector<std::uint64_t> outputs; ///< output rows (TracedOutput ids) it contributed to
};

/// A row a sink received and the input records that made it.
struct TracedOutput
{
    std::uint64_t id = 0;
    std::string sink;
    /// explainMade(): the node that made this row (then `id` is the row's, not an output's).
    std::string madeAt;
    std::string record;                ///< as the sink received it (JSON)
    std::string madeBy;                ///< "window `per_user`: [start, end) of key …"
    std::vector<std::uint64_t> inputs; ///< TracedInput ids
};

struct Explanation
{
    std::string error; ///< the expression does not compile; nothing else is set
    std::vector<TracedInput> inputs;
    std::vector<TracedOutput> outputs;
    /// Input records forgotten (past the budget), and the budget, in words ("" when none).
    std::uint64_t forgotten = 0;
    std::string budgetNote;
    /// With records forgotten: when the oldest record still traceable was read (wall clock,
    /// epoch ms): "traced from HH:MM:SS on".
    std::int64_t tracedFromMs = 0;
};

class Store;

/// Input records for which `expr` (the expression language of filter) is true, with their
/// paths; the output rows they made are in `outputs`.
Explanation explainInputs(const Store &store, std::string_view expr);
/// Output rows (as sinks received them) for which `expr` is true, with the input records that
/// made them (and those records' paths) in `inputs`.
Explanation explainOutputs(const Store &store, std::string_view expr);
/// The input records behind the rows that reached `node` (a dot on the window timeline) and
/// match `match`: a JSON object (rows that contain every field of it, as the record arrived
/// there) or an expression. Their paths, and the output rows they made.
Explanation explainReached(const Store &store, std::string_view node, std::string_view match);
/// The rows `node` made (a window pane, a top group's row, a join pair) that match `match` (as
/// explainReached), in `outputs` with `madeAt` set, and the input records that made them.
Explanation explainMade(const Store &store, std::string_view node, std::string_view match);
/// Every input record and every output row (the designer's trace view searches these).
Explanation explainAll(const Store &store);

void printText(const Explanation &e, std::ostream &out);
void printJson(const Explanation &e, std::ostream &out);

/// An event time as "2024-05-01T10:15:00.001Z (1714558500001)".
std::string timeText(std::int64_t ms);

} // namespace tideline::lineage
