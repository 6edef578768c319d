// The window node, tested through real pipelines: a JSONL file with explicit event times goes
// source.file -> watermark (time_field "t") -> window -> sink.file, the window's `late` port
// goes to a second sink.file, and the tests compare both files line by line with the exact
// records the contract prescribes.
//
// Watermark arithmetic used throughout: with max_out_of_orderness_ms d, after a record the
// watermark is W = maxTs - d - 1, and a window [s, e) fires when W >= e - 1.
//
// Cases that need only the output files and final figures (tumbling boundaries, too-late
// records, session merges, allowed-lateness updates) are golden folders in tests/golden/.

// clang-format off
// Engine headers before any Qt header (Qt's `emit` macro would clash with Output::emit).
#include "operators/window/aggregates.hpp"
#include "operators/window/key_codec.hpp"
#include "state/state_backend.hpp"

#include <tideline/engine/job.hpp>
#include <tideline/engine/record_json.hpp>
#include <tideline/engine/spec.hpp>
#include <tideline/engine/state_io.hpp>
#include <tideline/engine/testing/operator_harness.hpp>
#include <tideline/engine/time.hpp>
#include <tideline/engine/validate.hpp>

#include "qt_lines.hpp"
// clang-format on

#include <QStringList>
#include <QTemporaryDir>
#include <QtTest>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <unistd.h>

using namespace tideline;
using testing::Emitted;
using testing::OperatorHarness;

namespace {

using testing::writeLines;
QStringList readLines(const std::string &path)
{
    return testing::readQLines(path);
}

QString diagnosticsText(const std::vector<Diagnostic> &ds)
{
    QString s;
    for (const auto &d : ds)
        s += QString::fromStdString(d.format()) + "\n";
    return s;
}

struct RunResult
{
    QStringList out;
    QStringList late;
    observe::MetricsSnapshot metrics;
    Job::Status status = Job::Status::Failed;
    std::string error;
    const observe::NodeMetrics &win() const { return *metrics.node("win"); }
};

} // namespace

class WindowTest : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_tmp;
    int m_runs = 0;
    ManualClock m_clock;

    std::string path(const std::string &name) const
    {
        return m_tmp.path().toStdString() + "/" + name;
    }

    // source.file -> watermark(d) -> window -> sink.file, window.late -> sink.file
    Json pipelineJson(const std::string &tag,
                      const Json &windowParams,
                      int delay,
                      const Json &settings = Json())
    {
        Json j
            = Json::parse(R"({"format": "tideline/1", "name": "window-test", "nodes": [], "edges": [
            {"from": "src.out", "to": "wm.in"},
            {"from": "wm.out", "to": "win.in"},
            {"from": "win.out", "to": "out.in"},
            {"from": "win.late", "to": "late.in"}]})");
        j["name"] = "window-test-" + tag;
        if (!settings.is_null())
            j["settings"] = settings;
        j["nodes"].push_back({{"id", "src"},
                              {"kind", "source.file"},
                              {"params", {{"path", "in_" + tag + ".jsonl"}}}});
        j["nodes"].push_back(
            {{"id", "wm"},
             {"kind", "watermark"},
             {"params", {{"time_field", "t"}, {"max_out_of_orderness_ms", delay}}}});
        j["nodes"].push_back({{"id", "win"}, {"kind", "window"}, {"params", windowParams}});
        j["nodes"].push_back({{"id", "out"},
                              {"kind", "sink.file"},
                              {"params", {{"path", "out_" + tag + ".jsonl"}}}});
        j["nodes"].push_back({{"id", "late"},
                              {"kind", "sink.file"},
                              {"params", {{"path", "late_" + tag + ".jsonl"}}}});
        return j;
    }

    std::unique_ptr<Job> makeJob(const std::vector<std::string> &input,
                                 const Json &windowParams,
                                 int delay,
                                 std::string &tag,
                                 std::string &error,
                                 const Json &settings = Json(),
                                 std::vector<std::string> *log = nullptr)
    {
        tag = std::to_string(++m_runs);
        writeLines(path("in_" + tag + ".jsonl"), input);
        const LoadResult loaded = loadSpec(pipelineJson(tag, windowParams, delay, settings).dump());
        if (!loaded.ok() || !loaded.spec) {
            error = "invalid pipeline:\n" + diagnosticsText(loaded.diagnostics).toStdString();
            return nullptr;
        }
        JobOptions options;
        options.baseDir = m_tmp.path().toStdString();
        options.clock = &m_clock;
        if (log)
            options.log = [log](const std::string &line) {
                log->push_back(line);
            };
        return Job::create(*loaded.spec, std::move(options), error);
    }

    RunResult run(const std::vector<std::string> &input, const Json &windowParams, int delay)
    {
        RunResult r;
        std::string tag;
        auto job = makeJob(input, windowParams, delay, tag, r.error);
        if (!job)
            return r;
        r.status = job->run();
        if (r.status != Job::Status::Finished)
            r.error = "run ended with failure: " + job->failure();
        job->publishMetrics();
        r.metrics = job->snapshot();
        r.out = readLines(path("out_" + tag + ".jsonl"));
        r.late = readLines(path("late_" + tag + ".jsonl"));
        return r;
    }

    // What the window of pipelineJson() receives, per input line: the watermark node's output
    // (records with event time, watermarks), from a harness of the same watermark node.
    static std::vector<std::vector<Emitted>> windowEvents(const std::vector<std::string> &input,
                                                          int delay)
    {
        std::string error;
        auto wm = OperatorHarness::create(
            {"wm", "watermark", {{"time_field", "t"}, {"max_out_of_orderness_ms", delay}}, {}}, {},
            error);
        if (!wm)
            qFatal("%s", error.c_str());
        std::vector<std::vector<Emitted>> events;
        for (const auto &line : input) {
            wm->processRecord(OperatorHarness::record(line));
            events.push_back(wm->takeEmitted());
        }
        return events;
    }

    /// The window node `win` alone; spillMb > 0: settings.state "rocksdb" with that budget.
    static std::unique_ptr<OperatorHarness> windowHarness(const Json &params, double spillMb = 0)
    {
        testing::HarnessOptions o;
        o.spillMemoryMb = spillMb;
        std::string error;
        auto h = OperatorHarness::create({"win", "window", params, {}}, o, error);
        if (!h)
            qFatal("%s", error.c_str());
        return h;
    }

    static std::vector<Diagnostic> windowDiagnostics(const Json &windowParams)
    {
        Json j = Json::parse(R"({"format": "tideline/1", "name": "v", "nodes": [
            {"id": "src", "kind": "source.generator", "params": {"count": 10}},
            {"id": "wm", "kind": "watermark", "params": {"time_field": "event_time",
                                                         "max_out_of_orderness_ms": 0}},
            {"id": "out", "kind": "sink.console", "params": {}}],
            "edges": [{"from": "src.out", "to": "wm.in"}, {"from": "wm.out", "to": "win.in"},
                      {"from": "win.out", "to": "out.in"}]})");
        j["nodes"].push_back({{"id", "win"}, {"kind", "window"}, {"params", windowParams}});
        const LoadResult loaded = loadSpec(j.dump());
        std::vector<Diagnostic> mine;
        for (const auto &d : loaded.diagnostics)
            if (d.nodeId == "win")
                mine.push_back(d);
        return mine;
    }

    static const Diagnostic *
    findDiag(const std::vector<Diagnostic> &ds, const std::string &param, const std::string &text)
    {
        for (const auto &d : ds)
            if (d.param == param && d.message.find(text) != std::string::npos)
                return &d;
        return nullptr;
    }

