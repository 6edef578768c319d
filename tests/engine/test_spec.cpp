// The pipeline file: one loader/writer, every problem reported at once with node and path.

#include "test_support.hpp"

#include <tideline/engine/catalog.hpp>
#include <tideline/engine/validate.hpp>

#include <QtTest>

using namespace tideline;

namespace {

const char *kValid = R"({
  "format": "tideline/1",
  "name": "clicks",
  "description": "d",
  "settings": {"delivery": "at_least_once"},
  "nodes": [
    {"id": "src", "kind": "source.generator", "params": {"count": 10, "seed": 3}, "ui": {"x": 1, "y": 2}},
    {"id": "wm", "kind": "watermark", "params": {"time_field": "event_time", "max_out_of_orderness_ms": 50}},
    {"id": "out", "kind": "sink.console", "params": {}}
  ],
  "edges": [
    {"from": "src.out", "to": "wm.in"},
    {"from": "wm.out", "to": "out.in"}
  ]
})";

bool hasDiag(const std::vector<Diagnostic> &ds,
             const std::string &path,
             const std::string &fragment,
             bool error = true)
{
    for (const auto &d : ds)
        if (d.path == path && d.message.find(fragment) != std::string::npos && d.isError() == error)
            return true;
    return false;
}

std::string withNodes(const std::string &nodes, const std::string &edges)
{
    return R"({"format":"tideline/1","name":"t","nodes":[)" + nodes + R"(],"edges":[)" + edges
           + "]}";
}

} // namespace

