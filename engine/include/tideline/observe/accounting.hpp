#pragma once
// Every record accounted for (issue 16): the ways a node consumes, drops or holds a record
// besides sending it on, each with its own counter, and the balance they must satisfy.
// Standard library only (the designer sees these through MetricsSnapshot).
//
// An operator reports a fate with one line at the place it decides it,
// `out.account(observe::Fate::Duplicate)` (Output::account, operator.hpp): a plain increment of
// the node's row in a table the runtime owns, plus one pointer test for lineage. Records sent to
// `late` or `errors` need no call: the router counts them, by reason.
//
// The balance, for every node but a source, at any published snapshot (between two records):
//   in = passed + Σ input fates + late records + error records + held
// where `passed` is records_out for a node whose outputs are its inputs (filter, map, dedup,
// watermark, enrich, sinks: records written) and 0 for a node that makes new rows out of its
// inputs (window, join, top, window_join: it reports the input fates Windowed / LateAccepted /
// Join*), whose outputs obey their own relation:
//   join:   records_out = JoinPair + JoinUnmatchedRow
//   window: records_out = WindowFinal + WindowUpdate

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tideline::observe {

enum class Fate : std::uint8_t {
    // --- what happened to an input record (summed in the balance) ---
    FilterFalse,     ///< filter: the expression was false or null
    FilterDivByZero, ///< filter: a division by zero made the expression null
    Duplicate,       ///< dedup: the key was seen within `within_ms`
    NoMatch,         ///< enrich (on_miss "drop"): no row of the table matched
    NullKey,         ///< join / window_join: a key field is missing or null, matches nothing
    JoinMatched,     ///< join: left the state after pairing with at least one partner
    JoinUnmatched,   ///< join: no partner within [lower, upper] before the watermark passed
    Windowed,        ///< window / top / window_join: counted in a window
    LateAccepted,    ///< window: behind the watermark, within allowed lateness (an update)
    // --- what an output row is (a node that makes rows: records_out = the sum of its kinds) ---
    JoinPair,         ///< join: a pair {"left", "right"}
    JoinUnmatchedRow, ///< join (left_outer): a left record with "right": null
    WindowFinal,      ///< window: a window's first result
    WindowUpdate,     ///< window: a later result of a window (allowed lateness, merges)
    Count
};

inline constexpr std::size_t kFateCount = static_cast<std::size_t>(Fate::Count);
inline constexpr std::size_t kFirstOutputFate = static_cast<std::size_t>(Fate::JoinPair);

using FateCounts = std::array<std::int64_t, kFateCount>;

/// Counts by reason ("window_closed", "missing time field `ts`"), in the order first seen.
using CauseCounts = std::vector<std::pair<std::string, std::int64_t>>;

/// The metrics name (`--metrics`, Prometheus label): "filter_false", "duplicate", ...
inline std::string_view fateName(Fate f)
{
    static constexpr std::array<std::string_view, kFateCount> names
        = {"filter_false",       "filter_division_by_zero",
           "duplicate",          "no_match",
           "null_key",           "join_matched",
           "join_unmatched",     "windowed",
           "late_accepted",      "join_pair",
           "join_unmatched_row", "window_final",
           "window_update"};
    return names[static_cast<std::size_t>(f)];
}

/// In words, for the canvas and --explain ("dropped: filter false").
inline std::string_view fateWords(Fate f)
{
    static constexpr std::array<std::string_view, kFateCount> words
        = {"dropped: the filter expression was false",
           "dropped: a division by zero made the filter expression null",
           "dropped as a duplicate",
           "dropped: no row of the table matched",
           "dropped: a key field is missing or null (matches nothing)",
           "joined, then left the join's state",
           "no partner within the join bounds before the watermark passed",
           "counted in a window",
           "late but accepted (within allowed lateness): updated a window",
           "pair rows",
           "unmatched rows (\"right\": null)",
           "final window results",
           "window updates"};
    return words[static_cast<std::size_t>(f)];
}

inline void addCause(CauseCounts &counts, std::string_view cause, std::int64_t n = 1)
{
    for (auto &c : counts)
        if (c.first == cause) {
            c.second += n;
            return;
        }
    // Causes are a handful per node; a reason built from data should not grow this forever.
    if (counts.size() >= 32) {
        cause = "other";
        for (auto &c : counts)
            if (c.first == cause) {
                c.second += n;
                return;
            }
    }
    counts.emplace_back(std::string(cause), n);
}

inline std::int64_t total(const CauseCounts &counts)
{
    std::int64_t n = 0;
    for (const auto &c : counts)
        n += c.second;
    return n;
}

} // namespace tideline::observe
