// The generator source: its catalog entry (ports, params, traits) and its implementation (factory
// and validator, defined with the operator next to this file).

#include "operators/kind_def.hpp"

namespace tideline {

using namespace describe;

KindDef generatorKind()
{
    KindDef kind;
    NodeKind &n = kind.desc;
    n.kind = "source.generator";
    n.fixedFields = {"event_id", "user_id", "value", "event_time", "partition"};
    n.displayName = "Generator";
    n.category = "Sources";
    n.help = "Synthetic click-like events {event_id, user_id, value, event_time, partition} "
             "with controllable disorder, lateness, duplicates and idle partitions.";
    n.isSource = true;
    n.outputs = {data("out"), errors()};
    n.params = {
        range(def(p("count", ParamType::Int, "Events to generate (0 = unbounded)."), 1000), 0),
        range(def(p("rate_per_s", ParamType::Number,
                    "Event-time density: events per second of event time."),
                  1000),
              0.001),
        range(def(p("keys", ParamType::Int, "Distinct user_id values."), 100), 1),
        def(p("seed", ParamType::Int, "Random seed; identical seed, identical output."), 1),
        def(p("start_time", ParamType::Int, "Event time of the first event (epoch ms)."),
            1700000000000LL),
        range(def(p("partitions", ParamType::Int,
                    "Source partitions; each gets its own watermark at the watermark node."),
                  1),
              1, 1024),
        fields(p("disorder", ParamType::Object, "How far the stream is from ordered."),
               {range(def(p("max_delay_ms", ParamType::Int,
                            "Each event is delayed by up to this much (out of order)."),
                          0),
                      0),
                range(def(p("late_fraction", ParamType::Number,
                            "Fraction of events delayed by late_by_ms (late data)."),
                          0),
                      0, 1),
                range(def(p("late_by_ms", ParamType::Int, "Delay of late events."), 0), 0),
                range(def(p("duplicate_fraction", ParamType::Number,
                            "Fraction of events repeated a little later (same event_id)."),
                          0),
                      0, 1),
                range(def(p("idle_partitions", ParamType::Int,
                            "This many partitions produce nothing (idleness)."),
                          0),
                      0)}),
        paceParam(),
    };
    kind.impl = {&makeGeneratorSource, &validateGenerator, nullptr, nullptr};
    return kind;
}

} // namespace tideline
