// settings.semantics and the two modes' settings blocks: reading, validation, and the graph
// rules each mode adds (docs/reference/semantics.md states them for users).

#include "semantics/semantics.hpp"

#include <tideline/engine/catalog.hpp>

#include <algorithm>
#include <initializer_list>

namespace tideline::semantics {

namespace {

void fileError(std::vector<Diagnostic> &out, const std::string &path, const std::string &msg)
{
    Diagnostic d;
    d.path = path;
    d.message = msg;
    out.push_back(d);
}

void nodeProblem(std::vector<Diagnostic> &out,
                 const PipelineSpec &spec,
                 std::size_t i,
                 const std::string &param,
                 const std::string &msg,
                 Diagnostic::Severity sev)
{
    Diagnostic d;
    d.severity = sev;
    d.nodeIndex = static_cast<int>(i);
    d.nodeId = spec.nodes[i].id;
    d.path = "nodes[" + std::to_string(i) + "]" + (param.empty() ? "" : ".params." + param);
    d.param = param;
    d.message = msg;
    out.push_back(d);
}

void unknownKeys(const Json &obj,
                 const std::string &where,
                 const std::vector<std::string> &keys,
                 std::vector<Diagnostic> &out)
{
    for (auto it = obj.begin(); it != obj.end(); ++it) {
        if (std::find(keys.begin(), keys.end(), it.key()) != keys.end())
            continue;
        auto guess = closestMatch(it.key(), keys);
        fileError(out, where + "." + it.key(),
                  "unknown key `" + it.key() + "`"
                      + (guess.empty() ? "" : ": did you mean `" + guess + "`?"));
    }
}

bool isChoice(const Json &obj, const char *key, std::initializer_list<const char *> choices)
{
    if (!obj.contains(key))
        return true;
    const Json &v = obj[key];
    if (!v.is_string())
        return false;
    for (const char *c : choices)
        if (v.get<std::string>() == c)
            return true;
    return false;
}

} // namespace

const char *engineName(Engine e)
{
    switch (e) {
    case Engine::Spark:
        return "spark";
    case Engine::KafkaStreams:
        return "kafka-streams";
    case Engine::Flink:
        break;
    }
    return "flink";
}

bool parseEngine(const std::string &name, Engine &out)
{
    if (name == "flink")
        out = Engine::Flink;
    else if (name == "spark")
        out = Engine::Spark;
    else if (name == "kafka-streams")
        out = Engine::KafkaStreams;
    else
        return false;
    return true;
}

std::string stringAt(const Json &obj, const char *key)
{
    if (!obj.is_object())
        return {};
    auto it = obj.find(key);
    return it != obj.end() && it->is_string() ? it->get<std::string>() : std::string();
}

Engine engineOf(const Json &settings)
{
    Engine e = Engine::Flink;
    if (settings.is_object() && settings.contains("semantics") && settings["semantics"].is_string())
        (void)parseEngine(settings["semantics"].get<std::string>(), e);
    return e;
}

JobSemantics readSemantics(const PipelineSpec &spec)
{
    JobSemantics s;
    const Json &set = spec.settings;
    s.engine = engineOf(set);
    if (set.is_object() && set.contains("spark") && set["spark"].is_object()) {
        const Json &sp = set["spark"];
        if (sp.contains("trigger_records") && sp["trigger_records"].is_number_integer())
            s.spark.triggerRecords
                = std::max<std::int64_t>(1, sp["trigger_records"].get<std::int64_t>());
        if (sp.contains("batch_field") && sp["batch_field"].is_string())
            s.spark.batchField = sp["batch_field"].get<std::string>();
        s.spark.updateMode = stringAt(sp, "output_mode") == "update";
        s.spark.maxPolicy = stringAt(sp, "watermark_policy") == "max";
    }
    if (set.is_object() && set.contains("kafka_streams") && set["kafka_streams"].is_object())
        s.kafka.onClose = stringAt(set["kafka_streams"], "emit") == "on_close";

    // Nearest upstream watermark node's delay, per node: a fixpoint over the edges (pipelines
    // are small DAGs; a node's value only grows, so this ends after at most n rounds).
    std::map<std::string, std::int64_t> own;
    for (const auto &n : spec.nodes) {
        const NodeKind *k = findNodeKind(n.kind);
        if (k && k->assignsEventTime) {
            const Json &d = n.params.contains("max_out_of_orderness_ms")
                                ? n.params["max_out_of_orderness_ms"]
                                : Json();
            own[n.id]
                = d.is_number_integer() ? std::max<std::int64_t>(0, d.get<std::int64_t>()) : 0;
        }
    }
    for (std::size_t round = 0; round <= spec.nodes.size(); ++round) {
        bool changed = false;
        for (const auto &e : spec.edges) {
            auto o = own.find(e.from.node);
            std::int64_t v = -1;
            if (o != own.end())
                v = o->second;
            else if (auto u = s.upstreamDelay.find(e.from.node); u != s.upstreamDelay.end())
                v = u->second;
            if (v < 0)
                continue;
            auto [it, inserted] = s.upstreamDelay.emplace(e.to.node, v);
            if (inserted || it->second < v) {
                it->second = v;
                changed = true;
            }
        }
        if (!changed)
            break;
    }
    return s;
}

void checkSemanticsSettings(const Json &s, std::vector<Diagnostic> &out)
{
    if (s.contains("semantics")) {
        Engine e;
        if (!s["semantics"].is_string() || !parseEngine(s["semantics"].get<std::string>(), e))
            fileError(out, "settings.semantics",
                      "must be \"flink\" (the default), \"spark\" or \"kafka-streams\", found "
                          + s["semantics"].dump());
    }
    if (s.contains("spark")) {
        const Json &sp = s["spark"];
        if (!sp.is_object()) {
            fileError(out, "settings.spark",
                      "must be an object {trigger_records, batch_field, output_mode, "
                      "watermark_policy}");
        } else {
            unknownKeys(sp, "settings.spark",
                        {"trigger_records", "batch_field", "output_mode", "watermark_policy"}, out);
            if (sp.contains("trigger_records")
                && (!sp["trigger_records"].is_number_integer()
                    || sp["trigger_records"].get<double>() < 1
                    || sp["trigger_records"].get<double>() > 1e9))
                fileError(out, "settings.spark.trigger_records",
                          "must be an integer from 1 to 1000000000 (source records per "
                          "micro-batch; default 1000)");
            if (sp.contains("batch_field")
                && (!sp["batch_field"].is_string() || sp["batch_field"].get<std::string>().empty()))
                fileError(out, "settings.spark.batch_field",
                          "must name an input field (a new micro-batch starts when its value "
                          "changes), e.g. \"batch\"; remove it to batch by trigger_records only");
            if (!isChoice(sp, "output_mode", {"append", "update"}))
                fileError(out, "settings.spark.output_mode",
                          "must be \"append\" (the default: a window once, when the watermark "
                          "passes its end) or \"update\" (the rows that changed in each batch)");
            if (!isChoice(sp, "watermark_policy", {"min", "max"}))
                fileError(
                    out, "settings.spark.watermark_policy",
                    "must be \"min\" (the default, spark.sql.streaming.multipleWatermarkPolicy) "
                    "or \"max\"");
        }
    }
    if (s.contains("kafka_streams")) {
        const Json &k = s["kafka_streams"];
        if (!k.is_object()) {
            fileError(out, "settings.kafka_streams", "must be an object {emit}");
        } else {
            unknownKeys(k, "settings.kafka_streams", {"emit"}, out);
            if (!isChoice(k, "emit", {"updates", "on_close"}))
                fileError(out, "settings.kafka_streams.emit",
                          "must be \"updates\" (the default: every change of a window, a "
                          "changelog) or \"on_close\" (once, when the window closes: "
                          "EmitStrategy.onWindowClose)");
        }
    }
}

namespace {

/// Why `top` and `window_join` do not run in a peer's mode: what the peer itself offers for
/// them, so that the message teaches the difference instead of only refusing.
std::string unmodelledKind(Engine e, const std::string &kind)
{
    const std::string fix = "; run the pipeline with semantics \"flink\" (the default) or "
                            "remove the node";
    if (kind == "top")
        return e == Engine::Spark
                   ? "node kind `top` has no Spark Structured Streaming equivalent: the rows with "
                     "the largest value per group need a ranking window function (rank, "
                     "row_number), and Spark supports no non-time-based window function on a "
                     "streaming Dataset; a `window` with a max aggregate is what Spark can run"
                         + fix
                   : "node kind `top` is not modelled under semantics \"kafka-streams\": Kafka "
                     "Streams has no built-in top-N (an application writes a windowed aggregate "
                     "that keeps the tied rows itself); a `window` with a max aggregate is the "
                     "built-in that comes closest"
                         + fix;
    return e == Engine::Spark
               ? "node kind `window_join` is not modelled under semantics \"spark\": Spark's "
                 "form of it, a stream-stream join on equal time windows, emits each pair as soon "
                 "as both sides have arrived rather than when the window closes; the interval "
                 "`join` is modelled in this mode"
                     + fix
               : "node kind `window_join` has no Kafka Streams equivalent: a KStream-KStream join "
                 "pairs records whose times lie within JoinWindows of each other, not records of "
                 "the same tumbling window; the interval `join` (Kafka Streams' JoinWindows with "
                 "grace) is modelled in this mode"
                     + fix;
}

} // namespace

void checkSemanticsGraph(const PipelineSpec &spec, std::vector<Diagnostic> &out)
{
    const Engine e = engineOf(spec.settings);
    if (e == Engine::Flink)
        return;
    const std::string mode = engineName(e);
    const auto Err = Diagnostic::Severity::Error;
    const auto Warn = Diagnostic::Severity::Warning;
    // Checkpoints and savepoints work in every mode (the mode windows, dedups and joins write
    // their state, the watermark nodes Spark's clock); spilling to RocksDB is Flink mode's only.
    if (stringAt(spec.settings, "state") == "rocksdb") {
        std::string nodes;
        for (const NodeSpec &n : spec.nodes)
            if (n.kind == "window" || n.kind == "dedup" || n.kind == "join")
                nodes += (nodes.empty() ? "`" : ", `") + n.id + "` (" + n.kind + ")";
        fileError(out, "settings.state",
                  "\"rocksdb\" is not available under semantics \"" + mode + "\": "
                      + (nodes.empty()
                             ? std::string("its operators")
                             : "node"
                                   + std::string(nodes.find(',') == std::string::npos ? " " : "s ")
                                   + nodes)
                      + " keep their state in memory in this mode; remove settings.state (or "
                        "set it to \"memory\") or run with semantics \"flink\"");
    }
    const bool sparkUpdate = e == Engine::Spark && spec.settings.contains("spark")
                             && stringAt(spec.settings["spark"], "output_mode") == "update";
    for (std::size_t i = 0; i < spec.nodes.size(); ++i) {
        const NodeSpec &n = spec.nodes[i];
        if (n.kind == "window") {
            const std::string type = stringAt(n.params, "type");
            if (sparkUpdate && type == "session")
                nodeProblem(out, spec, i, "type",
                            "Spark does not support session windows in update output mode "
                            "(its analyzer rejects the query); set settings.spark.output_mode "
                            "to \"append\" or use a tumbling or sliding window",
                            Err);
        } else if (n.kind == "dedup") {
            if (e == Engine::KafkaStreams)
                nodeProblem(out, spec, i, "",
                            "Kafka Streams has no built-in dedup: a real application writes a "
                            "processor with a state store; here this node keeps the first "
                            "record of a key for within_ms of stream time (see "
                            "docs/reference/semantics.md)",
                            Warn);
            else
                nodeProblem(out, spec, i, "within_ms",
                            "under semantics \"spark\" dedup is dropDuplicatesWithinWatermark: "
                            "a key is kept for the upstream watermark's max_out_of_orderness_ms, "
                            "within_ms is not used",
                            Warn);
        } else if (n.kind == "join") {
            if (sparkUpdate)
                nodeProblem(out, spec, i, "",
                            "Spark supports a join of two streams in append output mode only "
                            "(its analyzer rejects the query in update mode); set "
                            "settings.spark.output_mode to \"append\" or run with semantics "
                            "\"flink\"",
                            Err);
        } else if (n.kind == "top" || n.kind == "window_join") {
            nodeProblem(out, spec, i, "", unmodelledKind(e, n.kind), Err);
        }
        if (e == Engine::Spark && (n.kind == "window" || n.kind == "dedup" || n.kind == "join")) {
            for (const auto &edge : spec.edges)
                if (edge.from.node == n.id && edge.from.port == "late") {
                    nodeProblem(out, spec, i, "",
                                "Spark has no late side output: it drops these rows silently "
                                "(only counted). Tideline still sends them to `late` with a "
                                "reason that says so, so that every record is accounted; a "
                                "Spark job cannot read them",
                                Warn);
                    break;
                }
        }
    }
}

} // namespace tideline::semantics
