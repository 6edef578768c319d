// The example pipelines under pipelines/ that use the join, dedup, enrich, filter, map and
// upsert nodes: each is copied to a temporary folder, run through the Job API, and its output
// compared with a brute-force reference computed here from the same input files.

#include "node_harness.hpp"

#include <tideline/engine/job.hpp>
#include <tideline/engine/spec.hpp>
#include <tideline/engine/upsert_table.hpp>

#include <QtTest>

#include <filesystem>
#include <map>
#include <set>
#include <sstream>

using namespace tideline;
using namespace nodetest;
namespace fs = std::filesystem;

namespace {

struct Example
{
    std::string dir;
    Run run;
};

} // namespace

class ExamplesTest : public QObject
{
    Q_OBJECT

    QTemporaryDir m_tmp;
    ManualClock m_clock;
    int m_copies = 0;

    /// Copies pipelines/<name> (without any out/ folder) to a fresh temporary folder.
    std::string copyExample(const std::string &name)
    {
        fs::path src = fs::path(TIDELINE_SOURCE_DIR) / "pipelines" / name;
        fs::path dst
            = fs::path(m_tmp.path().toStdString()) / (name + "-" + std::to_string(++m_copies));
        if (!fs::is_directory(src))
            return {};
        fs::create_directories(dst);
        for (const auto &e : fs::directory_iterator(src))
            if (e.is_regular_file())
                fs::copy_file(e.path(), dst / e.path().filename());
        return dst.string();
    }

    Run runIn(const std::string &dir)
    {
        Run r;
        LoadResult loaded = loadSpecFile(dir + "/pipeline.json");
        if (!loaded.spec || !loaded.ok()) {
            r.error = "invalid: " + diagnosticsText(loaded.diagnostics);
            return r;
        }
        if (!loaded.diagnostics.empty()) {
            r.error = "unexpected warnings: " + diagnosticsText(loaded.diagnostics);
            return r;
        }
        JobOptions options;
        options.baseDir = dir;
        options.clock = &m_clock;
        r.job = Job::create(*loaded.spec, std::move(options), r.error);
        if (!r.job)
            return r;
        r.status = r.job->run();
        if (r.status != Job::Status::Finished)
            r.error = "run failed: " + r.job->failure();
        r.job->publishMetrics();
        r.metrics = r.job->snapshot();
        return r;
    }

    static std::vector<Json> jsonLines(const std::string &path) { return readJsonLines(path); }

#define RUN_OK(r) QVERIFY2((r).ok(), (r).error.c_str())

private slots:
    void initTestCase()
    {
        QVERIFY(m_tmp.isValid());
    }

    void adImpressionsClicks()
    {
        std::string dir = copyExample("ad-impressions-clicks");
        QVERIFY2(!dir.empty(), "example folder missing");
        Run r = runIn(dir);
        RUN_OK(r);
        auto imps = jsonLines(dir + "/impressions.jsonl");
        auto clicks = jsonLines(dir + "/clicks.jsonl");
        // Reference: every (impression, click) pair within [0, 15 min], and each impression
        // without any such click once with null.
        std::multiset<std::string> expected;
        for (const auto &i : imps) {
            bool any = false;
            for (const auto &c : clicks) {
                long d = c["ts"].get<long>() - i["ts"].get<long>();
                if (c["impression_id"] == i["impression_id"] && d >= 0 && d <= 900000) {
                    expected.insert(i["impression_id"].get<std::string>() + "+"
                                    + c["click_id"].get<std::string>());
                    any = true;
                }
            }
            if (!any)
                expected.insert(i["impression_id"].get<std::string>() + "+null");
        }
        std::multiset<std::string> actual;
        for (const auto &o : jsonLines(dir + "/out/impressions-with-clicks.jsonl")) {
            QVERIFY(o.contains("left") && o.contains("right"));
            actual.insert(
                o["left"]["impression_id"].get<std::string>() + "+"
                + (o["right"].is_null() ? "null" : o["right"]["click_id"].get<std::string>()));
        }
        QCOMPARE(actual.size(), expected.size());
        QVERIFY(actual == expected);
        // The boundary cases in the data: exactly 15 min joins, 15 min + 1 ms does not, the
        // same millisecond joins.
        int boundaryCases = 0;
        for (const auto &c : clicks)
            for (const auto &i : imps) {
                if (c["impression_id"] != i["impression_id"])
                    continue;
                long d = c["ts"].get<long>() - i["ts"].get<long>();
                std::string pair = i["impression_id"].get<std::string>() + "+"
                                   + c["click_id"].get<std::string>();
                if (d == 900000 || d == 0) {
                    QCOMPARE(actual.count(pair), std::size_t(1));
                    ++boundaryCases;
                } else if (d == 900001) {
                    QCOMPARE(actual.count(pair), std::size_t(0));
                    ++boundaryCases;
                }
            }
        QCOMPARE(boundaryCases, 3);
        QCOMPARE(jsonLines(dir + "/out/rejected.jsonl").size(), std::size_t(0));
        QCOMPARE(r.node("clicked").stateEntries, std::int64_t(0));
        QVERIFY(expected.size() > imps.size()); // some impressions have two clicks
    }

