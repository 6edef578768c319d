#pragma once
// The smallest windowed pipeline the what-if sweep and the engine comparison are hand-traced on:
// events.jsonl (k, ts in epoch ms) → watermark (no delay) → 10 s tumbling count per k, results
// to out/counts.jsonl and late records to out/late.jsonl. The expected figures live beside each
// test, traced by hand against this file.

#include "test_support.hpp"

#include <cstdio>
#include <cstdlib>
#include <string>

namespace tideline::testing {

inline constexpr const char *kTinyWindowPipeline = R"({
  "format": "tideline/1",
  "name": "tiny",
  "nodes": [
    { "id": "src", "kind": "source.file", "params": { "path": "events.jsonl" } },
    { "id": "wm", "kind": "watermark",
      "params": { "time_field": "ts", "time_format": "epoch_ms", "max_out_of_orderness_ms": 0 } },
    { "id": "w", "kind": "window",
      "params": { "type": "tumbling", "size_ms": 10000, "key": ["k"],
                  "aggregates": [ { "op": "count", "as": "n" } ] } },
    { "id": "out", "kind": "sink.file", "params": { "path": "out/counts.jsonl" } },
    { "id": "late", "kind": "sink.file", "params": { "path": "out/late.jsonl" } }
  ],
  "edges": [
    { "from": "src.out", "to": "wm.in" },
    { "from": "wm.out", "to": "w.in" },
    { "from": "w.out", "to": "out.in" },
    { "from": "w.late", "to": "late.in" }
  ]
})";

/// Loads pipeline JSON a test wrote itself: one that does not load is a broken test, so it
/// ends the test program with the loader's diagnostics.
inline PipelineSpec loadPipelineOrDie(const std::string &text)
{
    LoadResult r = loadSpec(text);
    if (!r.spec) {
        std::fprintf(stderr, "pipeline does not load: %s\n",
                     diagnosticsText(r.diagnostics).c_str());
        std::abort();
    }
    return *r.spec;
}

} // namespace tideline::testing
