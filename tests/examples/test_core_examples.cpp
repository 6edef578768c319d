// The teaching examples in pipelines/ run end to end and produce exactly what their
// descriptions promise. Each runs on a copy in a temp folder (outputs are relative).

#include "test_support.hpp"

#include <QtTest>

#include <map>

using namespace tideline;
using nlohmann::json;
using testing::TempDir;

namespace {

constexpr std::int64_t kBase = 1714557600000; // 2024-05-01T10:00:00Z

testing::RunResult runExample(const std::string &name, TempDir &dir)
{
    std::filesystem::copy(TIDELINE_SOURCE_DIR "/pipelines/" + name, dir.path,
                          std::filesystem::copy_options::recursive);
    std::filesystem::remove_all(dir.path / "out");
    return testing::runPipeline(testing::readFile(dir.file("pipeline.json")), dir.path.string());
}

std::vector<json> readJson(const std::string &path)
{
    std::vector<json> v;
    for (const auto &l : testing::readLines(path))
        v.push_back(json::parse(l));
    return v;
}

json windowRow(const char *keyName,
               const char *key,
               std::int64_t start,
               std::int64_t end,
               json aggregates,
               const char *emitKind = "final")
{
    json j = {{keyName, key}, {"window_start", kBase + start}, {"window_end", kBase + end}};
    for (auto it = aggregates.begin(); it != aggregates.end(); ++it)
        j[it.key()] = it.value();
    j["emit"] = emitKind;
    return j;
}

} // namespace

