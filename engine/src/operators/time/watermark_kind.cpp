// The watermark kind: its catalog entry (ports, params, traits), its implementation, and its
// pitfall rules (what is valid but likely not meant). The operator: watermark_node.cpp.

#include "operators/kind_def.hpp"
#include "operators/params.hpp"

#include <tideline/engine/catalog.hpp>

namespace tideline {

namespace {

void watermarkPitfalls(const PitfallContext &ctx)
{
    const int s = ctx.upstreamSource();
    if (s < 0)
        return;
    const auto si = static_cast<std::size_t>(s);
    const NodeKind &source = *ctx.kinds[si];
    const NodeParams p = ctx.params(ctx.node);
    if (p.integer("max_lead_ms") == 0 && source.readsTopic)
        ctx.warning("max_lead_ms",
                    "`" + ctx.nodeId(si)
                        + "` is a Kafka topic but max_lead_ms is 0: one record with a "
                          "timestamp far in the future (a producer's broken clock) moves "
                          "the watermark there and every later record is late; set "
                          "max_lead_ms (e.g. 86400000, one day ahead of processing time) "
                          "to send such records to `errors`");
    if (p.integer("idle_timeout_ms") == 0) {
        // A source that declares `partitions` (the generator) is partitioned when it has more
        // than one.
        const bool partitioned
            = source.readsTopic
              || (source.param("partitions") && ctx.params(si).integer("partitions") > 1);
        if (partitioned)
            ctx.warning("idle_timeout_ms",
                        "`" + ctx.nodeId(si)
                            + "` is partitioned but idle_timeout_ms is 0: one silent "
                              "partition holds the watermark back and windows never fire; set "
                              "idle_timeout_ms (e.g. 10000)");
    }
}

} // namespace

using namespace describe;

KindDef watermarkKind()
{
    KindDef kind;
    NodeKind &n = kind.desc;
    n.kind = "watermark";
    n.assignsEventTime = true;
    n.schemaPassesThrough = true;
    n.displayName = "Watermark";
    n.category = "Time";
    n.help = "Assigns event time from a field and tracks the watermark W = max event time - "
             "out-of-orderness - 1, per source partition, merged by minimum.";
    n.inputs = {data("in")};
    n.outputs = {data("out"), errors()};
    n.params = {
        req(p("time_field", ParamType::String, "Field holding the event time.")),
        choices(def(p("time_format", ParamType::Enum, "epoch_ms, epoch_s or an ISO-8601 string."),
                    "epoch_ms"),
                {"epoch_ms", "epoch_s", "iso8601"}),
        range(req(p("max_out_of_orderness_ms", ParamType::Int,
                    "How far behind the newest event a record may arrive and still "
                    "count as on time.")),
              0),
        range(def(p("idle_timeout_ms", ParamType::Int,
                    "A partition silent this long (processing time) stops holding "
                    "the watermark back (0 = never). A bounded Kafka partition "
                    "that still has records is never idle."),
                  0),
              0),
        range(def(p("max_lead_ms", ParamType::Int,
                    "A record whose event time is more than this ahead of "
                    "processing time goes to `errors` instead of moving the "
                    "watermark (0 = no limit)."),
                  0),
              0)};
    kind.impl = {&makeWatermark, &validateWatermark, &watermarkPitfalls, nullptr};
    return kind;
}

} // namespace tideline
