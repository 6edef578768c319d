#pragma once
// The fused chain over a file, for the parallel checkpoint tests (test_parallel_checkpoint.cpp,
// test_parallel_checkpoint_kill.cpp): a source -> watermark -> keyed tumbling window, records
// parsed, stamped and keyed on the workers; its malformed lines and late records go into one
// dead-letter file whose `file:line` must survive a restore.

#include <filesystem>
#include <fstream>
#include <string>

namespace tideline::testing {

/// `source` (a node with id `src`) -> `wm` (100 ms delay) -> `per_user` (tumbling `sizeMs`,
/// count and sum by user_id) -> results.jsonl, late and errors -> dead.jsonl; checkpoints
/// every `checkpointMs`.
inline std::string fusedFileChain(const std::string &source, int checkpointMs, int sizeMs)
{
    return R"({"format": "tideline/1", "name": "fused-file-checkpoints",
  "settings": {"checkpoint": {"interval_ms": )"
           + std::to_string(checkpointMs) + R"(, "dir": "checkpoints"}},
  "nodes": [)"
           + source + R"(,
    {"id": "wm", "kind": "watermark", "params": {"time_field": "event_time", "max_out_of_orderness_ms": 100}},
    {"id": "per_user", "kind": "window", "params": {"type": "tumbling", "size_ms": )"
           + std::to_string(sizeMs) + R"(,
      "key": ["user_id"], "aggregates": [{"op": "count", "as": "n"}, {"op": "sum", "field": "value", "as": "total"}]}},
    {"id": "results", "kind": "sink.file", "params": {"path": "out/results.jsonl"}},
    {"id": "dead", "kind": "sink.file", "params": {"path": "out/dead.jsonl"}}],
  "edges": [{"from": "src.out", "to": "wm.in"}, {"from": "wm.out", "to": "per_user.in"},
    {"from": "per_user.out", "to": "results.in"}, {"from": "per_user.late", "to": "dead.in"},
    {"from": "src.errors", "to": "dead.in"}, {"from": "wm.errors", "to": "dead.in"}]})";
}

inline const char *kFusedFileSource
    = R"({"id": "src", "kind": "source.file", "params": {"path": "data/events.jsonl"}})";

/// `lines` JSON lines into dir/data/events.jsonl: `keys` users, line i at `msPerLine` * i plus
/// up to 400 ms out of order (late records past the 100 ms delay), every 997th line malformed.
inline void writeFusedEvents(const std::string &dir, long long lines, int keys, int msPerLine)
{
    std::filesystem::create_directories(dir + "/data");
    std::ofstream out(dir + "/data/events.jsonl", std::ios::binary);
    std::string text;
    for (long long i = 1; i <= lines; ++i) {
        if (i % 997 == 0)
            text += "{\"event_id\":" + std::to_string(i) + ",\"user_id\":oops}\n";
        else
            text += "{\"event_id\":" + std::to_string(i)
                    + ",\"user_id\":" + std::to_string(i * 31 % keys)
                    + ",\"value\":" + std::to_string(i % 97) + ",\"event_time\":"
                    + std::to_string(1700000000000LL + i * msPerLine + i * 7919 % 400) + "}\n";
        if (text.size() > (1 << 20)) {
            out << text;
            text.clear();
        }
    }
    out << text;
}

} // namespace tideline::testing