class TestSpec : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void loadWriteLoadIsIdentity()
    {
        auto first = loadSpec(kValid);
        QVERIFY2(first.ok(), testing::diagnosticsText(first.diagnostics).c_str());
        std::string written = writeSpec(*first.spec);
        auto second = loadSpec(written);
        QVERIFY(second.ok());
        QVERIFY(*first.spec == *second.spec);
        QCOMPARE(writeSpec(*second.spec), written);
        // ui survives, params order survives.
        QCOMPARE(second.spec->nodes[0].ui["x"].get<int>(), 1);
        QCOMPARE(second.spec->nodes[0].params.begin().key(), std::string("count"));
    }

    void everyExampleLoadsAndRoundTrips()
    {
        int count = 0;
        for (auto &entry :
             std::filesystem::recursive_directory_iterator(TIDELINE_SOURCE_DIR "/pipelines")) {
            if (entry.path().extension() != ".json"
                || entry.path().filename().string().find("pipeline") == std::string::npos)
                continue;
            ++count;
            auto r = loadSpecFile(entry.path().string());
            QVERIFY2(
                r.ok(),
                (entry.path().string() + "\n" + testing::diagnosticsText(r.diagnostics)).c_str());
            auto again = loadSpec(writeSpec(*r.spec));
            QVERIFY(*again.spec == *r.spec);
        }
        QVERIFY2(count >= 3, "expected at least three example pipelines");
    }

    void malformedJsonNamesLineAndColumn()
    {
        auto r = loadSpec("{\n  \"format\": \"tideline/1\",\n  \"nodes\": [ , ]\n}");
        QVERIFY(!r.ok());
        QCOMPARE(r.diagnostics.size(), std::size_t(1));
        QVERIFY2(r.diagnostics[0].message.find("line 3") != std::string::npos,
                 r.diagnostics[0].message.c_str());
    }

    void notAnObjectAndMissingPieces()
    {
        QVERIFY(!loadSpec("[1,2]").ok());
        auto r = loadSpec(R"({"name":"x"})");
        QVERIFY(hasDiag(r.diagnostics, "format", "missing"));
        QVERIFY(hasDiag(r.diagnostics, "nodes", "missing"));
        auto v = loadSpec(R"({"format":"tideline/2","nodes":[]})");
        QVERIFY(hasDiag(v.diagnostics, "format", "unsupported"));
    }

    void unknownTopLevelKeyAndUnknownKindHaveHints()
    {
        auto r = loadSpec(
            R"({"format":"tideline/1","nodez":[],"nodes":[{"id":"a","kind":"sorce.file","params":{}}]})");
        QVERIFY(hasDiag(r.diagnostics, "nodez", "did you mean `nodes`"));
        QVERIFY(hasDiag(r.diagnostics, "nodes[0].kind", "did you mean `source.file`"));
    }

    void unknownParamSuggestsClosest()
    {
        auto r = loadSpec(withNodes(
            R"({"id":"src","kind":"source.generator","params":{}},
               {"id":"wm","kind":"watermark","params":{"time_field":"t","max_out_of_orderness_ms":0}},
               {"id":"w","kind":"window","params":{"type":"tumbling","size":60000,"aggregates":[{"op":"count"}]}},
               {"id":"o","kind":"sink.console"})",
            R"({"from":"src.out","to":"wm.in"},{"from":"wm.out","to":"w.in"},{"from":"w.out","to":"o.in"})"));
        QVERIFY2(hasDiag(r.diagnostics, "nodes[2].params.size", "did you mean `size_ms`"),
                 testing::diagnosticsText(r.diagnostics).c_str());
        // The runner's stderr format names index, id, path.
        bool formatted = false;
        for (const auto &d : r.diagnostics)
            formatted |= d.format() == "nodes[2] \"w\": params.size: " + d.message;
        QVERIFY(formatted);
    }

    void wrongTypesRangesAndChoices()
    {
        auto r = loadSpec(withNodes(
            R"({"id":"src","kind":"source.generator","params":{"count":"ten","rate_per_s":-1,"partitions":1.5,"disorder":{"late_fraction":2}}},
               {"id":"wm","kind":"watermark","params":{"time_field":"t","max_out_of_orderness_ms":5,"time_format":"epoch_ns"}},
               {"id":"o","kind":"sink.file","params":{"path":7}})",
            R"({"from":"src.out","to":"wm.in"},{"from":"wm.out","to":"o.in"})"));
        QVERIFY(hasDiag(r.diagnostics, "nodes[0].params.count", "must be an integer"));
        QVERIFY(hasDiag(r.diagnostics, "nodes[0].params.rate_per_s", "must be >="));
        QVERIFY(hasDiag(r.diagnostics, "nodes[0].params.partitions", "integer"));
        QVERIFY(hasDiag(r.diagnostics, "nodes[0].params.disorder.late_fraction", "must be <= 1"));
        QVERIFY(hasDiag(r.diagnostics, "nodes[1].params.time_format", "did you mean `epoch_ms`"));
        QVERIFY(hasDiag(r.diagnostics, "nodes[2].params.path", "must be a string"));
        // Every problem at once: at least these six.
        int errors = 0;
        for (const auto &d : r.diagnostics)
            errors += d.isError();
        QVERIFY(errors >= 6);
    }

    // The fuzzer (CI, stop 36): a whole float beyond int64 was cast to long long to ask
    // whether it had a fraction, which is undefined. It is a range error now.
    void wholeFloatsInIntegerParams()
    {
        auto r = loadSpec(withNodes(
            R"({"id":"src","kind":"source.generator","params":{"count":5.0,"seed":1.23457e21,"keys":-1e300}},
               {"id":"o","kind":"sink.console"})",
            R"({"from":"src.out","to":"o.in"})"));
        QVERIFY2(hasDiag(r.diagnostics, "nodes[0].params.count", "integer without a fraction"),
                 testing::diagnosticsText(r.diagnostics).c_str());
        QVERIFY(
            hasDiag(r.diagnostics, "nodes[0].params.seed", "must be at most 9223372036854775807"));
        QVERIFY(hasDiag(r.diagnostics, "nodes[0].params.keys",
                        "must be at least -9223372036854775808"));
    }

    void missingRequiredParam()
    {
        auto r = loadSpec(withNodes(
            R"({"id":"src","kind":"source.file","params":{}},{"id":"o","kind":"sink.console"})",
            R"({"from":"src.out","to":"o.in"})"));
        QVERIFY(hasDiag(r.diagnostics, "nodes[0].params.path", "missing required param"));
    }

    // Issue 17: "event time x10" on a file source ran flat out without a word (pace.speed
    // needs pace.time_field). Validation names the field and, when a watermark follows, the
    // value to set.
    void fileSourcePacedByEventTimeNeedsItsTimeField()
    {
        auto r = loadSpec(withNodes(
            R"({"id":"src","kind":"source.file","params":{"path":"in.jsonl","pace":{"speed":10}}},)"
            R"({"id":"wm","kind":"watermark","params":{"time_field":"ts","max_out_of_orderness_ms":0}},)"
            R"({"id":"o","kind":"sink.console"})",
            R"({"from":"src.out","to":"wm.in"},{"from":"wm.out","to":"o.in"})"));
        QVERIFY(hasDiag(r.diagnostics, "nodes[0].params.pace.time_field",
                        "pace.speed replays event time, so it needs `time_field`"));
        QVERIFY(hasDiag(r.diagnostics, "nodes[0].params.pace.time_field", "set it to \"ts\""));
        auto ok = loadSpec(withNodes(
            R"({"id":"src","kind":"source.file","params":{"path":"in.jsonl","pace":{"speed":10,"time_field":"ts"}}},)"
            R"({"id":"o","kind":"sink.console"})",
            R"({"from":"src.out","to":"o.in"})"));
        QVERIFY(!hasDiag(ok.diagnostics, "nodes[0].params.pace.time_field", "pace.speed"));
    }

    void duplicateAndInvalidIds()
    {
        auto r = loadSpec(withNodes(
            R"({"id":"a","kind":"sink.console"},{"id":"a","kind":"sink.console"},{"id":"9x","kind":"sink.console"})",
            ""));
        QVERIFY(hasDiag(r.diagnostics, "nodes[1].id", "duplicate id"));
        QVERIFY(hasDiag(r.diagnostics, "nodes[2].id", "not a valid id"));
    }

    void edgesDanglingMissingPortsWrongDirectionAndSecondInput()
    {
        auto r = loadSpec(withNodes(
            R"({"id":"s","kind":"source.generator"},{"id":"s2","kind":"source.generator"},{"id":"o","kind":"sink.file","params":{"path":"x"}},
               {"id":"wm","kind":"watermark","params":{"time_field":"t","max_out_of_orderness_ms":0}})",
            R"({"from":"ghost.out","to":"o.in"},{"from":"s.outt","to":"o.in"},{"from":"o.in","to":"s.out"},
               {"from":"s.out","to":"wm.in"},{"from":"s2.out","to":"wm.in"},{"from":"wm.out","to":"o.in"},{"from":"s.out","to":"wm.nope"},
               {"from":"noport","to":"o.in"})"));
        QVERIFY(hasDiag(r.diagnostics, "edges[0].from", "no node `ghost`"));
        QVERIFY(hasDiag(r.diagnostics, "edges[1].from", "did you mean `out`"));
        QVERIFY(hasDiag(r.diagnostics, "edges[2].from", "is an input port"));
        QVERIFY(hasDiag(r.diagnostics, "edges[4].to", "already has an input"));
        QVERIFY(hasDiag(r.diagnostics, "edges[6].to", "no input port `nope`"));
        QVERIFY(hasDiag(r.diagnostics, "edges[7].from", "not \"node.port\""));
    }

    void cyclesAreErrors()
    {
        auto r = loadSpec(withNodes(
            R"({"id":"s","kind":"source.generator"},
               {"id":"a","kind":"watermark","params":{"time_field":"t","max_out_of_orderness_ms":0}},
               {"id":"f","kind":"filter","params":{"expr":"true"}},
               {"id":"g","kind":"filter","params":{"expr":"true"}})",
            R"({"from":"s.out","to":"a.in"},{"from":"f.out","to":"g.in"},{"from":"g.out","to":"f.in"})"));
        QVERIFY2(hasDiag(r.diagnostics, "edges", "cycle"),
                 testing::diagnosticsText(r.diagnostics).c_str());
        // The designer's live check refuses the closing edge with a reason.
        PipelineSpec spec
            = *parseSpec(
                   withNodes(
                       R"({"id":"f","kind":"filter","params":{"expr":"true"}},{"id":"g","kind":"filter","params":{"expr":"true"}})",
                       R"({"from":"f.out","to":"g.in"})"))
                   .spec;
        QVERIFY(checkNewEdge(spec, {{"g", "out"}, {"f", "in"}}).find("cycle") != std::string::npos);
        QVERIFY(checkNewEdge(spec, {{"g", "in"}, {"f", "in"}}).find("input") != std::string::npos);
        QVERIFY(checkNewEdge(spec, {{"f", "out"}, {"g", "in"}}).find("already")
                != std::string::npos);
        QVERIFY(checkNewEdge(spec, {{"g", "out"}, {"g", "in"}}).find("itself")
                != std::string::npos);
    }

    void windowWithoutWatermarkIsAnError()
    {
        auto r = loadSpec(withNodes(
            R"({"id":"s","kind":"source.generator"},
               {"id":"w","kind":"window","params":{"type":"tumbling","size_ms":1000,"aggregates":[{"op":"count"}]}},
               {"id":"o","kind":"sink.console"})",
            R"({"from":"s.out","to":"w.in"},{"from":"w.out","to":"o.in"})"));
        QVERIFY2(hasDiag(r.diagnostics, "nodes[1]", "needs event time"),
                 testing::diagnosticsText(r.diagnostics).c_str());
        // An `errors` output carries no event time either.
        auto e = loadSpec(withNodes(
            R"({"id":"s","kind":"source.generator"},
               {"id":"wm","kind":"watermark","params":{"time_field":"t","max_out_of_orderness_ms":0}},
               {"id":"w","kind":"window","params":{"type":"tumbling","size_ms":1000,"aggregates":[{"op":"count"}]}},
               {"id":"o","kind":"sink.console"})",
            R"({"from":"s.out","to":"wm.in"},{"from":"wm.errors","to":"w.in"},{"from":"w.out","to":"o.in"})"));
        QVERIFY(hasDiag(e.diagnostics, "nodes[2]", "needs event time"));
    }

    void pitfallWarnings()
    {
        auto r = loadSpec(withNodes(
            R"({"id":"s","kind":"source.generator","params":{"partitions":4}},
               {"id":"wm","kind":"watermark","params":{"time_field":"event_time","max_out_of_orderness_ms":5000}},
               {"id":"w","kind":"window","params":{"type":"session","gap_ms":3000,"aggregates":[{"op":"count"}],"allowed_lateness_ms":1000}},
               {"id":"o","kind":"sink.file","params":{"path":"o.jsonl"}})",
            R"({"from":"s.out","to":"wm.in"},{"from":"wm.out","to":"w.in"},{"from":"w.out","to":"o.in"})"));
        QVERIFY2(r.ok(), testing::diagnosticsText(r.diagnostics).c_str()); // warnings only
        auto txt = testing::diagnosticsText(r.diagnostics);
        QVERIFY2(hasDiag(r.diagnostics, "nodes[2]", "late records will be dropped, counted", false),
                 txt.c_str());
        QVERIFY(hasDiag(r.diagnostics, "nodes[1]", "malformed records will be dropped", false));
        QVERIFY(hasDiag(r.diagnostics, "nodes[2].params.gap_ms",
                        "not larger than the upstream out-of-orderness", false));
        QVERIFY(hasDiag(r.diagnostics, "nodes[2].params.allowed_lateness_ms", "appends", false));
        QVERIFY(hasDiag(r.diagnostics, "nodes[1].params.idle_timeout_ms", "partitioned", false));
    }

    void hugeAndDeepDocumentsAreRejectedWithoutCrashing()
    {
        std::string deep(100000, '[');
        deep += std::string(100000, ']');
        auto r = loadSpec(deep);
        QVERIFY(!r.ok());
        QVERIFY(r.diagnostics[0].message.find("nested deeper") != std::string::npos);
        std::string big = std::string(R"({"format":"tideline/1","description":")")
                          + std::string(17u << 20, 'x') + "\"}";
        auto b = loadSpec(big);
        QVERIFY(!b.ok());
        QVERIFY(b.diagnostics[0].message.find("too large") != std::string::npos);
    }

    void catalogDescribesEveryContractKind()
    {
        for (const char *k : {"source.generator", "source.file", "source.kafka", "watermark",
                              "filter", "map", "window", "dedup", "join", "enrich", "sink.file",
                              "sink.console", "sink.upsert", "sink.kafka"})
            QVERIFY2(findNodeKind(k), k);
        const NodeKind *w = findNodeKind("window");
        QVERIFY(w->needsEventTime);
        QVERIFY(w->output("late"));
        QVERIFY(w->param("allowed_lateness_ms")->defaultValue == 0);
        QCOMPARE(closestMatch("size", {"size_ms", "slide_ms", "gap_ms"}), std::string("size_ms"));
        QCOMPARE(closestMatch("zzzzzz", {"size_ms"}), std::string());
        Json d = defaultParams(*findNodeKind("source.generator"));
        QCOMPARE(d["count"].get<int>(), 1000);
    }
};

QTEST_APPLESS_MAIN(TestSpec)
#include "test_spec.moc"
