// The Kafka kinds (source.kafka, sink.kafka): their catalog entries (ports, params, traits)
// and implementations. The operators: kafka_source.cpp, kafka_sink.cpp; checks: kafka_validate.cpp.

#include "operators/kind_def.hpp"

namespace tideline {

using namespace describe;

KindDef kafkaSourceKind()
{
    KindDef kind;
    NodeKind &n = kind.desc;
    n.kind = "source.kafka";
    n.readsTopic = true;
    n.displayName = "Kafka source";
    n.category = "Sources";
    n.help = "Consumes a Kafka topic; values parsed as JSON, with topic, partition, offset, "
             "key and timestamp exposed as fields.";
    n.isSource = true;
    n.outputs = {data("out"), errors()};
    n.params = {req(refs(p("bootstrap_servers", ParamType::String, "host:port[,host:port...]"))),
                req(refs(p("topic", ParamType::String, "Topic to consume."))),
                def(refs(p("group_id", ParamType::String,
                           "Consumer group; processes sharing it "
                           "share the partitions.")),
                    "tideline"),
                choices(def(p("start", ParamType::Enum, "Where to start without a checkpoint."),
                            "earliest"),
                        {"earliest", "latest", "committed"}),
                def(p("bounded", ParamType::Bool,
                      "Read up to the end offsets seen at start, then end like a file."),
                    false),
                def(p("partition_tasks", ParamType::Bool,
                      "Group mode: keyed nodes keep one state per Kafka partition, which "
                      "moves with the partition between processes (needs the topic "
                      "partitioned by the key). false: one state for all partitions read "
                      "here, which does not move."),
                    true),
                refs(p("properties", ParamType::StringMap,
                       "Extra librdkafka settings (allowlisted; secrets as ${env:NAME})."))};
    kind.impl = {&makeKafkaSource, &validateKafkaSource, nullptr, nullptr};
    return kind;
}

KindDef kafkaSinkKind()
{
    KindDef kind;
    NodeKind &n = kind.desc;
    n.kind = "sink.kafka";
    n.displayName = "Kafka sink";
    n.category = "Sinks";
    n.help = "Produces records as JSON to a Kafka topic.";
    n.isSink = true;
    n.acceptsUpdates = false;
    n.inputs = {data("in", true)};
    n.params = {req(refs(p("bootstrap_servers", ParamType::String, "host:port[,host:port...]"))),
                req(refs(p("topic", ParamType::String, "Topic to produce to."))),
                p("key_field", ParamType::String, "Field used as the message key."),
                choices(def(p("delivery", ParamType::Enum,
                              "at_least_once (idempotent producer) or exactly_once "
                              "(a transaction per checkpoint)."),
                            "at_least_once"),
                        {"at_least_once", "exactly_once"}),
                refs(p("transactional_id", ParamType::String,
                       "exactly_once: stable id of this writer (default "
                       "tideline-<group_id>-<node>); give each process sharing a group its own.")),
                refs(p("properties", ParamType::StringMap,
                       "Extra librdkafka settings (allowlisted; secrets as ${env:NAME})."))};
    kind.impl = {&makeKafkaSink, &validateKafkaSink, nullptr, nullptr};
    return kind;
}

} // namespace tideline
