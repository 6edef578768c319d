// The window kind: its catalog entry (ports, params, traits), its implementation, and its
// pitfall rules (what is valid but likely not meant). The operator: window_base.cpp.

#include "operators/kind_def.hpp"
#include "operators/params.hpp"

#include <tideline/engine/catalog.hpp>

namespace tideline {

namespace {

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

} // namespace

using namespace describe;

KindDef windowKind()
{
    KindDef kind;
    NodeKind &n = kind.desc;
    n.kind = "window";
    n.stateKeyParam = "key";
    n.displayName = "Window";
    n.category = "Windows & joins";
    n.help = "Groups records by key and event-time window and aggregates them; a window fires "
             "when the watermark passes its end.";
    n.needsEventTime = true;
    n.inputs = {data("in")};
    n.outputs = {data("out"), late()};
    n.params
        = {req(choices(p("type", ParamType::Enum, "tumbling, sliding or session."),
                       {"tumbling", "sliding", "session"})),
           range(p("size_ms", ParamType::Int, "Window length (tumbling, sliding)."), 1),
           range(p("slide_ms", ParamType::Int, "Distance between window starts (sliding)."), 1),
           range(p("gap_ms", ParamType::Int, "Inactivity that closes a session (session)."), 1),
           def(p("key", ParamType::StringList, "Fields to group by (none = one global group)."),
               Json::array()),
           req(fields(p("aggregates", ParamType::ObjectList, "What to compute per window."),
                      {req(choices(p("op", ParamType::Enum, "Aggregate function."),
                                   {"count", "sum", "min", "max", "avg"})),
                       p("field", ParamType::String,
                         "Input field (count without a field counts records)."),
                       p("as", ParamType::String, "Output field name (default: op_field).")})),
           range(def(p("allowed_lateness_ms", ParamType::Int,
                       "Keep fired windows this long and re-emit them as updates when late "
                       "records arrive."),
                     0),
                 0)};
    kind.impl = {&makeWindow, &validateWindow, &windowPitfalls, nullptr};
    return kind;
}

} // namespace tideline