class TestCoreExamples : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void clicksPerUser()
    {
        TempDir dir;
        auto r = runExample("clicks-per-user", dir);
        QVERIFY2(r.valid, testing::diagnosticsText(r.diagnostics).c_str());
        QCOMPARE(r.status, Job::Status::Finished);
        std::vector<json> expected{
            // [10:00, 10:01) fires when bob's 10:01:20 click moves W to 10:01:09.999
            windowRow("user", "alice", 0, 60000, {{"clicks", 4}}),
            windowRow("user", "bob", 0, 60000, {{"clicks", 1}}),
            windowRow("user", "carol", 0, 60000, {{"clicks", 1}}),
            windowRow("user", "alice", 60000, 120000, {{"clicks", 1}}),
            windowRow("user", "bob", 60000, 120000, {{"clicks", 2}}),
            windowRow("user", "carol", 60000, 120000, {{"clicks", 1}}),
            windowRow("user", "alice", 120000, 180000, {{"clicks", 1}}),
            windowRow("user", "bob", 120000, 180000, {{"clicks", 1}}),
            windowRow("user", "carol", 120000, 180000, {{"clicks", 1}}),
            // the end of the file (W = +inf) fires the last window
            windowRow("user", "carol", 180000, 240000, {{"clicks", 1}}),
        };
        QCOMPARE(readJson(dir.file("out/clicks-per-user.jsonl")), expected);
        auto rejected = readJson(dir.file("out/rejected.jsonl"));
        QCOMPARE(rejected.size(), std::size_t(3));
        QCOMPARE(rejected[0]["node"], json("event_time")); // "yesterday at noon"
        QCOMPARE(rejected[0]["record"]["user"], json("dave"));
        QCOMPARE(rejected[1]["reason"],
                 json("window_closed")); // bob's 10:00:40 after [10:00,10:01) fired
        QCOMPARE(rejected[1]["node"], json("per_user"));
        QCOMPARE(rejected[1]["watermark"], json(kBase + 111999));
        QCOMPARE(rejected[1]["record"]["ts"], json("2024-05-01T10:00:40Z"));
        QCOMPARE(rejected[2]["node"], json("clicks"));
        QCOMPARE(rejected[2]["where"], json("clicks.jsonl:16"));
        QCOMPARE(r.metrics.node("per_user")->late, std::int64_t(1));
        QCOMPARE(r.metrics.node("per_user")->stateEntries, std::int64_t(0));
    }

    void sessionsWithLateData()
    {
        TempDir dir;
        auto r = runExample("sessions-late-data", dir);
        QVERIFY2(r.valid, testing::diagnosticsText(r.diagnostics).c_str());
        QCOMPARE(r.status, Job::Status::Finished);
        auto agg = [](int events, int spent) {
            return json{{"events", events}, {"spent", spent}};
        };
        std::vector<json> expected{
            windowRow("user", "bob", 2000, 32000, agg(1, 3)),
            // bob's 00:05 event arrives after that session fired, within the 20 s lateness:
            // the session grows to [00:02, 00:35) and is re-emitted as an update
            windowRow("user", "bob", 2000, 35000, agg(2, 13), "update"),
            windowRow("user", "ann", 0, 55000, agg(3, 13)),
            windowRow("user", "bob", 40000, 70000, agg(1, 2)),
            // ann's 00:58 arrives late but bridges into the open [01:10, 01:40) session
            windowRow("user", "ann", 58000, 100000, agg(2, 13)),
            windowRow("user", "bob", 95000, 125000, agg(1, 6)),
            // ann's 01:40 session touches [02:10, 02:40) and merges with it
            windowRow("user", "ann", 100000, 160000, agg(2, 5)),
            windowRow("user", "carl", 160000, 190000, agg(1, 8)),
        };
        QCOMPARE(readJson(dir.file("out/sessions.jsonl")), expected);
        auto dead = readJson(dir.file("out/dead-letter.jsonl"));
        QCOMPARE(dead.size(), std::size_t(4));
        QCOMPARE(dead[0]["record"]["t"], json(kBase + 50000));
        QCOMPARE(dead[0]["reason"], json("window_closed"));
        QCOMPARE(dead[1]["record"]["t"], json(kBase + 97000));
        QCOMPARE(dead[2]["record"]["t"], json(kBase + 39000));
        QCOMPARE(dead[3]["node"], json("event_time"));
        QCOMPARE(dead[3]["record"]["user"], json("dora"));
        QCOMPARE(r.metrics.node("sessions")->late, std::int64_t(3));
        QCOMPARE(r.metrics.node("sessions")->stateEntries, std::int64_t(0));
    }

    void slidingAverageMatchesAPlainComputation()
    {
        TempDir dir;
        auto r = runExample("sliding-average", dir);
        QVERIFY2(r.valid, testing::diagnosticsText(r.diagnostics).c_str());
        QCOMPARE(r.status, Job::Status::Finished);
        // The same generator params, written out raw, give the events to check against.
        json spec = json::parse(testing::readFile(dir.file("pipeline.json")));
        json gen = spec["nodes"][0]["params"];
        auto raw = testing::runPipeline(R"({"format":"tideline/1","nodes":[
            {"id":"g","kind":"source.generator","params":)"
                                            + gen.dump() + R"(},
            {"id":"o","kind":"sink.file","params":{"path":"raw.jsonl"}}],"edges":[{"from":"g.out","to":"o.in"}]})",
                                        dir.path.string());
        QCOMPARE(raw.status, Job::Status::Finished);
        struct Acc
        {
            long long count = 0, sum = 0, max = 0;
        };
        std::map<std::tuple<long long, long long, long long>, Acc> windows; // (end, start, key)
        for (const auto &e : readJson(dir.file("raw.jsonl"))) {
            long long t = e["event_time"], key = e["user_id"], v = e["value"];
            long long last = t - (((t % 2000) + 2000) % 2000);
            for (long long start = last; start > t - 10000; start -= 2000) {
                Acc &a = windows[{start + 10000, start, key}];
                a.count++;
                a.sum += v;
                a.max = std::max(a.max, v);
            }
        }
        auto out = readJson(dir.file("out/moving-average.jsonl"));
        QCOMPARE(out.size(), windows.size());
        std::size_t i = 0;
        for (const auto &[k, a] : windows) {
            const json &row = out[i++];
            QCOMPARE(row["window_end"].get<long long>(), std::get<0>(k));
            QCOMPARE(row["window_start"].get<long long>(), std::get<1>(k));
            QCOMPARE(row["user_id"].get<long long>(), std::get<2>(k));
            QCOMPARE(row["readings"].get<long long>(), a.count);
            QCOMPARE(row["max_value"].get<long long>(), a.max);
            QVERIFY(std::abs(row["avg_value"].get<double>() - double(a.sum) / double(a.count))
                    < 1e-9);
            QCOMPARE(row["emit"], json("final"));
        }
        QCOMPARE(r.metrics.node("moving_avg")->late, std::int64_t(0)); // delay <= out-of-orderness
        QCOMPARE(testing::readLines(dir.file("out/late.jsonl")).size(), std::size_t(0));
    }
};

QTEST_APPLESS_MAIN(TestCoreExamples)
#include "test_core_examples.moc"
