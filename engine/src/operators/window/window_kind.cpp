// The window kind: its pitfall rules (what is valid but likely not meant).

#include "operators/operators.hpp"

#include <tideline/engine/catalog.hpp>

namespace tideline {

void windowPitfalls(const PitfallContext &ctx)
{
    const Json &p = ctx.spec.nodes[ctx.node].params;
    // Any node's params, checked or not: read only what has the right type.
    const bool session = p.contains("type") && p["type"].is_string() && p["type"] == "session";
    if (session && p.contains("gap_ms")) {
        const int w = ctx.upstreamWatermark();
        if (w >= 0) {
            const auto wi = static_cast<std::size_t>(w);
            const std::int64_t d = ctx.params(wi).integer("max_out_of_orderness_ms");
            const std::int64_t gap = ctx.params(ctx.node).integer("gap_ms");
            if (gap <= d)
                ctx.warning("gap_ms",
                            "session gap (" + std::to_string(gap)
                                + " ms) is not larger than the upstream out-of-orderness of `"
                                + ctx.nodeId(wi) + "` (" + std::to_string(d)
                                + " ms): sessions will be split or merged by arrival order; raise "
                                  "gap_ms or lower max_out_of_orderness_ms");
        }
    }
    // Late records re-emit fired windows on `out` as updates, which an appending sink (reached
    // directly or through filter/map) writes as extra rows.
    if (ctx.params(ctx.node).integer("allowed_lateness_ms") > 0) {
        for (int t : ctx.appendingSinks("out"))
            ctx.warning("allowed_lateness_ms",
                        "allowed lateness re-emits windows as \"emit\": \"update\", but `"
                            + ctx.nodeId(static_cast<std::size_t>(t)) + "` ("
                            + ctx.kinds[static_cast<std::size_t>(t)]->kind
                            + ") appends: each update becomes an extra row; use "
                              "sink.upsert keyed by the window's key and window_start, or "
                              "set allowed_lateness_ms to 0");
    }
}

} // namespace tideline
