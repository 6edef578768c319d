#pragma once
// settings.semantics: which engine's event-time rules the run follows ("flink", the default and
// the contract's own rules; "spark"; "kafka-streams"), the settings blocks of the two other
// modes, their validation, and what an operator needs to know about the mode it runs under.
//
// Operators never test the mode's name: they are made by a factory that picks the mode's
// operator (window, dedup, join) or read the few numbers below. Flink mode makes exactly the
// operators it made before this switch existed, so its output stays byte-identical.

#include <tideline/engine/spec.hpp>
#include <tideline/engine/time.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tideline::semantics {

enum class Engine : std::uint8_t { Flink, Spark, KafkaStreams };

const char *engineName(Engine e);

struct SparkSettings
{
    std::int64_t triggerRecords = 1000; ///< a micro-batch every N source records
    std::string batchField;             ///< "" = none; else a batch ends when its value changes
    bool updateMode = false;            ///< output_mode "update" (default "append")
    bool maxPolicy = false;             ///< watermark_policy "max" (default "min")
};

struct KafkaStreamsSettings
{
    bool onClose = false; ///< emit "on_close" (default "updates")
};

class SparkClock;

/// What the runtime hands each operator (OperatorContext::semantics). Built once per job.
struct JobSemantics
{
    Engine engine = Engine::Flink;
    SparkSettings spark;
    KafkaStreamsSettings kafka;
    /// Per node id: max_out_of_orderness_ms of the nearest upstream watermark node (the largest
    /// when several inputs lead to different ones). Spark's delay, Kafka Streams' extra grace.
    std::map<std::string, std::int64_t> upstreamDelay;
    SparkClock *sparkClock = nullptr; ///< Spark mode: the global watermark (owned by the runtime)

    std::int64_t delayOf(const std::string &nodeId) const
    {
        auto it = upstreamDelay.find(nodeId);
        return it == upstreamDelay.end() ? 0 : it->second;
    }
};

/// The mode `settings` select (valid settings assumed: anything unknown reads as the default).
JobSemantics readSemantics(const PipelineSpec &spec);

/// obj[key] when obj is an object holding a string there, else "" (never throws: validation
/// reads files that may hold anything).
std::string stringAt(const Json &obj, const char *key);

/// The engine named by `settings.semantics` (Flink when absent or unknown).
Engine engineOf(const Json &settings);

/// "flink" | "spark" | "kafka-streams" -> Engine; false for anything else.
[[nodiscard]] bool parseEngine(const std::string &name, Engine &out);

/// settings.semantics / settings.spark / settings.kafka_streams: types, ranges, unknown keys.
void checkSemanticsSettings(const Json &settings, std::vector<Diagnostic> &out);

/// The graph under the selected mode: what that engine has no equivalent for (Kafka Streams
/// has no built-in dedup; Spark has no late side output; Spark's update mode has no session
/// windows), and the node kinds the mode does not model yet.
void checkSemanticsGraph(const PipelineSpec &spec, std::vector<Diagnostic> &out);

} // namespace tideline::semantics