#define RUN_OK(r) QVERIFY2((r).status == Job::Status::Finished, (r).error.c_str())

private slots:
    void initTestCase()
    {
        QVERIFY(m_tmp.isValid());
    }

    // Each record is in every [k*p, k*p+s) that contains it; results come out by window end.
    void slidingAssignment()
    {
        const Json params
            = {{"type", "sliding"},
               {"size_ms", 10},
               {"slide_ms", 5},
               {"aggregates",
                {{{"op", "count"}, {"as", "n"}}, {{"op", "sum"}, {"field", "v"}, {"as", "s"}}}}};
        RunResult r
            = run({R"({"t":0,"v":1})", R"({"t":4,"v":2})", R"({"t":7,"v":3})", R"({"t":12,"v":4})"},
                  params, 1000);
        RUN_OK(r);
        QCOMPARE(r.out, QStringList({
                            R"({"window_start":-5,"window_end":5,"n":2,"s":3,"emit":"final"})",
                            R"({"window_start":0,"window_end":10,"n":3,"s":6,"emit":"final"})",
                            R"({"window_start":5,"window_end":15,"n":2,"s":7,"emit":"final"})",
                            R"({"window_start":10,"window_end":20,"n":1,"s":4,"emit":"final"})",
                        }));
    }

    // A slide that does not divide the size (allowed, as in Flink): t=9 with s=10, p=4 is in
    // [0,10), [4,14), [8,18); t=-1 is in [-8,2), [-4,6).
    void slidingSlideNotDividingSize()
    {
        const Json params = {{"type", "sliding"},
                             {"size_ms", 10},
                             {"slide_ms", 4},
                             {"key", {"k"}},
                             {"aggregates", {{{"op", "count"}, {"as", "n"}}}}};
        RunResult r = run({R"({"t":9,"k":"x"})", R"({"t":-1,"k":"y"})"}, params, 1000);
        RUN_OK(r);
        QCOMPARE(r.out, QStringList({
                            R"({"k":"y","window_start":-8,"window_end":2,"n":1,"emit":"final"})",
                            R"({"k":"y","window_start":-4,"window_end":6,"n":1,"emit":"final"})",
                            R"({"k":"x","window_start":0,"window_end":10,"n":1,"emit":"final"})",
                            R"({"k":"x","window_start":4,"window_end":14,"n":1,"emit":"final"})",
                            R"({"k":"x","window_start":8,"window_end":18,"n":1,"emit":"final"})",
                        }));
    }

    // A record too late for some of its sliding windows but not all goes to the open ones;
    // with none open it is too late.
    void slidingPartlyLate()
    {
        const Json params = {{"type", "sliding"},
                             {"size_ms", 10},
                             {"slide_ms", 5},
                             {"aggregates", {{{"op", "count"}, {"as", "n"}}}}};
        RunResult r = run({R"({"t":12})", // W=11; windows [5,15), [10,20)
                           R"({"t":8})",  // [0,10) closed (9 <= 11), [5,15) open
                           R"({"t":3})"}, // [-5,5) and [0,10) both closed: too late
                          params, 0);
        RUN_OK(r);
        QCOMPARE(r.out, QStringList({
                            R"({"window_start":5,"window_end":15,"n":2,"emit":"final"})",
                            R"({"window_start":10,"window_end":20,"n":1,"emit":"final"})",
                        }));
        QCOMPARE(r.late,
                 QStringList({
                     R"({"reason":"window_closed","node":"win","watermark":11,"record":{"t":3}})",
                 }));
        QCOMPARE(r.win().late, 1);
    }

    // Sessions firing while the stream runs, ordered by (end, start, key) within one advance.
    void sessionFiringOrder()
    {
        const Json params = {{"type", "session"},
                             {"gap_ms", 10},
                             {"key", {"user"}},
                             {"aggregates", {{{"op", "count"}, {"as", "n"}}}}};
        RunResult r = run({R"({"t":0,"user":"a"})",   // W=-1
                           R"({"t":5,"user":"b"})",   // W=4
                           R"({"t":10,"user":"a"})",  // a: [0,20); W=9
                           R"({"t":16,"user":"b"})",  // b: [5,15) and [16,26); W=15 fires b[5,15)
                           R"({"t":40,"user":"c"})"}, // W=39 fires a[0,20) then b[16,26)
                          params, 0);
        RUN_OK(r);
        QCOMPARE(r.out,
                 QStringList({
                     R"({"user":"b","window_start":5,"window_end":15,"n":1,"emit":"final"})",
                     R"({"user":"a","window_start":0,"window_end":20,"n":2,"emit":"final"})",
                     R"({"user":"b","window_start":16,"window_end":26,"n":1,"emit":"final"})",
                     R"({"user":"c","window_start":40,"window_end":50,"n":1,"emit":"final"})",
                 }));
    }

    // Windows fired by one watermark advance come out by (window_end, window_start, key), keys
    // compared as values (null < number < string).
    void firingOrderAcrossKeysAndEnds()
    {
        const Json params = {{"type", "tumbling"},
                             {"size_ms", 10},
                             {"key", {"user"}},
                             {"aggregates", {{{"op", "count"}, {"as", "n"}}}}};
        RunResult r = run({R"({"t":1,"user":"b"})", R"({"t":12,"user":"a"})",
                           R"({"t":5,"user":"a"})", R"({"t":25,"user":"c"})", R"({"t":3,"user":2})",
                           R"({"t":4})", R"({"t":6,"user":10})",
                           R"({"t":200,"user":"z"})"}, // W=99: fires [0,10), [10,20), [20,30)
                          params, 100);
        RUN_OK(r);
        QCOMPARE(r.out,
                 QStringList({
                     R"({"user":null,"window_start":0,"window_end":10,"n":1,"emit":"final"})",
                     R"({"user":2,"window_start":0,"window_end":10,"n":1,"emit":"final"})",
                     R"({"user":10,"window_start":0,"window_end":10,"n":1,"emit":"final"})",
                     R"({"user":"a","window_start":0,"window_end":10,"n":1,"emit":"final"})",
                     R"({"user":"b","window_start":0,"window_end":10,"n":1,"emit":"final"})",
                     R"({"user":"a","window_start":10,"window_end":20,"n":1,"emit":"final"})",
                     R"({"user":"c","window_start":20,"window_end":30,"n":1,"emit":"final"})",
                     R"({"user":"z","window_start":200,"window_end":210,"n":1,"emit":"final"})",
                 }));
    }

    // Nested key paths are kept nested in the output; 1 and 1.0 are one key.
    void nestedKeyPaths()
    {
        const Json params = {{"type", "tumbling"},
                             {"size_ms", 10},
                             {"key", {"user.id", "region"}},
                             {"aggregates", {{{"op", "count"}, {"as", "n"}}}}};
        RunResult r = run({R"({"t":1,"user":{"id":7,"name":"x"},"region":"eu"})",
                           R"({"t":2,"user":{"id":7.0,"name":"y"},"region":"eu"})",
                           R"({"t":3,"user":{"id":8},"region":"eu"})"},
                          params, 100);
        RUN_OK(r);
        QCOMPARE(
            r.out,
            QStringList({
                R"({"user":{"id":7},"region":"eu","window_start":0,"window_end":10,"n":2,"emit":"final"})",
                R"({"user":{"id":8},"region":"eu","window_start":0,"window_end":10,"n":1,"emit":"final"})",
            }));
    }

    // Sessions with allowed lateness: merging into an emitted session re-emits the merged
    // window as an update (at once when it is due, else when W reaches its new end).
    void sessionLateness()
    {
        const Json params = {{"type", "session"},
                             {"gap_ms", 10},
                             {"key", {"user"}},
                             {"allowed_lateness_ms", 50},
                             {"aggregates", {{{"op", "count"}, {"as", "n"}}}}};
        RunResult r = run({R"({"t":0,"user":"a"})",
                           R"({"t":30,"user":"b"})",    // W=29: a[0,10) final
                           R"({"t":10,"user":"a"})",    // touches: a[0,20) due -> update n=2
                           R"({"t":25,"user":"a"})",    // a[25,35) waits
                           R"({"t":15,"user":"a"})",    // bridges: a[0,35) n=4, not due yet
                           R"({"t":40,"user":"b"})",    // b[30,50); W=39: a[0,35) update
                           R"({"t":-100,"user":"c"})"}, // own window closed: too late
                          params, 0);
        RUN_OK(r);
        QCOMPARE(r.out,
                 QStringList({
                     R"({"user":"a","window_start":0,"window_end":10,"n":1,"emit":"final"})",
                     R"({"user":"a","window_start":0,"window_end":20,"n":2,"emit":"update"})",
                     R"({"user":"a","window_start":0,"window_end":35,"n":4,"emit":"update"})",
                     R"({"user":"b","window_start":30,"window_end":50,"n":2,"emit":"final"})",
                 }));
        QCOMPARE(
            r.late,
            QStringList({
                R"({"reason":"window_closed","node":"win","watermark":39,"record":{"t":-100,"user":"c"}})",
            }));
        QCOMPARE(r.win().stateEntries, 0);
    }

    // count / sum / min / max / avg with nulls, missing fields, int/double mixes and a
    // non-numeric value (ignored, counted as an error of the node).
    void aggregates()
    {
        const Json params = {{"type", "tumbling"},
                             {"size_ms", 10},
                             {"aggregates",
                              {{{"op", "count"}},
                               {{"op", "count"}, {"field", "v"}},
                               {{"op", "sum"}, {"field", "v"}},
                               {{"op", "min"}, {"field", "v"}},
                               {{"op", "max"}, {"field", "v"}},
                               {{"op", "avg"}, {"field", "v"}},
                               {{"op", "sum"}, {"field", "w"}, {"as", "sw"}},
                               {{"op", "sum"}, {"field", "x"}, {"as", "sx"}}}}};
        RunResult r = run({R"({"t":1,"v":1,"w":2})", R"({"t":2,"v":2.5,"w":3})",
                           R"({"t":3,"v":null,"w":5})", R"({"t":4,"w":1})",
                           R"({"t":5,"v":"abc","w":4})", R"({"t":11,"v":-3})"},
                          params, 1000);
        RUN_OK(r);
        QCOMPARE(
            r.out,
            QStringList({
                R"({"window_start":0,"window_end":10,"count":5,"count_v":3,"sum_v":3.5,"min_v":1,"max_v":2.5,"avg_v":1.75,"sw":15,"sx":null,"emit":"final"})",
                R"({"window_start":10,"window_end":20,"count":1,"count_v":1,"sum_v":-3,"min_v":-3,"max_v":-3,"avg_v":-3.0,"sw":null,"sx":null,"emit":"final"})",
            }));
        QCOMPARE(r.win().errors, 1);
    }

    // Doubles that hold integers still make the sum a double; min/max keep the winner's type.
    void sumTurnsDoubleMinMaxKeepType()
    {
        const Json params = {{"type", "tumbling"},
                             {"size_ms", 10},
                             {"aggregates",
                              {{{"op", "sum"}, {"field", "v"}, {"as", "s"}},
                               {{"op", "min"}, {"field", "v"}, {"as", "lo"}},
                               {{"op", "max"}, {"field", "v"}, {"as", "hi"}}}}};
        RunResult r
            = run({R"({"t":1,"v":2})", R"({"t":2,"v":1.0})", R"({"t":3,"v":5})"}, params, 1000);
        RUN_OK(r);
        QCOMPARE(r.out,
                 QStringList({
                     R"({"window_start":0,"window_end":10,"s":8.0,"lo":1.0,"hi":5,"emit":"final"})",
                 }));
    }

    // End of input fires everything, and metrics show the state gone.
    void endOfInputFlushesAndMetrics()
    {
        const Json params = {{"type", "tumbling"},
                             {"size_ms", 1000},
                             {"key", {"user"}},
                             {"allowed_lateness_ms", 5000},
                             {"aggregates", {{{"op", "count"}, {"as", "n"}}}}};
        std::vector<std::string> input;
        for (int i = 0; i < 30; ++i)
            input.push_back(R"({"t":)" + std::to_string(i * 100) + R"(,"user":"u)"
                            + std::to_string(i % 3) + R"("})");
        std::string tag, error;
        auto job = makeJob(input, params, 10000, tag, error);
        QVERIFY2(job, error.c_str());
        QCOMPARE(job->runFor(30), Job::Status::Running);
        job->publishMetrics();
        {
            const auto snap = job->snapshot();
            const auto *m = snap.node("win");
            QVERIFY(m);
            QCOMPARE(m->recordsIn, 30);
            QCOMPARE(m->recordsOut, 0);   // W = 2900 - 10000 - 1: nothing fired
            QCOMPARE(m->stateEntries, 9); // 3 windows x 3 users
            QCOMPARE(m->openWindows, 3);
            QVERIFY(m->stateBytes > 0);
        }
        QCOMPARE(job->run(), Job::Status::Finished);
        job->publishMetrics();
        const auto snap = job->snapshot();
        const auto *m = snap.node("win");
        QCOMPARE(m->recordsOut, 9);
        QCOMPARE(m->stateEntries, 0);
        QCOMPARE(m->openWindows, 0);
        const QStringList out = readLines(path("out_" + tag + ".jsonl"));
        QCOMPARE(out.size(), 9);
        QCOMPARE(
            out.front(),
            QString(R"({"user":"u0","window_start":0,"window_end":1000,"n":4,"emit":"final"})"));
        QCOMPARE(
            out.back(),
            QString(R"({"user":"u2","window_start":2000,"window_end":3000,"n":4,"emit":"final"})"));
    }

    // At parallelism 1 a tumbling window holds back records that only fold into a pane
    // (deferred_folds.hpp); nothing outside may see the panes behind them: metrics after every
    // record count every (window, key) the records so far made, and a snapshot taken between
    // any two records restores to the same output (snapshotRestoreRoundTrip below).
    void deferredFoldsAreNeverSeen()
    {
        const Json params = {{"type", "tumbling"},
                             {"size_ms", 50},
                             {"key", {"user"}},
                             {"aggregates", {{{"op", "count"}, {"as", "n"}}}}};
        std::vector<std::string> input;
        for (int i = 0; i < 300; ++i)
            input.push_back(R"({"t":)" + std::to_string(i) + R"(,"user":"u)"
                            + std::to_string((i * 7) % 23) + R"("})");
        // Records only, no watermarks between them (the runtime hands a window a run of
        // records before the watermark after them): nothing makes the window fold them in.
        auto events = windowEvents(input, 1000);
        auto h = windowHarness(params);
        std::set<std::pair<int, int>> seen; // (window, user)
        for (int i = 0; i < 300; ++i) {
            auto &line = events[static_cast<std::size_t>(i)];
            std::erase_if(line, [](const Emitted &e) { return e.type != Emitted::Type::Record; });
            QCOMPARE(line.size(), std::size_t(1));
            h->replay(line);
            seen.emplace(i / 50, (i * 7) % 23);
            QCOMPARE(h->metrics().recordsIn, i + 1);
            QCOMPARE(h->metrics().stateEntries, static_cast<std::int64_t>(seen.size()));
        }
        QCOMPARE(h->metrics().openWindows, 6);
        // A snapshot taken with records held back holds them: restored, the rest of the input
        // gives every window's full count.
        auto g = windowHarness(params);
        for (int i = 0; i < 203; ++i) // 203: neither a window's end nor a multiple of 16
            g->replay(events[static_cast<std::size_t>(i)]);
        const testing::OperatorSnapshot snap = g->snapshot();
        auto r = windowHarness(params);
        const std::string err = r->restore(snap);
        QVERIFY2(err.empty(), err.c_str());
        for (int i = 203; i < 300; ++i)
            r->replay(events[static_cast<std::size_t>(i)]);
        r->finish();
        h->finish();
        QCOMPARE(r->lines(), h->lines());
        QCOMPARE(h->lines().size(), std::size_t(6 * 23));
    }

    // Checkpoint round trip: state taken mid-run (including fired windows kept for lateness)
    // and restored into a fresh job over the rest of the input gives the same remaining output.
    void snapshotRestoreRoundTrip_data()
    {
        QTest::addColumn<QString>("params");
        QTest::newRow("tumbling+lateness")
            << R"({"type":"tumbling","size_ms":10,"key":["user"],"allowed_lateness_ms":30,
                  "aggregates":[{"op":"count","as":"n"},{"op":"sum","field":"v","as":"s"},
                                {"op":"max","field":"v","as":"hi"}]})";
        QTest::newRow("sliding") << R"({"type":"sliding","size_ms":20,"slide_ms":5,"key":["user"],
                  "aggregates":[{"op":"avg","field":"v","as":"a"}]})";
        QTest::newRow("session+lateness")
            << R"({"type":"session","gap_ms":7,"key":["user"],"allowed_lateness_ms":15,
                  "aggregates":[{"op":"count","as":"n"},{"op":"min","field":"v","as":"lo"}]})";
    }
    void snapshotRestoreRoundTrip()
    {
        QFETCH(QString, params);
        const Json windowParams = Json::parse(params.toStdString());
        // Deterministic disorder: times mostly rising, some records behind the watermark.
        std::vector<std::string> input;
        std::uint32_t x = 12345;
        for (int i = 0; i < 400; ++i) {
            x = x * 1103515245u + 12345u;
            // Up to 25 ms out of order, and one record in ~7 a full 60 ms more (late for L
            // of 15 or 30 ms, or an update within it).
            const int jitter = static_cast<int>((x >> 16) % 25) + ((x >> 20) % 7 == 0 ? 60 : 0);
            const int t = i * 3 - jitter;
            input.push_back(R"({"t":)" + std::to_string(t) + R"(,"user":"u)"
                            + std::to_string((x >> 8) % 5) + R"(","v":)" + std::to_string(i % 17)
                            + "}");
        }
        const int split = 173;
        const auto events = windowEvents(input, 5);

        // A: the whole input through one window, state snapshotted after `split` records.
        auto a = windowHarness(windowParams);
        for (int i = 0; i < split; ++i)
            a->replay(events[static_cast<std::size_t>(i)]);
        QCOMPARE(a->metrics().recordsIn, split);
        const std::size_t outBefore = a->lines().size();
        const std::size_t lateBefore = a->lines(Emitted::Type::Late).size();
        const std::size_t wmBefore = a->watermarks().size();
        QVERIFY(a->metrics().stateEntries > 0);
        const testing::OperatorSnapshot snap = a->snapshot();
        for (std::size_t i = split; i < events.size(); ++i)
            a->replay(events[i]);
        a->finish();

        // B: a fresh window over the rest, the state restored first (kind, fingerprint and
        // every byte read are checked).
        auto b = windowHarness(windowParams);
        const std::string err = b->restore(snap);
        QVERIFY2(err.empty(), err.c_str());
        for (std::size_t i = split; i < events.size(); ++i)
            b->replay(events[i]);
        b->finish();

        const auto outA = a->lines(), lateA = a->lines(Emitted::Type::Late);
        QVERIFY(outA.size() > outBefore);
        QCOMPARE(b->lines(), std::vector<std::string>(outA.begin() + outBefore, outA.end()));
        QCOMPARE(b->lines(Emitted::Type::Late),
                 std::vector<std::string>(lateA.begin() + lateBefore, lateA.end()));
        const auto wA = a->watermarks();
        QCOMPARE(b->watermarks(), std::vector<Timestamp>(wA.begin() + wmBefore, wA.end()));
        QVERIFY(a->metrics().late > 0); // the input does exercise lateness
        if (windowParams.value("allowed_lateness_ms", 0) > 0)
            QVERIFY(std::count_if(outA.begin(), outA.end(),
                                  [](const std::string &l) {
                                      return l.find(R"("emit":"update")") != std::string::npos;
                                  })
                    > 0); // and updates
    }

    // --- settings.state "rocksdb" ---

    // Many keys, times mostly rising with some disorder and some records late.
    static std::vector<std::string> manyKeysInput(int records, int keys)
    {
        std::vector<std::string> input;
        std::uint32_t x = 987654321u;
        for (int i = 0; i < records; ++i) {
            x = x * 1103515245u + 12345u;
            const int jitter = static_cast<int>((x >> 16) % 40) + ((x >> 20) % 11 == 0 ? 150 : 0);
            input.push_back(R"({"t":)" + std::to_string(i - jitter) + R"(,"user":"u)"
                            + std::to_string((x >> 5) % static_cast<std::uint32_t>(keys))
                            + R"(","v":)" + std::to_string(i % 23) + "}");
        }
        return input;
    }

    static std::uint64_t sstBytes(const std::string &dir)
    {
        std::uint64_t total = 0;
        std::error_code ec;
        for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
             !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec))
            if (it->path().extension() == ".sst")
                total += it->file_size(ec);
        return total;
    }

    static state::SpillStats spillStats(OperatorHarness &h)
    {
        auto *op = dynamic_cast<state::StatefulOperator *>(&h.op());
        if (op == nullptr)
            qFatal("the window operator does not implement StatefulOperator");
        return op->spillStats();
    }

    // "node `win`: P spill pass(es), up to N state entries on disk, R read back": {N, R}.
    static std::pair<std::int64_t, std::int64_t> spillSummary(const std::vector<std::string> &log)
    {
        for (const auto &l : log)
            if (auto at = l.find(" spill pass(es), up to ");
                l.rfind("node `win`: ", 0) == 0 && at != std::string::npos) {
                std::size_t end = 0;
                const std::int64_t peak = std::stoll(l.substr(at + 23), &end);
                const auto back = l.find(", ", at + 23 + end);
                return {peak, std::stoll(l.substr(back + 2))};
            }
        return {-1, -1};
    }

    void spillMatchesMemory_data()
    {
        QTest::addColumn<QString>("params");
        QTest::newRow("tumbling+lateness")
            << R"({"type":"tumbling","size_ms":4000,"key":["user"],"allowed_lateness_ms":100,
                  "aggregates":[{"op":"count","as":"n"},{"op":"sum","field":"v","as":"s"},
                                {"op":"avg","field":"v","as":"a"}]})";
        QTest::newRow("sliding") << R"({"type":"sliding","size_ms":3000,"slide_ms":1000,
                  "key":["user"],"aggregates":[{"op":"max","field":"v","as":"hi"}]})";
        QTest::newRow("session+lateness")
            << R"({"type":"session","gap_ms":900,"key":["user"],"allowed_lateness_ms":100,
                  "aggregates":[{"op":"count","as":"n"},{"op":"min","field":"v","as":"lo"}]})";
    }

    // A 20 KB budget forces most keys to disk; the output (results and late records) must be
    // exactly the memory run's, and the spilled state must really be in RocksDB files.
    void spillMatchesMemory()
    {
        QFETCH(QString, params);
        const Json windowParams = Json::parse(params.toStdString());
        const auto input = manyKeysInput(24000, 6000);

        const RunResult mem = run(input, windowParams, 30);
        QVERIFY2(mem.status == Job::Status::Finished, mem.error.c_str());
        QVERIFY(mem.out.size() > 6000);
        if (windowParams["type"] == "tumbling")
            QVERIFY(mem.late.size() > 0); // the input does exercise lateness

        const Json settings = {{"state", "rocksdb"}, {"state_memory_mb", 0.02}};
        std::string tag, error;
        std::vector<std::string> log;
        auto job = makeJob(input, windowParams, 30, tag, error, settings, &log);
        QVERIFY2(job, error.c_str());
        // The store's folder, as the start-up log line names it ("... under <folder>").
        std::string workDir;
        for (const auto &l : log)
            if (auto at = l.find(" under "); at != std::string::npos)
                workDir = l.substr(at + 7) + "/win";
        QVERIFY2(workDir.find("tideline-state-" + std::to_string(::getpid()) + "-")
                     != std::string::npos,
                 workDir.c_str());
        QVERIFY2(std::filesystem::is_directory(workDir), workDir.c_str());
        // Part way through: entries are on disk, in SST files of the node's store.
        QCOMPARE(job->runFor(16000), Job::Status::Running);
        job->publishMetrics();
        const std::int64_t midSpilled = job->snapshot().node("win")->stateSpilled;
        QVERIFY2(midSpilled > 200, qPrintable(QString::number(midSpilled)));
        QVERIFY2(sstBytes(workDir) > 0, "no SST file in the state store");
        QCOMPARE(job->run(), Job::Status::Finished);
        // The end-of-run line: the peak on disk and what was read back.
        const auto [peak, readBacks] = spillSummary(log);
        QVERIFY2(peak >= midSpilled && readBacks > 0,
                 qPrintable(QString("peak %1, read back %2").arg(peak).arg(readBacks)));

        // The same window and budget in a harness, stopped at the same record: the operator's
        // own figures (spilled vs in memory) agree with the job's metric, and so does its output.
        const auto events = windowEvents(input, 30);
        auto h = windowHarness(windowParams, 0.02);
        for (std::size_t i = 0; i < 16000; ++i)
            h->replay(events[i]);
        const state::SpillStats mid = spillStats(*h);
        QCOMPARE(mid.entriesSpilled, midSpilled);
        QCOMPARE(h->metrics().stateSpilled, midSpilled);
        QVERIFY(mid.entriesInMemory < mid.entriesSpilled);
        for (std::size_t i = 16000; i < events.size(); ++i)
            h->replay(events[i]);
        h->finish();
        const state::SpillStats end = spillStats(*h);
        QCOMPARE(end.peakEntriesSpilled, peak);
        QCOMPARE(end.readBacks, readBacks);
        QCOMPARE(testing::toQStringList(h->lines()), mem.out);

        const QStringList out = readLines(path("out_" + tag + ".jsonl"));
        const QStringList late = readLines(path("late_" + tag + ".jsonl"));
        QCOMPARE(out.size(), mem.out.size());
        QCOMPARE(out, mem.out);
        QCOMPARE(late, mem.late);
        job.reset();
        QVERIFY2(!std::filesystem::exists(workDir), "the state store folder was not removed");
    }

    // A snapshot taken while most keys are spilled holds them (read through a RocksDB snapshot
    // by the deferred part), and restores into a memory-mode job with the same remaining output.
    void spilledStateInSnapshot_data()
    {
        spillMatchesMemory_data();
    }
    void spilledStateInSnapshot()
    {
        QFETCH(QString, params);
        const Json windowParams = Json::parse(params.toStdString());
        const auto input = manyKeysInput(12000, 3000);
        const int split = 7000;
        const Json settings = {{"state", "rocksdb"}, {"state_memory_mb", 0.02}};

        const auto events = windowEvents(input, 30);

        auto a = windowHarness(windowParams, 0.02);
        for (int i = 0; i < split; ++i)
            a->replay(events[static_cast<std::size_t>(i)]);
        const std::size_t outBefore = a->lines().size();
        const std::size_t lateBefore = a->lines(Emitted::Type::Late).size();
        QVERIFY(spillStats(*a).entriesSpilled > 500);
        StateWriter w;
        testing::OperatorSnapshot snap = a->snapshotInto(w);
        QVERIFY(w.hasDeferred());
        for (int i = split; i < split + 1000; ++i) // the loop goes on meanwhile
            a->replay(events[static_cast<std::size_t>(i)]);
        snap.state = w.take();
        for (std::size_t i = split + 1000; i < events.size(); ++i)
            a->replay(events[i]);
        a->finish();
        const auto outA = a->lines(), lateA = a->lines(Emitted::Type::Late);

        auto b = windowHarness(windowParams); // memory mode
        const std::string err = b->restore(snap);
        QVERIFY2(err.empty(), err.c_str());
        for (std::size_t i = split; i < events.size(); ++i)
            b->replay(events[i]);
        b->finish();
        QCOMPARE(b->lines(), std::vector<std::string>(outA.begin() + outBefore, outA.end()));
        QCOMPARE(b->lines(Emitted::Type::Late),
                 std::vector<std::string>(lateA.begin() + lateBefore, lateA.end()));
        // And the whole spilled run equals the job in memory mode.
        const RunResult mem = run(input, windowParams, 30);
        RUN_OK(mem);
        QCOMPARE(testing::toQStringList(outA), mem.out);
    }

    // Checkpoints written before the compact state format (version 1: fixed-width keys and
    // accumulators) still restore: a hand-made version-1 pane continues with new records.
    void restoresStateVersion1()
    {
        const Json params = Json::parse(R"({"type":"tumbling","size_ms":10,"key":["user"],
            "aggregates":[{"op":"count","as":"n"},{"op":"sum","field":"v","as":"s"}]})");
        auto h = windowHarness(params);
        Operator &op = h->op();
        Record keyRecord;
        keyRecord.append("user", Value::string("u1"));
        std::string key;
        window::KeyCodec codec({"user"});
        codec.encode(keyRecord, key);
        StateWriter w;
        w.u8(1); // version 1
        w.str(op.stateFingerprint());
        w.i64(kMinTime);
        w.u64(1); // one pane [0, 10), not fired, one key
        w.i64(0);
        w.i64(10);
        w.u8(0);
        w.u64(1);
        w.str(key);
        // count: n=3; sum: n=3, a double part 2.5 (fixed width: n, i, d, dbl flag).
        w.i64(3), w.i64(0), w.f64(0), w.u8(0);
        w.i64(3), w.i64(0), w.f64(2.5), w.u8(1);
        testing::OperatorSnapshot snap;
        snap.kind = "window";
        snap.fingerprint = op.stateFingerprint();
        snap.state = w.take();
        snap.inputWatermarks = {kMinTime};
        snap.inputIdle = {0};
        const std::string err = h->restore(snap); // every byte read
        QVERIFY2(err.empty(), err.c_str());
        for (const auto &e :
             windowEvents({R"({"t":5,"user":"u1","v":1})", R"({"t":100,"user":"u1","v":1})"}, 0))
            h->replay(e);
        h->finish();
        const QStringList out = testing::toQStringList(h->lines());
        QCOMPARE(out.size(), 2);
        QCOMPARE(out[0], QString(R"({"user":"u1","window_start":0,"window_end":10,"n":4,"s":3.5,)"
                                 R"("emit":"final"})"));
    }

    // State from a differently shaped window is refused with a message naming the node.
    void restoreRefusesIncompatibleState()
    {
        const Json a = {{"type", "tumbling"}, {"size_ms", 10}, {"aggregates", {{{"op", "count"}}}}};
        const Json b = {{"type", "tumbling"}, {"size_ms", 20}, {"aggregates", {{{"op", "count"}}}}};
        auto ha = windowHarness(a);
        ha->replay(windowEvents({R"({"t":1})"}, 100).front());
        const testing::OperatorSnapshot snap = ha->snapshot();
        auto hb = windowHarness(b);
        QVERIFY(hb->op().stateFingerprint() != ha->op().stateFingerprint());
        // Refused before the operator sees it, as a checkpoint restore refuses it...
        const std::string err = hb->restore(snap);
        QVERIFY2(err.find("node `win`: incompatible") == 0, err.c_str());
        // ...and by the operator itself when handed the bytes anyway.
        StateReader reader(snap.state);
        try {
            hb->op().restoreState(reader);
            QFAIL("restoreState accepted state of a 10 ms window into a 20 ms window");
        } catch (const ConfigError &e) {
            QVERIFY2(std::string(e.what()).find("`win`") != std::string::npos, e.what());
        }
    }

    // --- validation ---

    void validationAcceptsGoodParams()
    {
        const auto ds = windowDiagnostics(
            {{"type", "sliding"},
             {"size_ms", 60000},
             {"slide_ms", 7000},
             {"key", {"user.id"}},
             {"aggregates", {{{"op", "count"}}, {{"op", "avg"}, {"field", "value"}}}}});
        // Only graph-level hints (e.g. `late` not connected) may remain: no errors, and no
        // warning about a param.
        for (const auto &d : ds)
            QVERIFY2(!d.isError() && d.param.empty(), qPrintable(diagnosticsText(ds)));
    }

    void validationSizesPerType()
    {
        auto ds = windowDiagnostics({{"type", "tumbling"}, {"aggregates", {{{"op", "count"}}}}});
        QVERIFY2(findDiag(ds, "size_ms", "required"), qPrintable(diagnosticsText(ds)));
        QCOMPARE(ds.front().path, std::string("nodes[3].params.size_ms"));

        ds = windowDiagnostics(
            {{"type", "sliding"}, {"size_ms", 10}, {"aggregates", {{{"op", "count"}}}}});
        QVERIFY2(findDiag(ds, "slide_ms", "required"), qPrintable(diagnosticsText(ds)));

        ds = windowDiagnostics({{"type", "sliding"},
                                {"size_ms", 10},
                                {"slide_ms", 20},
                                {"aggregates", {{{"op", "count"}}}}});
        QVERIFY2(findDiag(ds, "slide_ms", "slide_ms <= size_ms"), qPrintable(diagnosticsText(ds)));

        ds = windowDiagnostics({{"type", "session"}, {"aggregates", {{{"op", "count"}}}}});
        QVERIFY2(findDiag(ds, "gap_ms", "required"), qPrintable(diagnosticsText(ds)));

        ds = windowDiagnostics({{"type", "session"},
                                {"gap_ms", 5},
                                {"size_ms", 10},
                                {"aggregates", {{{"op", "count"}}}}});
        const Diagnostic *d = findDiag(ds, "size_ms", "ignored");
        QVERIFY2(d && !d->isError(), qPrintable(diagnosticsText(ds)));
    }

    // The fused path folds each record's aggregate inputs, read on the parsing thread
    // (AggInputReader), instead of the record (Aggregates::fold): every op on numbers, text,
    // booleans, nulls, nested objects, missing and nested fields, and an integer sum that
    // overflows into a double, gives the states add() gives, and the same ignored counts.
    void foldOfInputsIsAdd()
    {
        std::vector<window::AggSpec> specs;
        for (const char *field : {"v", "s", "o", "m", "o.x"})
            for (auto op : {window::AggOp::Count, window::AggOp::Sum, window::AggOp::Min,
                            window::AggOp::Max, window::AggOp::Avg})
                specs.push_back({op, field, window::defaultAggName(op, field) + "_"});
        specs.push_back({window::AggOp::Count, "", "n"});
        const char *lines[] = {
            R"({"v": 3, "s": "a", "o": {"x": 1}})",
            R"({"v": -2.5, "s": null, "o": {"x": "b"}})",
            R"({"v": null, "s": true, "o": 7})",
            R"({"v": 9223372036854775807, "s": 1, "o": null})",
            R"({"v": 9223372036854775807, "s": "2"})",
            R"({"v": "4", "o": {"x": 2.5, "y": [1]}})",
            R"({})",
            R"({"v": 1e308, "m": null})",
            R"({"v": -7, "o": {"y": 1}})",
        };
        window::Aggregates byRecord(specs), byInputs(specs);
        window::AggInputReader reader(specs);
        std::vector<window::AggState> a(specs.size()), b(specs.size());
        std::vector<window::AggInput> in(specs.size());
        tideline::RecordParser parser;
        for (const char *line : lines) {
            tideline::Record r;
            std::string error;
            QVERIFY2(parser.parse(line, r, error), error.c_str());
            const int ignoredA = byRecord.add(r, a.data());
            reader.readAll(r, in.data());
            const int ignoredB = byInputs.fold(in.data(), b.data());
            QCOMPARE(ignoredB, ignoredA);
            for (std::size_t k = 0; k < specs.size(); ++k) {
                QVERIFY2(std::memcmp(&a[k], &b[k], sizeof a[k]) == 0,
                         (specs[k].as + " after " + line).c_str());
            }
        }
        tideline::Record outA, outB;
        byRecord.writeTo(a.data(), outA);
        byInputs.writeTo(b.data(), outB);
        QCOMPARE(tideline::toJson(outB), tideline::toJson(outA));
    }

    void validationAggregates()
    {
        auto ds = windowDiagnostics(
            {{"type", "tumbling"}, {"size_ms", 10}, {"aggregates", {{{"op", "sum"}}}}});
        QVERIFY2(findDiag(ds, "aggregates[0].field", "required"), qPrintable(diagnosticsText(ds)));

        ds = windowDiagnostics({{"type", "tumbling"},
                                {"size_ms", 10},
                                {"aggregates", {{{"op", "count"}}, {{"op", "count"}}}}});
        QVERIFY2(findDiag(ds, "aggregates[1].as", "already used by aggregates[0]"),
                 qPrintable(diagnosticsText(ds)));

        ds = windowDiagnostics({{"type", "tumbling"},
                                {"size_ms", 10},
                                {"aggregates",
                                 {{{"op", "max"}, {"field", "v"}},
                                  {{"op", "min"}, {"field", "v"}, {"as", "max_v"}}}}});
        QVERIFY2(findDiag(ds, "aggregates[1].as", "\"max_v\""), qPrintable(diagnosticsText(ds)));

        ds = windowDiagnostics({{"type", "tumbling"},
                                {"size_ms", 10},
                                {"key", {"user"}},
                                {"aggregates", {{{"op", "count"}, {"as", "user"}}}}});
        QVERIFY2(findDiag(ds, "aggregates[0].as", "key field \"user\""),
                 qPrintable(diagnosticsText(ds)));

        ds = windowDiagnostics({{"type", "tumbling"},
                                {"size_ms", 10},
                                {"aggregates", {{{"op", "count"}, {"as", "window_end"}}}}});
        QVERIFY2(findDiag(ds, "aggregates[0].as", "\"window_end\""),
                 qPrintable(diagnosticsText(ds)));

        ds = windowDiagnostics({{"type", "tumbling"},
                                {"size_ms", 10},
                                {"key", {"emit"}},
                                {"aggregates", {{{"op", "count"}}}}});
        QVERIFY2(findDiag(ds, "key[0]", "\"emit\""), qPrintable(diagnosticsText(ds)));

        ds = windowDiagnostics(
            {{"type", "tumbling"}, {"size_ms", 10}, {"aggregates", Json::array()}});
        QVERIFY2(findDiag(ds, "aggregates", "at least one"), qPrintable(diagnosticsText(ds)));
    }
};

QTEST_GUILESS_MAIN(WindowTest)
#include "test_window.moc"
