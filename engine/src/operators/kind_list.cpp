// The list of node kinds, in palette order (the designer's palette, the reference in
// pipelines/README.md, "did you mean" suggestions). Adding a kind: its <kind>_kind.cpp next
// to its operator, and one line here.

#include "operators/kind_def.hpp"

#include <algorithm>

namespace tideline {

#define TIDELINE_NODE_KINDS(X)                                                                     \
    X(generatorKind)     /* source.generator */                                                    \
    X(fileSourceKind)    /* source.file */                                                         \
    X(kafkaSourceKind)   /* source.kafka */                                                        \
    X(watermarkKind)     /* watermark */                                                           \
    X(filterKind)        /* filter */                                                              \
    X(mapKind)           /* map */                                                                 \
    X(windowKind)        /* window */                                                              \
    X(dedupKind)         /* dedup */                                                               \
    X(joinKind)          /* join */                                                                \
    X(enrichKind)        /* enrich */                                                              \
    X(nexmarkSourceKind) /* source.nexmark */                                                      \
    X(topKind)           /* top */                                                                 \
    X(windowJoinKind)    /* window_join */                                                         \
    X(fileSinkKind)      /* sink.file */                                                           \
    X(consoleSinkKind)   /* sink.console */                                                        \
    X(discardSinkKind)   /* sink.discard */                                                        \
    X(upsertSinkKind)    /* sink.upsert */                                                         \
    X(kafkaSinkKind)     /* sink.kafka */                                                          \
    X(postgresKind)      /* sink.postgres */
#define TIDELINE_DECLARE_KIND(fn) KindDef fn();
TIDELINE_NODE_KINDS(TIDELINE_DECLARE_KIND)
#undef TIDELINE_DECLARE_KIND

namespace {

// Times and durations in ms are added to event times (around 1.7e12) by the operators; beyond
// about 31,700 years (1e15 ms) the sums would leave the 64-bit range and wrap silently.
constexpr double kMaxTimeMs = 1e15;

void boundTimes(std::vector<ParamDesc> &params)
{
    for (auto &d : params) {
        const bool time = d.name.size() > 3 && d.name.compare(d.name.size() - 3, 3, "_ms") == 0;
        if (d.type == ParamType::Int && (time || d.name == "start_time" || d.name == "base_time")) {
            if (!d.max)
                d.max = kMaxTimeMs;
            if (!d.min)
                d.min = -kMaxTimeMs;
        }
        boundTimes(d.fields);
    }
}

} // namespace

const std::vector<KindDef> &kindDefs()
{
#define TIDELINE_DEFINE_KIND(fn) fn(),
    static const std::vector<KindDef> defs = [] {
        std::vector<KindDef> k{TIDELINE_NODE_KINDS(TIDELINE_DEFINE_KIND)};
        for (auto &d : k)
            boundTimes(d.desc.params);
        return k;
    }();
#undef TIDELINE_DEFINE_KIND
    return defs;
}

const KindImpl *findKindImpl(std::string_view kind)
{
    for (const auto &d : kindDefs())
        if (d.desc.kind == kind)
            return d.impl.make ? &d.impl : nullptr;
    return nullptr;
}

namespace describe {

ParamDesc paceParam()
{
    return fields(p("pace", ParamType::Object,
                    "Run slower than flat out, for watching a pipeline learn: records per second "
                    "of wall time, or event time at a speed factor."),
                  {range(def(p("records_per_s", ParamType::Number,
                               "Records per second of wall time (0 = flat out)."),
                             0),
                         0),
                   range(def(p("speed", ParamType::Number,
                               "Event time replayed at this multiple of wall time (0 = off; 1 = "
                               "real time, 60 = a minute per second)."),
                             0),
                         0),
                   p("time_field", ParamType::String,
                     "File source with speed: field holding the epoch-ms event time.")});
}

} // namespace describe

} // namespace tideline
