// Sources: the generator's determinism and disorder model, file sources (jsonl, csv) and
// their handling of bad lines.

#include "test_support.hpp"

#include <QtTest>

#include <map>
#include <set>

using namespace tideline;
using testing::TempDir;

namespace {

std::string generatorToFile(const std::string &genParams)
{
    return R"({"format":"tideline/1","nodes":[
      {"id":"g","kind":"source.generator","params":)"
           + genParams + R"(},
      {"id":"o","kind":"sink.file","params":{"path":"out.jsonl"}}],
      "edges":[{"from":"g.out","to":"o.in"}]})";
}

} // namespace

class TestSources : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void generatorIsDeterministicPerSeed()
    {
        TempDir dir;
        const std::string params = R"({"count":2000,"seed":42,"keys":50,"partitions":3,
            "disorder":{"max_delay_ms":500,"late_fraction":0.05,"late_by_ms":5000,"duplicate_fraction":0.02}})";
        auto r1 = testing::runPipeline(generatorToFile(params), dir.path);
        QCOMPARE(r1.status, Job::Status::Finished);
        std::string a = testing::readFile(dir.file("out.jsonl"));
        testing::runPipeline(generatorToFile(params), dir.path);
        QCOMPARE(testing::readFile(dir.file("out.jsonl")), a); // byte-identical
        std::string other = params;
        other.replace(other.find("42"), 2, "43");
        testing::runPipeline(generatorToFile(other), dir.path);
        QVERIFY(testing::readFile(dir.file("out.jsonl")) != a);
    }

    void generatorDisorderDuplicatesAndPartitions()
    {
        TempDir dir;
        auto r = testing::runPipeline(
            generatorToFile(R"({"count":5000,"seed":1,"keys":10,"rate_per_s":100,"partitions":4,
            "disorder":{"max_delay_ms":2000,"late_fraction":0.1,"late_by_ms":30000,"duplicate_fraction":0.05,"idle_partitions":1}})"),
            dir.path);
        QCOMPARE(r.status, Job::Status::Finished);
        auto lines = testing::readLines(dir.file("out.jsonl"));
        std::map<long long, std::vector<std::string>> byId;
        long long inversions = 0, maxSeen = 0, maxLag = 0;
        std::set<long long> partitions, users;
        for (const auto &l : lines) {
            auto j = nlohmann::json::parse(l);
            long long t = j["event_time"];
            if (t < maxSeen) {
                ++inversions;
                maxLag = std::max(maxLag, maxSeen - t);
            }
            maxSeen = std::max(maxSeen, t);
            byId[j["event_id"]].push_back(l);
            partitions.insert(j["partition"].get<long long>());
            users.insert(j["user_id"].get<long long>());
        }
        QCOMPARE(byId.size(), std::size_t(5000)); // every event at least once
        std::size_t dups = lines.size() - byId.size();
        QVERIFY2(dups > 150 && dups < 350, std::to_string(dups).c_str()); // ~5 %
        for (const auto &[id, copies] : byId)
            for (const auto &c : copies)
                QCOMPARE(c, copies.front()); // a duplicate repeats the event exactly
        QVERIFY(inversions > 1000);          // disordered
        QVERIFY(maxLag >= 25000);            // and some events are very late
        QCOMPARE(partitions, (std::set<long long>{0, 1, 2})); // partition 3 is idle
        QCOMPARE(users.size(), std::size_t(10));
        QCOMPARE(r.metrics.node("g")->recordsOut, static_cast<std::int64_t>(lines.size()));
    }

    void fileSourceJsonlWithBadLines()
    {
        TempDir dir;
        std::string big = "{\"a\":\"" + std::string(10u << 20, 'x') + "\"}";
        testing::writeFile(dir.file("in.jsonl"),
                           "{\"a\":1}\n\n   \n[1,2]\n" + big + "\n{\"a\":2}\n{\"a\":\n{\"a\":3}");
        auto r = testing::runPipeline(R"({"format":"tideline/1","nodes":[
            {"id":"src","kind":"source.file","params":{"path":"in.jsonl"}},
            {"id":"o","kind":"sink.file","params":{"path":"out.jsonl"}},
            {"id":"e","kind":"sink.file","params":{"path":"err.jsonl"}}],
            "edges":[{"from":"src.out","to":"o.in"},{"from":"src.errors","to":"e.in"}]})",
                                      dir.path);
        QCOMPARE(r.status, Job::Status::Finished);
        QCOMPARE(testing::readLines(dir.file("out.jsonl")),
                 (std::vector<std::string>{R"({"a":1})", R"({"a":2})", R"({"a":3})"}));
        auto errs = testing::readLines(dir.file("err.jsonl"));
        QCOMPARE(errs.size(), std::size_t(3));
        auto e0 = nlohmann::json::parse(errs[0]);
        QCOMPARE(e0["reason"].get<std::string>(),
                 std::string("not a JSON object (the line is an array), at column 1"));
        QCOMPARE(e0["where"].get<std::string>(), std::string("in.jsonl:4"));
        QCOMPARE(e0["raw"].get<std::string>(), std::string("[1,2]"));
        auto e1 = nlohmann::json::parse(errs[1]);
        QCOMPARE(e1["reason"].get<std::string>(), std::string("record_too_large"));
        QCOMPARE(e1["raw_bytes"].is_null(), true); // raw keeps only the first 4 KiB
        QCOMPARE(e1["raw"].get<std::string>().size(), std::size_t(4096));
        QVERIFY(e1["where"].get<std::string>().find("in.jsonl:5") == 0);
        QCOMPARE(nlohmann::json::parse(errs[2])["where"].get<std::string>(),
                 std::string("in.jsonl:7"));
        QCOMPARE(r.metrics.node("src")->errors, std::int64_t(3));
        QCOMPARE(r.metrics.node("src")->recordsOut, std::int64_t(3));
    }

    void fileSourceCsv()
    {
        TempDir dir;
        testing::writeFile(dir.file("in.csv"),
                           "user,amount,note\nann,12,\"a, b\"\nbob,oops,x\nbad line\n");
        auto r = testing::runPipeline(R"({"format":"tideline/1","nodes":[
            {"id":"src","kind":"source.file","params":{"path":"in.csv","format":"csv"}},
            {"id":"o","kind":"sink.file","params":{"path":"out.jsonl"}}],
            "edges":[{"from":"src.out","to":"o.in"}]})",
                                      dir.path);
        QCOMPARE(r.status, Job::Status::Finished);
        QCOMPARE(testing::readLines(dir.file("out.jsonl")),
                 (std::vector<std::string>{R"({"user":"ann","amount":12,"note":"a, b"})",
                                           R"({"user":"bob","amount":"oops","note":"x"})"}));
        QCOMPARE(r.metrics.node("src")->errors, std::int64_t(1));
    }

    void missingInputFileFailsBeforeRunningAndNamesTheNode()
    {
        TempDir dir;
        auto r = testing::runPipeline(R"({"format":"tideline/1","nodes":[
            {"id":"clicks","kind":"source.file","params":{"path":"nope.jsonl"}},
            {"id":"o","kind":"sink.console"}],"edges":[{"from":"clicks.out","to":"o.in"}]})",
                                      dir.path);
        QVERIFY(r.valid);
        QVERIFY2(r.createError.find("node `clicks`") == 0, r.createError.c_str());
        QVERIFY(r.createError.find("No such file") != std::string::npos);
        QVERIFY(r.createError.find("params.path") != std::string::npos);
    }

    void pacedSourceFollowsTheClock()
    {
        TempDir dir;
        ManualClock clock;
        auto loaded = loadSpec(R"({"format":"tideline/1","nodes":[
            {"id":"g","kind":"source.generator","params":{"count":100,"pace":{"records_per_s":10}}},
            {"id":"o","kind":"sink.discard"}],"edges":[{"from":"g.out","to":"o.in"}]})");
        JobOptions o;
        o.clock = &clock;
        std::string err;
        auto job = Job::create(*loaded.spec, o, err);
        QVERIFY(job);
        job->runFor(5); // one record allowed at t=0, then the loop sleeps (advancing the clock)
        std::int64_t elapsed = job->snapshot().takenAtMs - job->snapshot().startedAtMs;
        QVERIFY2(elapsed >= 399, std::to_string(elapsed).c_str()); // 5 records at 10/s
        QCOMPARE(job->snapshot().recordsRead, std::int64_t(5));
    }
};

QTEST_APPLESS_MAIN(TestSources)
#include "test_sources.moc"
