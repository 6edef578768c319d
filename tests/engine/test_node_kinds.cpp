// Node kinds defined in one place: the traits the engine asks instead of testing kind names,
// and the pitfall rules each kind brings (run by validate() through KindImpl::pitfalls).

#include "operators/kind_def.hpp"
#include "operators/nexmark/nexmark_generator.hpp"
#include "operators/params.hpp"
#include "test_support.hpp"

#include <tideline/engine/catalog.hpp>
#include <tideline/engine/spec.hpp>

#include <QtTest>

#include <algorithm>
#include <set>
#include <stdexcept>

using namespace tideline;

namespace {

std::string withNodes(const std::string &nodes, const std::string &edges)
{
    return R"({"format":"tideline/1","name":"t","nodes":[)" + nodes + R"(],"edges":[)" + edges
           + "]}";
}

/// The kinds that have `trait`, by name.
template<typename Trait>
std::set<std::string> kindsWith(Trait trait)
{
    std::set<std::string> out;
    for (const auto &k : nodeKinds())
        if (trait(k))
            out.insert(k.kind);
    return out;
}

std::vector<Diagnostic> warningsAt(const std::vector<Diagnostic> &ds, const std::string &path)
{
    std::vector<Diagnostic> out;
    std::copy_if(ds.begin(), ds.end(), std::back_inserter(out),
                 [&](const Diagnostic &d) { return d.path == path && !d.isError(); });
    return out;
}

const Json kNoParams = Json::object();
const Json kNotAnObject = Json::array();

} // namespace

