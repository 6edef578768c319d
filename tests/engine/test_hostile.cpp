// Hostile and unusual inputs (issue 15): nothing crashes, and records leave every node that does
// not change them exactly as they arrived. Each test names the item of the issue it covers;
// they use only long-standing public API so they run against older builds too.

#include "test_support.hpp"

#include <tideline/engine/record_json.hpp>
#include <tideline/engine/validate.hpp>

#include <QtTest>

#include <chrono>

using namespace tideline;
using testing::TempDir;

namespace {

/// source.file -> sink.file, errors to errors.jsonl.
std::string passThrough(const std::string &format = "jsonl", const std::string &in = "in.jsonl")
{
    return R"({"format":"tideline/1","nodes":[
      {"id":"src","kind":"source.file","params":{"path":")"
           + in + R"(","format":")" + format + R"("}},
      {"id":"out","kind":"sink.file","params":{"path":"out.jsonl"}},
      {"id":"bad","kind":"sink.file","params":{"path":"errors.jsonl"}}],
      "edges":[{"from":"src.out","to":"out.in"},{"from":"src.errors","to":"bad.in"}]})";
}

/// source.file -> watermark(params, no out-of-orderness) -> sink.file; errors of both to
/// errors.jsonl.
std::string withWatermark(const std::string &wmParams)
{
    return R"({"format":"tideline/1","nodes":[
      {"id":"src","kind":"source.file","params":{"path":"in.jsonl"}},
      {"id":"wm","kind":"watermark","params":)"
           + wmParams.substr(0, wmParams.size() - 1) + R"(,"max_out_of_orderness_ms":0}},
      {"id":"out","kind":"sink.file","params":{"path":"out.jsonl"}},
      {"id":"bad","kind":"sink.file","params":{"path":"errors.jsonl"}}],
      "edges":[{"from":"src.out","to":"wm.in"},{"from":"wm.out","to":"out.in"},
               {"from":"src.errors","to":"bad.in"},{"from":"wm.errors","to":"bad.in"}]})";
}

std::string lines(const std::vector<std::string> &ls)
{
    std::string s;
    for (const auto &l : ls)
        s += l + "\n";
    return s;
}

/// Every line of the file parses as JSON (the errors file must stay valid JSON).
bool allJson(const std::string &path, std::string &bad)
{
    for (const auto &l : testing::readLines(path)) {
        if (!nlohmann::json::accept(l)) {
            bad = l;
            return false;
        }
    }
    return true;
}

std::string reasons(const std::string &path)
{
    std::string s;
    for (const auto &l : testing::readLines(path)) {
        auto j = nlohmann::json::parse(l, nullptr, false);
        s += (j.is_object() && j.contains("reason") ? j["reason"].dump() : l) + "\n";
    }
    return s;
}

std::string pipelineWithCount(const std::string &count)
{
    return R"({"format":"tideline/1","nodes":[
      {"id":"g","kind":"source.generator","params":{"count":)"
           + count + R"(}},
      {"id":"o","kind":"sink.discard","params":{}}],
      "edges":[{"from":"g.out","to":"o.in"}]})";
}

std::string filterPipeline(const std::string &expr)
{
    nlohmann::json e = expr;
    return R"({"format":"tideline/1","nodes":[
      {"id":"g","kind":"source.generator","params":{"count":10}},
      {"id":"f","kind":"filter","params":{"expr":)"
           + e.dump() + R"(}},
      {"id":"o","kind":"sink.discard","params":{}}],
      "edges":[{"from":"g.out","to":"f.in"},{"from":"f.out","to":"o.in"}]})";
}

/// generator -> watermark -> n filters -> sink, as pipeline text.
std::string chain(int n)
{
    std::string s = R"({"format":"tideline/1","nodes":[
      {"id":"g","kind":"source.generator","params":{"count":10}},
      {"id":"wm","kind":"watermark","params":{"time_field":"event_time"}})";
    std::string edges = R"({"from":"g.out","to":"wm.in"})";
    std::string prev = "wm";
    for (int i = 0; i < n; ++i) {
        std::string id = "f" + std::to_string(i);
        s += R"(,{"id":")" + id + R"(","kind":"filter","params":{"expr":"value > 0"}})";
        edges += R"(,{"from":")" + prev + R"(.out","to":")" + id + R"(.in"})";
        prev = id;
    }
    s += R"(,{"id":"o","kind":"sink.discard","params":{}}],"edges":[)" + edges + R"(,{"from":")"
         + prev + R"(.out","to":"o.in"}]})";
    return s;
}

