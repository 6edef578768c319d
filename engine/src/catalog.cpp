// The node kinds of format tideline/1 with their ports and parameter descriptors.
// Help texts are written for the designer's inspector: one sentence, what and why.

#include <tideline/engine/catalog.hpp>

#include "connectors/postgres/postgres_sink.hpp"

#include <algorithm>

namespace tideline {

namespace {

ParamDesc p(std::string name, ParamType type, std::string help)
{
    ParamDesc d;
    d.name = std::move(name);
    d.type = type;
    d.help = std::move(help);
    d.references = type == ParamType::Path; // a path may come from the environment
    return d;
}
/// A connection setting or secret: ${env:…}/${file:…} references are resolved in it.
ParamDesc refs(ParamDesc d)
{
    d.references = true;
    return d;
}
/// A file the node reads when it starts.
ParamDesc input(ParamDesc d)
{
    d.input = true;
    return d;
}
ParamDesc req(ParamDesc d)
{
    d.required = true;
    return d;
}
ParamDesc def(ParamDesc d, Json v)
{
    d.defaultValue = std::move(v);
    return d;
}
ParamDesc range(ParamDesc d, std::optional<double> lo, std::optional<double> hi = std::nullopt)
{
    d.min = lo;
    d.max = hi;
    return d;
}
ParamDesc choices(ParamDesc d, std::vector<std::string> c)
{
    d.choices = std::move(c);
    return d;
}
ParamDesc fields(ParamDesc d, std::vector<ParamDesc> f)
{
    d.fields = std::move(f);
    return d;
}

PortDesc data(std::string name, bool multi = false)
{
    return {std::move(name), PortRole::Data, multi};
}
PortDesc late()
{
    return {"late", PortRole::Late, false};
}
PortDesc errors()
{
    return {"errors", PortRole::Errors, false};
}

constexpr double kMaxNexmarkAvgSize = 500000;

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

std::vector<NodeKind> buildKinds()
{
    std::vector<NodeKind> k;

    {
        NodeKind n;
        n.kind = "source.generator";
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
        k.push_back(n);
    }
    {
        NodeKind n;
        n.kind = "source.file";
        n.displayName = "File source";
        n.category = "Sources";
        n.help = "Reads records from a JSON-lines or CSV file in file order.";
        n.isSource = true;
        n.outputs = {data("out"), errors()};
        n.params = {
            req(input(p("path", ParamType::Path, "File to read (relative to the pipeline file)."))),
            choices(def(p("format", ParamType::Enum,
                          "jsonl: one JSON object per line; "
                          "csv: header line then rows."),
                        "jsonl"),
                    {"jsonl", "csv"}),
            paceParam()};
        k.push_back(n);
    }
    {
        NodeKind n;
        n.kind = "source.kafka";
        n.displayName = "Kafka source";
        n.category = "Sources";
        n.help = "Consumes a Kafka topic; values parsed as JSON, with topic, partition, offset, "
                 "key and timestamp exposed as fields.";
        n.isSource = true;
        n.outputs = {data("out"), errors()};
        n.params
            = {req(refs(p("bootstrap_servers", ParamType::String, "host:port[,host:port...]"))),
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
        k.push_back(n);
    }
    {
        NodeKind n;
        n.kind = "watermark";
        n.displayName = "Watermark";
        n.category = "Time";
        n.help = "Assigns event time from a field and tracks the watermark W = max event time - "
                 "out-of-orderness - 1, per source partition, merged by minimum.";
        n.inputs = {data("in")};
        n.outputs = {data("out"), errors()};
        n.params = {req(p("time_field", ParamType::String, "Field holding the event time.")),
                    choices(def(p("time_format", ParamType::Enum,
                                  "epoch_ms, epoch_s or an ISO-8601 string."),
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
        k.push_back(n);
    }
    {
        NodeKind n;
        n.kind = "filter";
        n.displayName = "Filter";
        n.category = "Transform";
        n.help = "Keeps records for which the expression is true.";
        n.inputs = {data("in")};
        n.outputs = {data("out")};
        n.params = {
            req(p("expr", ParamType::Expr, "e.g. value > 10 and lower(country) in ['de', 'fr']"))};
        k.push_back(n);
    }
    {
        NodeKind n;
        n.kind = "map";
        n.displayName = "Map";
        n.category = "Transform";
        n.help = "Computes fields (set), then keeps or drops fields.";
        n.inputs = {data("in")};
        n.outputs = {data("out")};
        n.params = {p("set", ParamType::ExprMap, "{field: expression} computed for each record."),
                    p("keep", ParamType::StringList, "Keep only these fields (after set)."),
                    p("drop", ParamType::StringList, "Remove these fields (after set).")};
        k.push_back(n);
    }
    {
        NodeKind n;
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
        k.push_back(n);
    }
    {
        NodeKind n;
        n.kind = "dedup";
        n.stateKeyParam = "key";
        n.displayName = "Dedup";
        n.category = "Windows & joins";
        n.help = "Passes the first record of each key; drops repeats while the key is "
                 "remembered (until W >= first time + within_ms).";
        n.needsEventTime = true;
        n.inputs = {data("in")};
        n.outputs = {data("out"), late()};
        n.params = {req(p("key", ParamType::StringList, "Fields that identify a record.")),
                    range(req(p("within_ms", ParamType::Int,
                                "How long (event time) a key is "
                                "remembered.")),
                          1)};
        k.push_back(n);
    }
    {
        NodeKind n;
        n.kind = "join";
        n.stateKeyParam = "left_key";
        n.displayName = "Interval join";
        n.category = "Windows & joins";
        n.help = "Joins left and right records with equal keys when "
                 "l.t + lower_ms <= r.t <= l.t + upper_ms.";
        n.needsEventTime = true;
        n.inputs = {data("left"), data("right")};
        n.outputs = {data("out"), late()};
        n.params = {req(p("left_key", ParamType::StringList, "Key fields of left records.")),
                    req(p("right_key", ParamType::StringList, "Key fields of right records.")),
                    req(p("lower_ms", ParamType::Int, "Lower bound of r.t - l.t (may be < 0).")),
                    req(p("upper_ms", ParamType::Int, "Upper bound of r.t - l.t.")),
                    choices(def(p("type", ParamType::Enum,
                                  "left_outer also emits left records that never matched."),
                                "inner"),
                            {"inner", "left_outer"})};
        k.push_back(n);
    }
    {
        NodeKind n;
        n.kind = "enrich";
        n.displayName = "Enrich";
        n.category = "Windows & joins";
        n.help = "Looks each record up in a static table loaded at start and adds the row.";
        n.inputs = {data("in")};
        n.outputs = {data("out"), late()};
        n.params
            = {req(input(p("table", ParamType::Path, "CSV or JSON-lines file with the table."))),
               choices(p("format", ParamType::Enum, "Table format (default: by extension)."),
                       {"jsonl", "csv"}),
               req(p("key", ParamType::String, "Stream field to look up.")),
               req(p("table_key", ParamType::String, "Table column to match.")),
               choices(def(p("on_miss", ParamType::Enum,
                             "No row: pass unchanged, drop (counted) or send to late."),
                           "pass"),
                       {"pass", "drop", "late"}),
               p("as", ParamType::String, "Field to put the row under (default: node id).")};
        k.push_back(n);
    }
    {
        NodeKind n;
        n.kind = "source.nexmark";
        n.displayName = "Nexmark";
        n.category = "Sources";
        n.help = "The Nexmark benchmark stream (persons, auctions, bids in 1:3:46) with Flink's "
                 "generator defaults; records {event_type, person|auction|bid: {...}, dateTime}.";
        n.isSource = true;
        n.outputs = {data("out"), errors()};
        n.params = {
            range(def(p("count", ParamType::Int, "Events to generate (0 = unbounded)."), 1000), 0),
            range(def(p("rate_per_s", ParamType::Number,
                        "Event-time density: events per second of event time (Flink's "
                        "first-event.rate)."),
                      10000),
                  0.001),
            range(def(p("generators", ParamType::Int,
                        "Flink's numEventGenerators in the delay formula (1e6/rate x generators "
                        "us per event): 8 reproduces the auction lengths of an 8-way Flink run, "
                        "and the density becomes rate_per_s / generators."),
                      1),
                  1, 1024),
            def(p("base_time", ParamType::Int,
                  "Event time origin in epoch ms (Flink uses the start time; fixed here so runs "
                  "repeat exactly)."),
                1700000000000LL),
            def(p("seed", ParamType::Int, "Mixed into every event's random stream."), 0),
            range(def(p("person_proportion", ParamType::Int, "Persons per 50 events."), 1), 1),
            range(def(p("auction_proportion", ParamType::Int, "Auctions per 50 events."), 3), 1),
            range(def(p("bid_proportion", ParamType::Int, "Bids per 50 events."), 46), 0),
            range(def(p("hot_auction_ratio", ParamType::Int,
                        "A bid goes to the hot auction with probability 1 - 1/ratio."),
                      2),
                  1),
            range(def(p("hot_bidders_ratio", ParamType::Int,
                        "A bid comes from the hot bidder with probability 1 - 1/ratio."),
                      4),
                  1),
            range(def(p("hot_sellers_ratio", ParamType::Int,
                        "An auction is by the hot seller with probability 1 - 1/ratio."),
                      4),
                  1),
            range(def(p("in_flight_auctions", ParamType::Int,
                        "Live auctions bids choose from; sets auction lengths."),
                      100),
                  1),
            range(def(p("active_people", ParamType::Int,
                        "Persons bidders and sellers are drawn "
                        "from."),
                      1000),
                  1),
            // The padding is cut from a 1 MiB pool, up to 1.2 x the average.
            range(def(p("person_avg_size", ParamType::Int, "Average person size (sizes extra)."),
                      200),
                  0, kMaxNexmarkAvgSize),
            range(def(p("auction_avg_size", ParamType::Int, "Average auction size (sizes extra)."),
                      500),
                  0, kMaxNexmarkAvgSize),
            range(def(p("bid_avg_size", ParamType::Int, "Average bid size (sizes extra)."), 100), 0,
                  kMaxNexmarkAvgSize),
            range(def(p("out_of_order_group_size", ParamType::Int,
                        "Events are permuted within groups of this size (1 = in order)."),
                      1),
                  1),
            fields(p("compat", ParamType::Object, "Reproduce known quirks of other generators."),
                   {def(p("flink_bidder_double_offset", ParamType::Bool,
                          "Flink adds 1000 to bid.bidder twice; true reproduces that."),
                        false)}),
            paceParam(),
        };
        k.push_back(n);
    }
    {
        NodeKind n;
        n.kind = "top";
        n.stateKeyParam = "by";
        n.displayName = "Top (max with ties)";
        n.category = "Windows & joins";
        n.help = "Per group, keeps the rows with the largest (or smallest) value of a field, ties "
                 "included, and emits them when the watermark completes the group.";
        n.needsEventTime = true;
        n.inputs = {data("in")};
        n.outputs = {data("out"), late()};
        n.params = {
            req(p("field", ParamType::String, "Numeric field to rank by, e.g. num or bid.price.")),
            choices(def(p("order", ParamType::Enum,
                          "max keeps the largest values, min the "
                          "smallest."),
                        "max"),
                    {"max", "min"}),
            range(p("size_ms", ParamType::Int,
                    "Tumbling window assigned here (adds window_start/window_end); without it "
                    "rows are grouped by `by` and a group completes at its latest event time."),
                  1),
            p("by", ParamType::StringList,
              "Group fields (default: [\"window_start\", \"window_end\"] without size_ms, none "
              "with it)."),
        };
        k.push_back(n);
    }
    {
        NodeKind n;
        n.kind = "window_join";
        n.stateKeyParam = "left_key";
        n.displayName = "Window join";
        n.category = "Windows & joins";
        n.help = "Joins left and right records with equal keys that fall in the same tumbling "
                 "window; emits when the window closes.";
        n.needsEventTime = true;
        n.inputs = {data("left"), data("right")};
        n.outputs = {data("out"), late()};
        n.params = {
            range(req(p("size_ms", ParamType::Int, "Tumbling window length.")), 1),
            req(p("left_key", ParamType::StringList, "Key fields of left records.")),
            req(p("right_key", ParamType::StringList, "Key fields of right records.")),
            choices(def(p("output", ParamType::Enum,
                          "pairs: {left, right} per matching pair; left_semi: each left record "
                          "once when some right record matches (SQL IN / EXISTS)."),
                        "pairs"),
                    {"pairs", "left_semi"}),
        };
        k.push_back(n);
    }
    {
        NodeKind n;
        n.kind = "sink.file";
        n.displayName = "File sink";
        n.category = "Sinks";
        n.help = "Writes records as JSON lines or CSV.";
        n.isSink = true;
        n.acceptsUpdates = false;
        n.inputs = {data("in", true)};
        n.params = {
            req(p("path", ParamType::Path, "File to write (relative to the pipeline file).")),
            choices(def(p("format", ParamType::Enum, "jsonl or csv."), "jsonl"), {"jsonl", "csv"})};
        k.push_back(n);
    }
    {
        NodeKind n;
        n.kind = "sink.console";
        n.displayName = "Console";
        n.category = "Sinks";
        n.help = "Prints records as JSON lines to standard output.";
        n.isSink = true;
        n.acceptsUpdates = false;
        n.inputs = {data("in", true)};
        k.push_back(n);
    }
    {
        NodeKind n;
        n.kind = "sink.discard";
        n.displayName = "Discard";
        n.category = "Sinks";
        n.help = "Counts records and keeps an order-independent checksum, writes nothing "
                 "(benchmarks, dry runs).";
        n.isSink = true;
        n.inputs = {data("in", true)};
        k.push_back(n);
    }
    {
        NodeKind n;
        n.kind = "sink.upsert";
        n.displayName = "Upsert table";
        n.category = "Sinks";
        n.help = "Keeps the latest record per key in a RocksDB table; replays never duplicate "
                 "rows. A record whose key is missing, null or an object goes to `errors`.";
        n.isSink = true;
        n.inputs = {data("in", true)};
        n.outputs = {errors()};
        n.params = {req(p("path", ParamType::Path, "Table folder (RocksDB).")),
                    req(p("key", ParamType::StringList, "Fields that identify a row."))};
        k.push_back(n);
    }
    {
        NodeKind n;
        n.kind = "sink.kafka";
        n.displayName = "Kafka sink";
        n.category = "Sinks";
        n.help = "Produces records as JSON to a Kafka topic.";
        n.isSink = true;
        n.acceptsUpdates = false;
        n.inputs = {data("in", true)};
        n.params
            = {req(refs(p("bootstrap_servers", ParamType::String, "host:port[,host:port...]"))),
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
        k.push_back(n);
    }
    k.push_back(postgresSinkKind());
    return k;
}

} // namespace

const char *paramTypeName(ParamType t)
{
    switch (t) {
    case ParamType::Int:
        return "integer";
    case ParamType::Number:
        return "number";
    case ParamType::Bool:
        return "boolean";
    case ParamType::String:
        return "string";
    case ParamType::Enum:
        return "string";
    case ParamType::Path:
        return "string (path)";
    case ParamType::Expr:
        return "string (expression)";
    case ParamType::StringList:
        return "array of strings";
    case ParamType::ExprMap:
        return "object {field: expression}";
    case ParamType::Object:
        return "object";
    case ParamType::ObjectList:
        return "array of objects";
    case ParamType::StringMap:
        return "object {name: string}";
    }
    return "?";
}

const ParamDesc *NodeKind::param(std::string_view name) const
{
    for (const auto &d : params)
        if (d.name == name)
            return &d;
    return nullptr;
}
const PortDesc *NodeKind::input(std::string_view name) const
{
    for (const auto &d : inputs)
        if (d.name == name)
            return &d;
    return nullptr;
}
const PortDesc *NodeKind::output(std::string_view name) const
{
    for (const auto &d : outputs)
        if (d.name == name)
            return &d;
    return nullptr;
}

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

const std::vector<NodeKind> &nodeKinds()
{
    static const std::vector<NodeKind> kinds = [] {
        auto k = buildKinds();
        for (auto &n : k)
            boundTimes(n.params);
        return k;
    }();
    return kinds;
}

const NodeKind *findNodeKind(std::string_view kind)
{
    for (const auto &k : nodeKinds())
        if (k.kind == kind)
            return &k;
    return nullptr;
}

Json defaultParams(const NodeKind &kind)
{
    Json params = Json::object();
    for (const auto &d : kind.params) {
        if (d.type == ParamType::Object) {
            Json sub = Json::object();
            for (const auto &f : d.fields)
                if (!f.defaultValue.is_null())
                    sub[f.name] = f.defaultValue;
            if (d.required)
                params[d.name] = sub;
        } else if (!d.defaultValue.is_null()) {
            params[d.name] = d.defaultValue;
        }
    }
    return params;
}

std::string closestMatch(std::string_view word, const std::vector<std::string> &candidates)
{
    auto distance = [](std::string_view a, std::string_view b) {
        std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
        for (std::size_t j = 0; j <= b.size(); ++j)
            prev[j] = j;
        for (std::size_t i = 1; i <= a.size(); ++i) {
            cur[0] = i;
            for (std::size_t j = 1; j <= b.size(); ++j) {
                std::size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
                cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
            }
            std::swap(prev, cur);
        }
        return prev[b.size()];
    };
    std::string best;
    std::size_t bestD = std::string::npos;
    for (const auto &c : candidates) {
        std::size_t d = distance(word, c);
        // A common prefix (size -> size_ms) is a strong hint even when the distance is large.
        bool prefix = c.rfind(word, 0) == 0 || std::string_view(word).rfind(c, 0) == 0;
        if (prefix)
            d = std::min<std::size_t>(d, 1);
        if (d < bestD) {
            bestD = d;
            best = c;
        }
    }
    std::size_t limit = std::max<std::size_t>(2, word.size() / 3);
    return bestD <= limit ? best : std::string();
}

} // namespace tideline
