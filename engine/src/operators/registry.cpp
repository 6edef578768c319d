#include "connectors/postgres/postgres_sink.hpp"
#include "operators/operators.hpp"

#include <array>

namespace tideline {

namespace {
// Kinds listed in the catalog but absent here are reported by validate() as
// "not available in this build" rather than failing at run time.
const auto kImpls = std::to_array<KindImpl>({
    {"source.generator", &makeGeneratorSource, &validateGenerator},
    {"source.file", &makeFileSource, &validateFileSource},
    {"watermark", &makeWatermark, &validateWatermark},
    {"window", &makeWindow, &validateWindow},
    {"sink.file", &makeFileSink, nullptr},
    {"sink.console", &makeConsoleSink, nullptr},
    {"filter", &makeFilter, &validateFilter},
    {"map", &makeMap, &validateMap},
    {"dedup", &makeDedup, &validateDedup},
    {"join", &makeJoin, &validateJoin},
    {"enrich", &makeEnrich, &validateEnrich},
    {"sink.upsert", &makeUpsertSink, &validateUpsertSink},
    {"sink.discard", &makeDiscardSink, nullptr},
    {"source.nexmark", &makeNexmarkSource, &validateNexmarkSource},
    {"top", &makeTop, &validateTop},
    {"window_join", &makeWindowJoin, &validateWindowJoin},
    {"source.kafka", &makeKafkaSource, &validateKafkaSource},
    {"sink.kafka", &makeKafkaSink, &validateKafkaSink},
    {"sink.postgres", &makePostgresSink, &validatePostgresSink},
});
} // namespace

const KindImpl *findKindImpl(std::string_view kind)
{
    for (const auto &k : kImpls)
        if (kind == k.kind)
            return &k;
    return nullptr;
}

} // namespace tideline