double secondsToValidate(const std::string &text)
{
    auto t0 = std::chrono::steady_clock::now();
    LoadResult r = loadSpec(text);
    auto t1 = std::chrono::steady_clock::now();
    if (!r.spec)
        return -1;
    return std::chrono::duration<double>(t1 - t0).count();
}

} // namespace

class TestHostile : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // --- 1. a number beyond a double in a pipeline file ------------------------------------

    void hugeNumberInPipelineFileIsADiagnosticWithItsPath()
    {
        for (const char *n : {"1e400", "44E444", "-1e400"}) {
            LoadResult r;
            try {
                r = loadSpec(pipelineWithCount(n));
            } catch (const std::exception &e) {
                QFAIL((std::string("loadSpec threw: ") + e.what()).c_str());
            }
            QVERIFY(!r.ok());
            QCOMPARE(r.diagnostics.size(), std::size_t(1));
            QCOMPARE(r.diagnostics[0].path, std::string("nodes[0].params.count"));
            QVERIFY2(r.diagnostics[0].message.find("too large") != std::string::npos,
                     r.diagnostics[0].message.c_str());
        }
        // In an array, in settings, in ui: the path names the element.
        LoadResult a
            = loadSpec(R"({"format":"tideline/1","ui":{"zoom":[1, 2, 1e999]},"nodes":[]})");
        QCOMPARE(a.diagnostics.size(), std::size_t(1));
        QCOMPARE(a.diagnostics[0].path, std::string("ui.zoom[2]"));
        QVERIFY2(a.diagnostics[0].message.find("column 44") != std::string::npos,
                 a.diagnostics[0].message.c_str());
    }

    void numbersAPipelineFileCannotHoldAreDiagnostics()
    {
        // 1e-400 would silently be 0; an integer beyond 64 bits would silently be a double.
        LoadResult tiny = loadSpec(pipelineWithCount("1e-400"));
        QVERIFY(!tiny.ok());
        QCOMPARE(tiny.diagnostics[0].path, std::string("nodes[0].params.count"));
        QVERIFY(tiny.diagnostics[0].message.find("too small") != std::string::npos);
        LoadResult big = loadSpec(pipelineWithCount("123456789012345678901234"));
        QVERIFY(!big.ok());
        QVERIFY(big.diagnostics[0].message.find("64 bits") != std::string::npos);
        // An Int param in [2^63, 2^64) would wrap to a negative int64 in the operator.
        LoadResult wraps = loadSpec(pipelineWithCount("18446744073709551615"));
        QVERIFY(!wraps.ok());
        QVERIFY2(testing::diagnosticsText(wraps.diagnostics).find("at most 9223372036854775807")
                     != std::string::npos,
                 testing::diagnosticsText(wraps.diagnostics).c_str());
        // Zero written in any way stays fine.
        QVERIFY(
            loadSpec(R"({"format":"tideline/1","ui":{"z":[0.0, 0e-500, -0.0]},"nodes":[]})").ok());
    }

    void objectsWithTooManyKeysOrDuplicateKeys()
    {
        // An object of 20,000 keys is refused up front (reading it would be quadratic).
        std::string keys;
        for (int i = 0; i < 20000; ++i)
            keys += (i ? ",\"k" : "\"k") + std::to_string(i) + "\":1";
        LoadResult many
            = loadSpec("{\"format\":\"tideline/1\",\"ui\":{" + keys + "},\"nodes\":[]}");
        QVERIFY(!many.ok());
        QVERIFY(testing::diagnosticsText(many.diagnostics).find("more than 10000 keys")
                != std::string::npos);
        // A repeated key: the last value is used, and a warning says so.
        LoadResult dup = loadSpec(pipelineWithCount("10, \"count\": 20"));
        QVERIFY(dup.ok());
        QCOMPARE(dup.spec->nodes[0].params["count"].get<int>(), 20);
        QVERIFY2(
            testing::diagnosticsText(dup.diagnostics)
                    .find("nodes[0].params.count: duplicate key `count`: the last value is used")
                != std::string::npos,
            testing::diagnosticsText(dup.diagnostics).c_str());
    }

    // --- 2. expressions nested 10,000 deep ---------------------------------------------------

    void deeplyNestedExpressionIsAClearError()
    {
        const int n = 10000;
        for (const std::string &text : {std::string(n, '(') + "value" + std::string(n, ')'),
                                        [&] {
                                            std::string s;
                                            for (int i = 0; i < n; ++i)
                                                s += "not ";
                                            return s + "true";
                                        }(),
                                        std::string(n, '-') + "1 > 0",
                                        [&] {
                                            std::string s = "value";
                                            for (int i = 0; i < n; ++i)
                                                s += " + value";
                                            return s + " > 0";
                                        }()}) {
            LoadResult r = loadSpec(filterPipeline(text));
            QVERIFY(!r.ok());
            const std::string all = testing::diagnosticsText(r.diagnostics);
            QVERIFY2(all.find("nested too deeply") != std::string::npos,
                     all.substr(0, 300).c_str());
        }
        // 200 levels are fine.
        QVERIFY(
            loadSpec(filterPipeline(std::string(200, '(') + "value > 0" + std::string(200, ')')))
                .ok());
    }

    // --- 3. keys that contain a dot are not rewritten ------------------------------------------

    void dottedKeysPassThroughUnchanged()
    {
        TempDir dir;
        const std::vector<std::string> in = {
            R"({"service.name":"api","service":{"version":"1"}})",
            R"({"a.b":1,"a":{"b":2}})",
            R"({"":0,".":1})",
            R"({"..":{"a.":{".b":true}},"x":{"":{"":null}}})",
            R"({"`q`":1,"a":{"b.c":[1,{"d.e":2}],"c`d":"e"}})",
            R"({"k8s.io/name":"web","app.kubernetes.io/part-of":"shop","n":1.5})",
            R"({"a":{"b.c":{"d":1}},"a.b":{"c":2}})",
        };
        testing::writeFile(dir.file("in.jsonl"), lines(in));
        auto r = testing::runPipeline(passThrough(), dir.path);
        QCOMPARE(r.status, Job::Status::Finished);
        QCOMPARE(testing::readLines(dir.file("out.jsonl")), in);
        QCOMPARE(testing::readLines(dir.file("errors.jsonl")).size(), std::size_t(0));
    }

    void csvHeaderWithADotIsOneKey()
    {
        TempDir dir;
        testing::writeFile(dir.file("in.csv"), "a.b,a\n1,2\n");
        auto r = testing::runPipeline(passThrough("csv", "in.csv"), dir.path);
        QCOMPARE(r.status, Job::Status::Finished);
        QCOMPARE(testing::readFile(dir.file("out.jsonl")), std::string("{\"a.b\":1,\"a\":2}\n"));
    }

    void backtickNamesInTimeFieldExpressionsMapAndKeys()
    {
        TempDir dir;
        testing::writeFile(dir.file("in.jsonl"),
                           R"({"event.ts":1000,"service.name":"api","service":{"name":"x"}})"
                           "\n"
                           R"({"event.ts":2000,"service.name":"web","service":{"name":"api"}})"
                           "\n");
        const std::string pipeline = R"({"format":"tideline/1","nodes":[
          {"id":"src","kind":"source.file","params":{"path":"in.jsonl"}},
          {"id":"wm","kind":"watermark","params":{"time_field":"`event.ts`","max_out_of_orderness_ms":0}},
          {"id":"f","kind":"filter","params":{"expr":"`service.name` == 'api'"}},
          {"id":"m","kind":"map","params":{"set":{"`copy.of`":"service.name","`x.y`.z":"`event.ts` + 1"},
                                          "drop":["`event.ts`"]}},
          {"id":"w","kind":"window","params":{"type":"tumbling","size_ms":10000,"key":["`service.name`"],
                                             "aggregates":[{"op":"count","as":"n"}]}},
          {"id":"out","kind":"sink.file","params":{"path":"out.jsonl"}},
          {"id":"counts","kind":"sink.file","params":{"path":"counts.jsonl"}}],
          "edges":[{"from":"src.out","to":"wm.in"},{"from":"wm.out","to":"f.in"},
                   {"from":"f.out","to":"m.in"},{"from":"m.out","to":"out.in"},
                   {"from":"wm.out","to":"w.in"},{"from":"w.out","to":"counts.in"}]})";
        auto r = testing::runPipeline(pipeline, dir.path);
        QVERIFY2(r.valid, testing::diagnosticsText(r.diagnostics).c_str());
        QCOMPARE(r.status, Job::Status::Finished);
        QCOMPARE(r.metrics.node("wm")->errors, std::int64_t(0));
        QCOMPARE(testing::readFile(dir.file("out.jsonl")),
                 std::string(R"({"service.name":"api","service":{"name":"x"},"copy.of":"x",)"
                             R"("x.y":{"z":1001}})"
                             "\n"));
        auto counts = testing::readLines(dir.file("counts.jsonl"));
        QCOMPARE(counts.size(), std::size_t(2));
        QCOMPARE(nlohmann::json::parse(counts[0])["service.name"].get<std::string>(),
                 std::string("api"));
    }

    // --- 4. duplicate keys: the last wins, at the place of the first ---------------------------

    void duplicateKeysLastWinsOnBothParserPaths()
    {
        RecordParser p;
        Record r;
        std::string err;
        struct Case
        {
            const char *in, *out;
        };
        for (
            const Case &c : {
                Case{R"({"v":1,"v":2})", R"({"v":2})"},
                Case{R"({"v":1,"w":0,"v":2.5})", R"({"v":2.5,"w":0})"}, // simdjson path
                Case{R"({"a":{"x":1},"b":0,"a":{"y":2}})", R"({"a":{"y":2},"b":0})"},
                Case{R"({"a":{"x":1,"x":3}})", R"({"a":{"x":3}})"},
                Case{R"({"a":1,"a":{"b":2}})", R"({"a":{"b":2}})"},
                Case{R"({"a":{"b":2},"a":1})", R"({"a":1})"},
                Case{
                    R"({"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa":1,"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa":2})",
                    R"({"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa":2})"}, // names not cached
            }) {
            for (int round = 0; round < 2; ++round) { // cold and warm name cache
                QVERIFY2(p.parse(c.in, r, err), err.c_str());
                QCOMPARE(toJson(r), std::string(c.out));
            }
        }
        QVERIFY(p.parse(R"({"v":1,"v":2})", r, err));
        QCOMPARE(r.get("v").i, std::int64_t(2));
    }

    // --- 5. integers between 2^63 and 2^64 ---------------------------------------------------

    void bigIntegersComeOutAsTheyWentIn()
    {
        TempDir dir;
        testing::writeFile(dir.file("in.jsonl"),
                           "{\"n\":12345678901234567891}\n{\"n\":18446744073709551615}\n"
                           "{\"n\":18446744073709551616}\n{\"n\":-9223372036854775809}\n"
                           "{\"n\":[12345678901234567891]}\n");
        auto r = testing::runPipeline(passThrough(), dir.path);
        QCOMPARE(r.status, Job::Status::Finished);
        QCOMPARE(testing::readLines(dir.file("out.jsonl")),
                 (std::vector<std::string>{"{\"n\":12345678901234567891}",
                                           "{\"n\":18446744073709551615}",
                                           "{\"n\":[12345678901234567891]}"}));
        const std::string why = reasons(dir.file("errors.jsonl"));
        QVERIFY2(why.find("18446744073709551616 is an integer beyond 64 bits") != std::string::npos,
                 why.c_str());
        QVERIFY2(why.find("-9223372036854775809 is an integer beyond 64 bits") != std::string::npos,
                 why.c_str());

        testing::writeFile(dir.file("in.csv"),
                           "id,n\n1,12345678901234567891\n2,123456789012345678901234\n");
        auto c = testing::runPipeline(passThrough("csv", "in.csv"), dir.path);
        QCOMPARE(c.status, Job::Status::Finished);
        QCOMPARE(testing::readLines(dir.file("out.jsonl")),
                 (std::vector<std::string>{R"({"id":1,"n":12345678901234567891})",
                                           R"({"id":2,"n":"123456789012345678901234"})"}));
    }

    // --- 6. event times that overflow
    // -------------------------------------------------------------

    void eventTimesOutOfRangeGoToErrorsForEveryFormat()
    {
        struct Case
        {
            const char *format;
            const char *value;
        };
        for (const Case &c : {
                 Case{"epoch_s", "\"9300000000000000\""},
                 Case{"epoch_s", "\"-9300000000000000\""},
                 Case{"epoch_s", "9300000000000000"},
                 Case{"epoch_s", "9.3e15"},
                 Case{"epoch_s", "\"9.3e15\""},
                 Case{"epoch_s", "\"99999999999999999999\""},
                 Case{"epoch_ms", "9223372036854775807"},
                 Case{"epoch_ms", "-9223372036854775808"},
                 Case{"epoch_ms", "\"9223372036854775807\""},
                 Case{"epoch_ms", "\"99999999999999999999\""},
                 Case{"epoch_ms", "1e300"},
                 Case{"epoch_ms", "12345678901234567891"},
             }) {
            TempDir dir;
            testing::writeFile(dir.file("in.jsonl"), std::string("{\"t\":1000}\n{\"t\":") + c.value
                                                         + "}\n{\"t\":2000}\n");
            auto r = testing::runPipeline(
                withWatermark(std::string("{\"time_field\":\"t\",\"time_format\":\"") + c.format
                              + "\"}"),
                dir.path);
            QCOMPARE(r.status, Job::Status::Finished);
            const std::string why = reasons(dir.file("errors.jsonl"));
            QVERIFY2(why.find("time out of range") != std::string::npos,
                     (std::string(c.format) + " " + c.value + ": " + why).c_str());
            // The record after it is on time and the watermark is where it should be.
            QCOMPARE(testing::readLines(dir.file("out.jsonl")).size(), std::size_t(2));
            QCOMPARE(*r.metrics.node("wm")->maxEventTime,
                     std::int64_t(std::string(c.format) == "epoch_s" ? 2'000'000 : 2000));
        }
    }

    void epochFractionAsAStringIsAccepted()
    {
        TempDir dir;
        testing::writeFile(dir.file("in.jsonl"), "{\"t\":\"1700000000000.5\"}\n");
        auto r = testing::runPipeline(withWatermark(R"({"time_field":"t"})"), dir.path);
        QCOMPARE(r.metrics.node("wm")->errors, std::int64_t(0));
        QCOMPARE(*r.metrics.node("wm")->maxEventTime, std::int64_t(1700000000000));
    }

    void impossibleDatesAreRejected()
    {
        TempDir dir;
        testing::writeFile(dir.file("in.jsonl"),
                           "{\"t\":\"2023-02-30T00:00:00Z\"}\n{\"t\":\"2023-04-31\"}\n"
                           "{\"t\":\"2023-02-29\"}\n{\"t\":\"2024-02-29T00:00:00+24:00\"}\n"
                           "{\"t\":\"2024-02-29T10:00:00+01:00\"}\n");
        auto r = testing::runPipeline(
            withWatermark(R"({"time_field":"t","time_format":"iso8601"})"), dir.path);
        QCOMPARE(r.metrics.node("wm")->errors, std::int64_t(4));
        QCOMPARE(*r.metrics.node("wm")->maxEventTime, std::int64_t(1709197200000));
    }

    // --- 7. CSV ---------------------------------------------------------------------------------

    void csvKeepsTextThatIsNotANumber()
    {
        TempDir dir;
        testing::writeFile(dir.file("in.csv"),
                           "\xEF\xBB\xBFid,zip,code,price,x\n"
                           "007,02134,+5,1.50,0.1000000000000000055511151231257827\n"
                           "1,\"line one\nline two\",\"a,\"\"b\"\"\r\nc\",-0,1e3\n");
        auto r = testing::runPipeline(passThrough("csv", "in.csv"), dir.path);
        QCOMPARE(r.status, Job::Status::Finished);
        QCOMPARE(testing::readLines(dir.file("errors.jsonl")).size(), std::size_t(0));
        QCOMPARE(
            testing::readLines(dir.file("out.jsonl")),
            (std::vector<std::string>{
                R"({"id":"007","zip":"02134","code":"+5","price":1.5,"x":"0.1000000000000000055511151231257827"})",
                "{\"id\":1,\"zip\":\"line one\\nline "
                "two\",\"code\":\"a,\\\"b\\\"\\r\\nc\",\"price\":\"-0\","
                "\"x\":1000.0}"}));
    }

    void csvUnclosedQuoteAtTheEndIsAnError()
    {
        TempDir dir;
        testing::writeFile(dir.file("in.csv"), "a,b\n1,2\n3,\"open\n4,5\n");
        auto r = testing::runPipeline(passThrough("csv", "in.csv"), dir.path);
        QCOMPARE(r.status, Job::Status::Finished);
        QCOMPARE(testing::readLines(dir.file("out.jsonl")).size(), std::size_t(1));
        const std::string why = reasons(dir.file("errors.jsonl"));
        QVERIFY2(why.find("unclosed quote") != std::string::npos, why.c_str());
    }

    // --- 8. invalid UTF-8, 1e-400 ---------------------------------------------------------------

    void invalidUtf8KeepsTheErrorsFileValidJson()
    {
        TempDir dir;
        testing::writeFile(dir.file("in.jsonl"),
                           "{\"x\":\"\xff\xfe\"}\nnot json \xc3\n{\"ok\":1}\n");
        testing::writeFile(dir.file("in.csv"), "a\n\xff\n");
        auto r = testing::runPipeline(passThrough(), dir.path);
        QCOMPARE(r.status, Job::Status::Finished);
        std::string bad;
        QVERIFY2(allJson(dir.file("errors.jsonl"), bad), bad.c_str());
        auto errs = testing::readLines(dir.file("errors.jsonl"));
        QCOMPARE(errs.size(), std::size_t(2));
        auto first = nlohmann::json::parse(errs[0]);
        QCOMPARE(first["raw_base64"].get<std::string>(), std::string("eyJ4Ijoi//4ifQ=="));
        QVERIFY(!first.contains("raw"));
        auto c = testing::runPipeline(passThrough("csv", "in.csv"), dir.path);
        QCOMPARE(c.status, Job::Status::Finished);
        QVERIFY2(allJson(dir.file("errors.jsonl"), bad), bad.c_str());
        QCOMPARE(testing::readLines(dir.file("out.jsonl")).size(), std::size_t(0));
        QVERIFY(reasons(dir.file("errors.jsonl")).find("invalid UTF-8") != std::string::npos);
    }

    void tooSmallDecimalIsRejectedWithAReason()
    {
        RecordParser p;
        Record r;
        std::string err;
        QVERIFY(!p.parse(R"({"a":1,"x":1e-400})", r, err));
        QVERIFY2(err.find("too small") != std::string::npos
                     && err.find("column 12") != std::string::npos,
                 err.c_str());
        QVERIFY(!p.parse(R"({"x":[0, 2.4e-324]})", r, err));
        QVERIFY(p.parse(R"({"x":0.0,"y":0e-999,"z":1e-310})", r, err));
        QCOMPARE(toJson(r), std::string(R"({"x":0.0,"y":0.0,"z":1e-310})"));
    }

    // --- messages that mislead ----------------------------------------------------------------

    void parseErrorsSayWhatAndWhere()
    {
        RecordParser p;
        Record r;
        std::string err;
        struct Case
        {
            const char *in, *what;
        };
        for (const Case &c : {
                 Case{"{\"a\":tru}", "invalid literal 'tru'"},
                 Case{"{\"a\":1 \"b\":2}", "expected ',' or '}' after a value, at column 8"},
                 Case{"{\"a\":01}", "malformed number"},
                 Case{"{\"a\":\"x\\q\"}", "invalid escape"},
                 Case{"{\"a\":1}x", "text after the JSON object, at column 8"},
                 Case{"{\"a\":1,}", "expected a key"},
                 Case{"[1,2]", "not a JSON object (the line is an array)"},
                 Case{"{\"a\":\"open", "unclosed string, at column 6"},
             }) {
            QVERIFY(!p.parse(c.in, r, err));
            QVERIFY2(err.find(c.what) != std::string::npos,
                     (std::string(c.in) + " -> " + err).c_str());
        }
    }

    void timeFieldMessages()
    {
        TempDir dir;
        testing::writeFile(dir.file("in.jsonl"),
                           "{\"ts\":{\"s\":1}}\n{\"ts\":\"99999999999999999999\"}\n");
        auto r = testing::runPipeline(withWatermark(R"({"time_field":"ts"})"), dir.path);
        const std::string why = reasons(dir.file("errors.jsonl"));
        QVERIFY2(why.find("`ts` is an object") != std::string::npos, why.c_str());
        QVERIFY2(why.find("time out of range") != std::string::npos, why.c_str());
        QVERIFY(why.find("not a number") == std::string::npos);
    }

    // --- validation is linear in the number of nodes -------------------------------------------

    void validationOfALongChainIsLinear()
    {
        // Best of 3 per size (the machine may be busy); quadratic growth would be 16x.
        auto best = [](int n) {
            const std::string text = chain(n);
            double b = 1e9;
            for (int i = 0; i < 3; ++i)
                b = std::min(b, secondsToValidate(text));
            return b;
        };
        const double small = best(2000), large = best(8000);
        QVERIFY2(
            large < 8 * small + 0.05,
            (std::to_string(small) + " s for 2k, " + std::to_string(large) + " s for 8k").c_str());
        // 150,000 nodes (a 10 MB file): finishes, without exhausting the stack.
        const double huge = secondsToValidate(chain(150000));
        QVERIFY(huge >= 0);
        QVERIFY2(huge < 60, std::to_string(huge).c_str());
    }
};

QTEST_APPLESS_MAIN(TestHostile)
#include "test_hostile.moc"
