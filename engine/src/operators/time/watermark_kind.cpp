// The watermark kind: its pitfall rules (what is valid but likely not meant).

#include "operators/operators.hpp"

#include <tideline/engine/catalog.hpp>

namespace tideline {

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

} // namespace tideline