class TestNodeKinds : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void nexmarkDefaultsAreFlinksInTheCatalogAndTheGenerator()
    {
        // The generator's own initialisers (used by the benchmarks) and the catalog's defaults
        // (what a pipeline gets) are the same numbers.
        const nexmark::GeneratorConfig flink;
        const auto c = nexmark::GeneratorConfig::fromParams(kNoParams);
        QCOMPARE(c.count, flink.count);
        QCOMPARE(c.ratePerS, flink.ratePerS);
        QCOMPARE(c.generators, flink.generators);
        QCOMPARE(c.baseTime, flink.baseTime);
        QCOMPARE(c.seed, flink.seed);
        QCOMPARE(c.totalProportion(), flink.totalProportion());
        QCOMPARE(c.bidProportion, flink.bidProportion);
        QCOMPARE(c.hotAuctionRatio, flink.hotAuctionRatio);
        QCOMPARE(c.hotBiddersRatio, flink.hotBiddersRatio);
        QCOMPARE(c.hotSellersRatio, flink.hotSellersRatio);
        QCOMPARE(c.numInFlightAuctions, flink.numInFlightAuctions);
        QCOMPARE(c.numActivePeople, flink.numActivePeople);
        QCOMPARE(c.avgPersonBytes, flink.avgPersonBytes);
        QCOMPARE(c.avgAuctionBytes, flink.avgAuctionBytes);
        QCOMPARE(c.avgBidBytes, flink.avgBidBytes);
        QCOMPARE(c.outOfOrderGroupSize, flink.outOfOrderGroupSize);
        QCOMPARE(c.flinkBidderDoubleOffset, flink.flinkBidderDoubleOffset);
        const Json given = Json::parse(
            R"({"bid_proportion": 40, "compat": {"flink_bidder_double_offset": true}})");
        const auto g = nexmark::GeneratorConfig::fromParams(given);
        QCOMPARE(g.bidProportion, 40);
        QVERIFY(g.flinkBidderDoubleOffset);
    }

    void theListIsTheCatalog()
    {
        // nodeKinds() is the list of kind definitions, in its order, each with a factory.
        const auto &defs = kindDefs();
        QCOMPARE(defs.size(), nodeKinds().size());
        std::set<std::string> names;
        for (std::size_t i = 0; i < defs.size(); ++i) {
            const std::string &name = defs[i].desc.kind;
            QCOMPARE(nodeKinds()[i].kind, name);
            QVERIFY2(names.insert(name).second, name.c_str());
            QVERIFY2(findNodeKind(name) == &nodeKinds()[i], name.c_str());
            QVERIFY2(findKindImpl(name) == &defs[i].impl, name.c_str());
            QVERIFY2(defs[i].impl.make, name.c_str());
        }
        QVERIFY(!findKindImpl("sink.nowhere"));
        QCOMPARE(nodeKinds().front().kind, std::string("source.generator"));
        QCOMPARE(nodeKinds().back().kind, std::string("sink.postgres"));
    }

    void traitsNameTheKindsTheyDescribe()
    {
        using S = std::set<std::string>;
        QCOMPARE(kindsWith([](const NodeKind &k) { return k.assignsEventTime; }), S{"watermark"});
        QCOMPARE(kindsWith([](const NodeKind &k) { return k.forwardsUpdates; }),
                 (S{"filter", "map"}));
        QCOMPARE(kindsWith([](const NodeKind &k) { return k.schemaPassesThrough; }),
                 (S{"dedup", "filter", "watermark"}));
        QCOMPARE(kindsWith([](const NodeKind &k) { return !k.fixedFields.empty(); }),
                 S{"source.generator"});
        QCOMPARE(kindsWith([](const NodeKind &k) { return k.writesFolder; }), S{"sink.upsert"});
        QCOMPARE(kindsWith([](const NodeKind &k) { return k.readsTopic; }), S{"source.kafka"});
        QCOMPARE(
            findNodeKind("source.generator")->fixedFields,
            (std::vector<std::string>{"event_id", "user_id", "value", "event_time", "partition"}));
        // Traits only mean something where the kind's role allows them.
        for (const auto &k : nodeKinds()) {
            QVERIFY2(!k.writesFolder || k.isSink, k.kind.c_str());
            QVERIFY2((k.readsTopic || !k.fixedFields.empty()) <= k.isSource, k.kind.c_str());
            QVERIFY2(!(k.assignsEventTime && k.needsEventTime), k.kind.c_str());
        }
    }

    void lateUpdatesReachAnAppendingSinkThroughFilterAndMap()
    {
        // window.out -> filter -> map -> sink.file: the updates pass both and are appended.
        // window.late -> sink.console: late records are not updates, no warning for it.
        auto r = loadSpec(withNodes(
            R"({"id":"s","kind":"source.generator"},
               {"id":"wm","kind":"watermark","params":{"time_field":"event_time","max_out_of_orderness_ms":0}},
               {"id":"w","kind":"window","params":{"type":"tumbling","size_ms":1000,"aggregates":[{"op":"count"}],"allowed_lateness_ms":500}},
               {"id":"f","kind":"filter","params":{"expr":"count > 0"}},
               {"id":"m","kind":"map","params":{"set":{"n":"count"}}},
               {"id":"o","kind":"sink.file","params":{"path":"o.jsonl"}},
               {"id":"l","kind":"sink.console"},
               {"id":"u","kind":"sink.upsert","params":{"path":"t.db","key":["window_start"]}})",
            R"({"from":"s.out","to":"wm.in"},{"from":"wm.out","to":"w.in"},{"from":"w.out","to":"f.in"},
               {"from":"f.out","to":"m.in"},{"from":"m.out","to":"o.in"},{"from":"w.late","to":"l.in"},
               {"from":"w.out","to":"u.in"})"));
        QVERIFY2(r.ok(), testing::diagnosticsText(r.diagnostics).c_str());
        auto w = warningsAt(r.diagnostics, "nodes[2].params.allowed_lateness_ms");
        QCOMPARE(w.size(), std::size_t(1));
        QCOMPARE(w[0].message,
                 std::string("allowed lateness re-emits windows as \"emit\": \"update\", but `o` "
                             "(sink.file) appends: each update becomes an extra row; use "
                             "sink.upsert keyed by the window's key and window_start, or set "
                             "allowed_lateness_ms to 0"));
        QCOMPARE(w[0].param, std::string("allowed_lateness_ms"));
        QCOMPARE(w[0].nodeId, std::string("w"));
    }

    void aKafkaTopicWithoutMaxLeadOrIdleTimeoutIsAPitfall()
    {
        auto r = loadSpec(withNodes(
            R"({"id":"k","kind":"source.kafka","params":{"bootstrap_servers":"localhost:9092","topic":"t"}},
               {"id":"wm","kind":"watermark","params":{"time_field":"ts","max_out_of_orderness_ms":0}},
               {"id":"o","kind":"sink.console"})",
            R"({"from":"k.out","to":"wm.in"},{"from":"wm.out","to":"o.in"})"));
        auto lead = warningsAt(r.diagnostics, "nodes[1].params.max_lead_ms");
        QCOMPARE(lead.size(), std::size_t(1));
        QVERIFY(lead[0].message.starts_with("`k` is a Kafka topic but max_lead_ms is 0"));
        auto idle = warningsAt(r.diagnostics, "nodes[1].params.idle_timeout_ms");
        QCOMPARE(idle.size(), std::size_t(1));
        QVERIFY(idle[0].message.starts_with("`k` is partitioned but idle_timeout_ms is 0"));

        // A one-partition generator (its default) is neither.
        auto g = loadSpec(withNodes(
            R"({"id":"s","kind":"source.generator"},
               {"id":"wm","kind":"watermark","params":{"time_field":"event_time","max_out_of_orderness_ms":0}},
               {"id":"o","kind":"sink.console"})",
            R"({"from":"s.out","to":"wm.in"},{"from":"wm.out","to":"o.in"})"));
        QVERIFY(warningsAt(g.diagnostics, "nodes[1].params.max_lead_ms").empty());
        QVERIFY(warningsAt(g.diagnostics, "nodes[1].params.idle_timeout_ms").empty());
    }

    void fieldsAreKnownThroughPassThroughKindsAndMap()
    {
        // generator (fixed fields) -> watermark -> map (drops value) -> filter on `value`:
        // the map's fields rule knows `value` is gone.
        auto r = loadSpec(withNodes(
            R"({"id":"s","kind":"source.generator"},
               {"id":"wm","kind":"watermark","params":{"time_field":"event_time","max_out_of_orderness_ms":0}},
               {"id":"m","kind":"map","params":{"set":{"v2":"value * 2"},"drop":["value"]}},
               {"id":"f","kind":"filter","params":{"expr":"value > 1 and v2 > 1"}},
               {"id":"o","kind":"sink.console"})",
            R"({"from":"s.out","to":"wm.in"},{"from":"wm.out","to":"m.in"},{"from":"m.out","to":"f.in"},{"from":"f.out","to":"o.in"})"));
        const auto txt = testing::diagnosticsText(r.diagnostics);
        bool value = false, v2 = false;
        for (const auto &d : r.diagnostics) {
            if (d.nodeIndex != 3)
                continue;
            value = value || d.message.find("'value'") != std::string::npos;
            v2 = v2 || d.message.find("'v2'") != std::string::npos;
        }
        QVERIFY2(value, txt.c_str());
        QVERIFY2(!v2, txt.c_str());
    }

    void paramsReadTheCatalogsDefaults()
    {
        // Every param with a default reads as it when absent: the operators' old fallbacks.
        for (const auto &k : nodeKinds()) {
            const NodeParams p(k, kNoParams);
            for (const auto &d : k.params) {
                if (d.defaultValue.is_null())
                    continue;
                const std::string where = k.kind + "." + d.name;
                switch (d.type) {
                case ParamType::Int:
                    QVERIFY2(p.integer(d.name) == d.defaultValue.get<std::int64_t>(),
                             where.c_str());
                    break;
                case ParamType::Number:
                    QVERIFY2(p.number(d.name) == d.defaultValue.get<double>(), where.c_str());
                    break;
                case ParamType::Bool:
                    QVERIFY2(p.boolean(d.name) == d.defaultValue.get<bool>(), where.c_str());
                    break;
                case ParamType::String:
                case ParamType::Enum:
                    QVERIFY2(p.string(d.name) == d.defaultValue.get<std::string>(), where.c_str());
                    break;
                default:
                    QVERIFY2(p.json(d.name) == d.defaultValue, where.c_str());
                }
            }
        }
        const NodeKind &gen = *findNodeKind("source.generator");
        const Json given = Json::parse(R"({"count": 5, "disorder": {"late_by_ms": 7}})");
        const NodeParams g(gen, given);
        QCOMPARE(g.integer("count"), std::int64_t(5));
        QCOMPARE(g.integer("keys"), std::int64_t(100));
        QCOMPARE(g.number("rate_per_s"), 1000.0);
        QCOMPARE(g.integer("start_time"), std::int64_t(1700000000000LL));
        QCOMPARE(g.object("disorder").integer("late_by_ms"), std::int64_t(7));
        QCOMPARE(g.object("disorder").integer("idle_partitions"), std::int64_t(0));
        QCOMPARE(g.object("pace").number("records_per_s"), 0.0); // absent object: its defaults
        QCOMPARE(NodeParams(*findNodeKind("join"), kNoParams).string("type"), std::string("inner"));
        QCOMPARE(NodeParams(*findNodeKind("source.kafka"), kNoParams).string("group_id"),
                 std::string("tideline"));
        QVERIFY(NodeParams(*findNodeKind("source.kafka"), kNoParams).boolean("partition_tasks"));
        QCOMPARE(NodeParams(*findNodeKind("watermark"), kNoParams).string("time_format"),
                 std::string("epoch_ms"));
        // Required without a default: zero values.
        QCOMPARE(NodeParams(*findNodeKind("join"), kNoParams).integer("lower_ms"), std::int64_t(0));
        QVERIFY(NodeParams(*findNodeKind("dedup"), kNoParams).fieldList("key").empty());
    }

    void paramsOfTheWrongTypeReadAsTheDefault()
    {
        const NodeKind &gen = *findNodeKind("source.generator");
        const Json given = Json::parse(R"({"count": "many", "keys": 2.5, "seed": null})");
        const NodeParams g(gen, given);
        QCOMPARE(g.integer("count"), std::int64_t(1000));
        QCOMPARE(g.integer("keys"), std::int64_t(100)); // a fraction is no integer
        QCOMPARE(g.integer("seed"), std::int64_t(1));
        QVERIFY(!g.has("seed"));
        QVERIFY(g.has("count"));
        // Params that are not an object at all read as all defaults.
        QCOMPARE(NodeParams(gen, kNotAnObject).integer("count"), std::int64_t(1000));
    }

    void fieldListsAreCanonicalAndAcceptOneString()
    {
        const NodeKind &dedup = *findNodeKind("dedup");
        const Json many = Json::parse(R"({"key": ["`user`.id", 3, "b"]})");
        const Json one = Json::parse(R"({"key": "`a`"})");
        QCOMPARE(NodeParams(dedup, many).fieldList("key"),
                 (std::vector<std::string>{"user.id", "b"}));
        QCOMPARE(NodeParams(dedup, one).fieldList("key"), (std::vector<std::string>{"a"}));
        // The window's default key is the empty list: one global group.
        QVERIFY(NodeParams(*findNodeKind("window"), kNoParams).fieldList("key").empty());
    }

    void anUndeclaredParamIsAProgrammingError()
    {
        const Json given = Json::parse(R"({"within": 5})");
        const NodeParams p(*findNodeKind("dedup"), given);
        QVERIFY_THROWS_EXCEPTION(std::logic_error, p.integer("within"));
        QVERIFY_THROWS_EXCEPTION(std::logic_error,
                                 NodeParams(*findNodeKind("source.generator"), kNoParams)
                                     .object("pace")
                                     .integer("nope"));
    }
};

QTEST_APPLESS_MAIN(TestNodeKinds)
#include "test_node_kinds.moc"
