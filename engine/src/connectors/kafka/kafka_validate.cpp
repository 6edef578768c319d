// Validation of source.kafka and sink.kafka beyond their param descriptors: the property
// allowlist and secret rules, and the scale-out pitfalls that can be seen in the graph.

#include "connectors/kafka/kafka_config.hpp"
#include "operators/operators.hpp"

#include <functional>
#include <optional>
#include <set>

namespace tideline {

namespace {

/// The allowlist, then what librdkafka itself would refuse when the node opens its client.
void checkProps(const NodeValidationContext &ctx, kafka::Role role)
{
    const NodeSpec &n = ctx.spec.nodes[static_cast<std::size_t>(ctx.nodeIndex)];
    const Json &p = n.params;
    const Json properties = p.contains("properties") ? p["properties"] : Json::object();
    bool refused = false;
    for (const auto &[key, why] : kafka::checkProperties(properties, role)) {
        ctx.error("properties." + key, why);
        refused = true;
    }
    if (refused)
        return;
    // Values the node resolves at run time stand in as placeholders of the same shape.
    auto literal = [&](const char *name, const std::string &fallback) {
        std::string v = p.value(name, fallback);
        return v.find("${") != std::string::npos || v.empty() ? fallback : v;
    };
    std::vector<kafka::ConfEntry> engine;
    if (role == kafka::Role::Consumer) {
        engine = kafka::consumerSettings("", literal("group_id", "tideline"), n.id);
    } else {
        const bool eos = p.value("delivery", std::string("at_least_once")) == "exactly_once";
        engine = kafka::producerSettings(
            "", n.id, eos ? literal("transactional_id", "tideline-" + n.id) : std::string());
    }
    kafka::ConfProblem problem = kafka::checkClientConf(engine, properties, role);
    if (!problem.message.empty())
        ctx.error(problem.param, problem.message);
}

void checkServers(const NodeValidationContext &ctx)
{
    const Json &p = ctx.spec.nodes[static_cast<std::size_t>(ctx.nodeIndex)].params;
    std::string s = p.value("bootstrap_servers", std::string());
    if (s.rfind("${", 0) == 0)
        return; // resolved at run time
    if (s.find(':') == std::string::npos)
        ctx.error("bootstrap_servers", "`" + s
                                           + "` has no port: write host:port[,host:port...], "
                                             "e.g. \"localhost:9092\"");
}

/// Node indexes reachable downstream of `from` through data ports (edges looked up in the
/// graph index: scanning every edge per node made validation quadratic).
std::vector<int> downstream(const NodeValidationContext &ctx, int from)
{
    const PipelineSpec &spec = ctx.spec;
    std::optional<SpecGraph> own;
    const SpecGraph &graph = ctx.graph ? *ctx.graph : own.emplace(spec);
    std::vector<int> out;
    std::set<int> seen{from};
    std::vector<int> stack{from};
    while (!stack.empty()) {
        int v = stack.back();
        stack.pop_back();
        for (int ei : graph.outEdges[static_cast<std::size_t>(v)]) {
            const EdgeSpec &e = spec.edges[static_cast<std::size_t>(ei)];
            if (e.from.port == "errors" || e.from.port == "late")
                continue;
            int t = graph.nodeIndex(e.to.node);
            if (t >= 0 && seen.insert(t).second) {
                out.push_back(t);
                stack.push_back(t);
            }
        }
    }
    return out;
}

/// The grouping key of a node that keeps keyed state, as `a, b` ("" when it keeps none).
std::string keyedStateFields(const NodeSpec &n)
{
    const NodeKind *kind = findNodeKind(n.kind);
    if (!kind || kind->stateKeyParam.empty() || !n.params.contains(kind->stateKeyParam))
        return {};
    const Json &k = n.params[kind->stateKeyParam];
    std::string out;
    if (k.is_string())
        return k.get<std::string>();
    if (k.is_array())
        for (const auto &f : k)
            if (f.is_string())
                out += (out.empty() ? "" : ", ") + f.get<std::string>();
    return out;
}

} // namespace

void validateKafkaSource(const NodeValidationContext &ctx)
{
    checkServers(ctx);
    checkProps(ctx, kafka::Role::Consumer);
    const Json &p = ctx.spec.nodes[static_cast<std::size_t>(ctx.nodeIndex)].params;
    if (p.value("bounded", false))
        return; // one process reads every partition
    // Unbounded = consumer group: each process owns only some partitions.
    const bool tasks = p.value("partition_tasks", true);
    const bool checkpoints = ctx.spec.settings.contains("checkpoint");
    bool keyedState = false;
    for (int v : downstream(ctx, ctx.nodeIndex)) {
        const NodeSpec &n = ctx.spec.nodes[static_cast<std::size_t>(v)];
        const std::string fields = keyedStateFields(n);
        const NodeKind *kind = findNodeKind(n.kind);
        const bool unkeyed = fields.empty() && kind && !kind->stateKeyParam.empty();
        if (unkeyed) {
            ctx.warning("group_id",
                        "`" + n.id + "` (" + n.kind
                            + ") has no key: it keeps one state for every partition this process "
                              "reads, so with several processes sharing group_id each computes "
                              "it over its own partitions only, and that state does not move on "
                              "a rebalance; key it, or run one process (bounded: true reads "
                              "every partition)");
            continue;
        }
        if (fields.empty())
            continue;
        keyedState = true;
        if (!tasks) {
            ctx.warning("partition_tasks",
                        "`" + n.id + "` (" + n.kind + ") keeps keyed state by " + fields
                            + " in one state for every partition read here: with several "
                              "processes sharing group_id that state does not move on a "
                              "rebalance (the new owner rebuilds it from replayed records only); "
                              "remove partition_tasks: false to move it with the partition");
            continue;
        }
        if (fields != "_kafka.key")
            ctx.warning("group_id",
                        "`" + n.id + "` (" + n.kind + ") keeps keyed state by " + fields
                            + ", one state per Kafka partition (it moves with the partition "
                              "between the processes of the group): correct only if producers "
                              "partition the topic by that key (use it as the message key, or "
                              "key by _kafka.key); otherwise set partition_tasks: false and run "
                              "one process");
    }
    if (tasks && keyedState && !checkpoints)
        ctx.warning("group_id",
                    "no settings.checkpoint: a partition's keyed state moves between the "
                    "processes of the group through checkpoints, so without them a partition "
                    "that moves starts empty at its new owner (add settings.checkpoint with a "
                    "dir the processes share)");
}

void validateKafkaSink(const NodeValidationContext &ctx)
{
    checkServers(ctx);
    checkProps(ctx, kafka::Role::Producer);
    const Json &p = ctx.spec.nodes[static_cast<std::size_t>(ctx.nodeIndex)].params;
    if (p.value("delivery", std::string("at_least_once")) != "exactly_once")
        return;
    // A transaction can only carry offsets of the cluster it writes to, from one source.
    int sources = 0;
    std::string sourceServers;
    for (std::size_t i = 0; i < ctx.spec.nodes.size(); ++i) {
        const NodeKind *kind = findNodeKind(ctx.spec.nodes[i].kind);
        if (!kind || !kind->readsTopic)
            continue;
        auto down = downstream(ctx, static_cast<int>(i));
        if (std::find(down.begin(), down.end(), ctx.nodeIndex) == down.end())
            continue;
        ++sources;
        // Another node: its params may be of the wrong type (reported there).
        const Json &sp = ctx.spec.nodes[i].params;
        sourceServers = sp.contains("bootstrap_servers") && sp["bootstrap_servers"].is_string()
                            ? sp["bootstrap_servers"].get<std::string>()
                            : std::string();
    }
    if (sources != 1)
        ctx.error("delivery",
                  "exactly_once needs exactly one source.kafka upstream (found "
                      + std::to_string(sources)
                      + "): the transaction commits that source's offsets with the "
                        "output; use at_least_once with an idempotent consumer otherwise");
    else if (sourceServers != p.value("bootstrap_servers", std::string()))
        ctx.error("delivery", "exactly_once needs the source and the sink on the same cluster "
                              "(same bootstrap_servers): a Kafka transaction cannot commit "
                              "offsets of another cluster");
    if (!ctx.spec.settings.contains("checkpoint"))
        ctx.warning("delivery", "exactly_once commits one transaction per checkpoint: without "
                                "settings.checkpoint the output is committed only when a bounded "
                                "run ends");
}

} // namespace tideline