    void paymentsDedup()
    {
        std::string dir = copyExample("payments-dedup");
        QVERIFY2(!dir.empty(), "example folder missing");
        auto input = jsonLines(dir + "/payments.jsonl");
        // Reference: the first delivery of each event_id, and the last four lines are
        // redeliveries far behind the watermark.
        std::map<std::string, Json> first;
        for (std::size_t k = 0; k + 4 < input.size(); ++k)
            first.emplace(input[k]["event_id"].get<std::string>(), input[k]);
        std::string table;
        for (int replay = 0; replay < 2; ++replay) {
            Run r = runIn(dir);
            RUN_OK(r);
            std::ostringstream os;
            std::string error;
            QVERIFY2(dumpUpsertTable(dir + "/out/payments-table", os, error), error.c_str());
            if (replay == 0)
                table = os.str();
            else
                QCOMPARE(os.str(), table); // replaying the input leaves the same table
            QCOMPARE(r.node("once").duplicatesDropped,
                     static_cast<std::int64_t>(input.size() - 4 - first.size()));
            QCOMPARE(r.node("once").late, std::int64_t(4));
            QCOMPARE(r.node("once").stateEntries, std::int64_t(0));
        }
        std::istringstream rows(table);
        std::string line;
        std::size_t n = 0;
        while (std::getline(rows, line)) {
            Json row = Json::parse(line);
            auto it = first.find(row["event_id"].get<std::string>());
            QVERIFY(it != first.end());
            QCOMPARE(row, it->second);
            ++n;
        }
        QCOMPARE(n, first.size());
        auto dead = jsonLines(dir + "/out/dead-letter.jsonl");
        // sink.file appends per run? It rewrites: one run's worth of dead letters.
        QCOMPARE(dead.size(), std::size_t(4));
        for (std::size_t k = 0; k < dead.size(); ++k) {
            QCOMPARE(dead[k]["reason"].get<std::string>(), std::string("behind_watermark"));
            QCOMPARE(dead[k]["node"].get<std::string>(), std::string("once"));
            QCOMPARE(dead[k]["record"], input[input.size() - 4 + k]);
        }
    }

    void clicksByCountry()
    {
        std::string dir = copyExample("clicks-by-country");
        QVERIFY2(!dir.empty(), "example folder missing");
        Run r = runIn(dir);
        RUN_OK(r);
        // Reference: the users table (names may be quoted, with commas), then the counts.
        std::map<long, std::string> country;
        {
            std::ifstream in(dir + "/users.csv");
            std::string line;
            std::getline(in, line); // header
            while (std::getline(in, line)) {
                if (line.empty())
                    continue;
                auto c1 = line.find(','), c2 = line.find(',', c1 + 1);
                country[std::stol(line.substr(0, c1))] = line.substr(c1 + 1, c2 - c1 - 1);
            }
        }
        std::map<std::pair<std::string, long>, long> counts;
        long unknown = 0;
        for (const auto &c : jsonLines(dir + "/clicks.jsonl")) {
            auto it = country.find(c["user_id"].get<long>());
            if (it == country.end()) {
                ++unknown;
                continue;
            }
            std::string dev = c["device"].get<std::string>();
            for (char &ch : dev)
                ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
            if (dev == "bot")
                continue;
            std::string cc = it->second;
            for (char &ch : cc)
                ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
            long start = c["ts"].get<long>() / 60000 * 60000;
            ++counts[{cc, start}];
        }
        std::map<std::pair<std::string, long>, long> actual;
        for (const auto &o : jsonLines(dir + "/out/clicks-by-country.jsonl")) {
            QCOMPARE(o["emit"].get<std::string>(), std::string("final"));
            QCOMPARE(o["window_end"].get<long>() - o["window_start"].get<long>(), 60000L);
            auto key
                = std::make_pair(o["country"].get<std::string>(), o["window_start"].get<long>());
            QVERIFY2(!actual.count(key), "a window was emitted twice");
            actual[key] = o["clicks"].get<long>();
        }
        QCOMPARE(actual, counts);
        QVERIFY(unknown > 0);
        auto unknownOut = jsonLines(dir + "/out/unknown-users.jsonl");
        QCOMPARE(static_cast<long>(unknownOut.size()), unknown);
        for (const auto &u : unknownOut)
            QCOMPARE(u["reason"].get<std::string>(), std::string("no_match"));
        QCOMPARE(r.node("per_country").late, std::int64_t(0));
        QCOMPARE(jsonLines(dir + "/out/rejected.jsonl").size(), std::size_t(0));
    }
};

QTEST_GUILESS_MAIN(ExamplesTest)
#include "test_examples.moc"
