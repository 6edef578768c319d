#pragma once
// The pipeline the checkpoint tests run: a disordered generator (late events and duplicates)
// -> watermark -> a tumbling window with allowed lateness, a dedup, and an interval join of
// the deduplicated stream split in two by value -> file sinks and an upsert sink. Every
// stateful kind the engine has takes part, so a restore that loses or doubles anything in any
// of them changes some output file.

#include <cstdint>
#include <string>

namespace tideline::cptest {

struct FixtureOptions
{
    std::int64_t count = 20000;
    std::int64_t recordsPerSecond = 0; ///< 0 = unpaced
    std::int64_t intervalMs = 0;       ///< 0 = no settings.checkpoint
    std::string checkpointDir = "checkpoints";
    int keep = 3;
    std::int64_t windowSizeMs = 2000; ///< change to make the window incompatible
    bool extraNode = false;           ///< add a new map node + sink (edited graph)
    double stateMemoryMb = 0;         ///< > 0: settings.state "rocksdb" with this budget
};

inline std::string fixturePipeline(const FixtureOptions &o)
{
    std::string pace = o.recordsPerSecond > 0 ? R"(, "pace": {"records_per_s": )"
                                                    + std::to_string(o.recordsPerSecond) + "}"
                                              : std::string();
    std::string entries;
    if (o.intervalMs > 0)
        entries += R"("checkpoint": {"interval_ms": )" + std::to_string(o.intervalMs)
                   + R"(, "dir": ")" + o.checkpointDir + R"(", "keep": )" + std::to_string(o.keep)
                   + "}";
    if (o.stateMemoryMb > 0)
        entries += std::string(entries.empty() ? "" : ", ")
                   + R"("state": "rocksdb", "state_memory_mb": )" + std::to_string(o.stateMemoryMb);
    std::string settings = entries.empty() ? std::string() : R"("settings": {)" + entries + "},";
    std::string extraNodes = o.extraNode ? R"(,
    {"id": "tag", "kind": "map", "params": {"set": {"big": "value > 90"}}},
    {"id": "out_tag", "kind": "sink.file", "params": {"path": "out/tag.jsonl"}})"
                                         : std::string();
    std::string extraEdges = o.extraNode ? R"(,
    {"from": "dd.out", "to": "tag.in"}, {"from": "tag.out", "to": "out_tag.in"})"
                                         : std::string();
    return R"({
  "format": "tideline/1",
  "name": "checkpoint-fixture",
  )" + settings
           + R"(
  "nodes": [
    {"id": "gen", "kind": "source.generator", "params": {"count": )"
           + std::to_string(o.count) + R"(, "rate_per_s": 200, "keys": 50, "seed": 42,
      "disorder": {"max_delay_ms": 3000, "late_fraction": 0.03, "late_by_ms": 6000, "duplicate_fraction": 0.05})"
           + pace + R"(}},
    {"id": "wm", "kind": "watermark", "params": {"time_field": "event_time", "max_out_of_orderness_ms": 2000}},
    {"id": "win", "kind": "window", "params": {"type": "tumbling", "size_ms": )"
           + std::to_string(o.windowSizeMs) + R"(, "key": ["user_id"],
      "allowed_lateness_ms": 1500,
      "aggregates": [{"op": "count", "as": "n"}, {"op": "sum", "field": "value", "as": "total"}]}},
    {"id": "out_win", "kind": "sink.file", "params": {"path": "out/windows.jsonl"}},
    {"id": "out_win_late", "kind": "sink.file", "params": {"path": "out/windows-late.jsonl"}},
    {"id": "dd", "kind": "dedup", "params": {"key": ["event_id"], "within_ms": 8000}},
    {"id": "out_dd", "kind": "sink.file", "params": {"path": "out/dedup.jsonl"}},
    {"id": "lf", "kind": "filter", "params": {"expr": "value <= 50"}},
    {"id": "rf", "kind": "filter", "params": {"expr": "value > 50"}},
    {"id": "j", "kind": "join", "params": {"left_key": "user_id", "right_key": "user_id", "lower_ms": -300, "upper_ms": 300}},
    {"id": "out_join", "kind": "sink.file", "params": {"path": "out/join.jsonl"}},
    {"id": "up", "kind": "sink.upsert", "params": {"path": "out/table", "key": ["user_id"]}})"
           + extraNodes + R"(
  ],
  "edges": [
    {"from": "gen.out", "to": "wm.in"},
    {"from": "wm.out", "to": "win.in"},
    {"from": "win.out", "to": "out_win.in"},
    {"from": "win.late", "to": "out_win_late.in"},
    {"from": "wm.out", "to": "dd.in"},
    {"from": "dd.out", "to": "out_dd.in"},
    {"from": "dd.out", "to": "lf.in"},
    {"from": "dd.out", "to": "rf.in"},
    {"from": "lf.out", "to": "j.left"},
    {"from": "rf.out", "to": "j.right"},
    {"from": "j.out", "to": "out_join.in"},
    {"from": "dd.out", "to": "up.in"})"
           + extraEdges + R"(
  ]
}
)";
}

/// Output files of the fixture (relative to the pipeline folder), compared as multisets.
inline const char *const kFixtureOutputs[]
    = {"out/windows.jsonl", "out/windows-late.jsonl", "out/dedup.jsonl", "out/join.jsonl"};

} // namespace tideline::cptest
