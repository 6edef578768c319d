// Nexmark: the generator and the query pipelines.
//
// Each query test runs the real pipeline file from pipelines/nexmark (with a small event count
// and its sink pointed at a temp file), then computes the expected result from the generated
// events themselves (source.nexmark -> sink.file, parsed here with nlohmann::json, not with the
// engine) using plain loops, and compares the two exactly.

#include <tideline/engine/job.hpp>
#include <tideline/engine/spec.hpp>
#include <tideline/engine/state_io.hpp>
#include <tideline/engine/testing/operator_harness.hpp>
#include <tideline/engine/validate.hpp>

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <tuple>

using namespace tideline;
using nlohmann::json;

namespace {

constexpr std::int64_t kBaseTime = 1700000000000LL;

std::vector<json> readJsonLines(const std::string &path)
{
    std::vector<json> out;
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line))
        if (!line.empty())
            out.push_back(json::parse(line));
    return out;
}

std::string errorsOf(const PipelineSpec &spec)
{
    std::string s;
    for (const auto &d : validate(spec))
        if (d.isError())
            s += d.format() + "\n";
    return s;
}

/// Runs a spec to the end; fails the test on any problem.
bool runSpec(const PipelineSpec &spec, const std::string &baseDir, std::string &why)
{
    why = errorsOf(spec);
    if (!why.empty())
        return false;
    JobOptions o;
    o.baseDir = baseDir;
    std::string error;
    auto job = Job::create(spec, o, error);
    if (!job) {
        why = error;
        return false;
    }
    if (job->run() != Job::Status::Finished) {
        why = job->failure();
        return false;
    }
    return true;
}

struct Event
{
    int type = 0;
    std::int64_t t = 0;
    json body; // the person/auction/bid object
};

} // namespace

class NexmarkTest : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_tmp;
    Json m_genParams
        = {{"count", 200000}, {"rate_per_s", 1000}, {"base_time", kBaseTime}, {"seed", 0}};
    std::vector<Event> m_events;

    std::string tmp(const std::string &name) const
    {
        return m_tmp.path().toStdString() + "/" + name;
    }

    std::vector<json> generate(const Json &params, const std::string &file)
    {
        PipelineSpec s;
        s.nodes.push_back({"gen", "source.nexmark", params, {}});
        s.nodes.push_back({"out", "sink.file", {{"path", file}}, {}});
        s.edges.push_back({{"gen", "out"}, {"out", "in"}});
        std::string why;
        if (!runSpec(s, m_tmp.path().toStdString(), why))
            qFatal("generating events failed: %s", why.c_str());
        return readJsonLines(file);
    }

    /// Runs pipelines/nexmark/<q>.json with the test's generator params; returns its rows.
    std::vector<json> runQuery(const std::string &q)
    {
        std::string path = std::string(TIDELINE_SOURCE_DIR) + "/pipelines/nexmark/" + q + ".json";
        LoadResult r = loadSpecFile(path);
        if (!r.spec) {
            qWarning("cannot load %s", path.c_str());
            return {};
        }
        PipelineSpec spec = *r.spec;
        std::string out = tmp(q + "-out.jsonl");
        for (auto &n : spec.nodes) {
            if (n.kind == "source.nexmark")
                for (auto &[k, v] : m_genParams.items())
                    n.params[k] = v;
            if (n.kind == "sink.file")
                n.params["path"] = out;
        }
        std::string why;
        if (!runSpec(spec, m_tmp.path().toStdString(), why)) {
            qWarning("%s failed: %s", q.c_str(), why.c_str());
            return {};
        }
        return readJsonLines(out);
    }

    std::vector<const Event *> bids() const
    {
        std::vector<const Event *> b;
        for (const auto &e : m_events)
            if (e.type == 2)
                b.push_back(&e);
        return b;
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_tmp.isValid());
        for (const json &j : generate(m_genParams, tmp("events.jsonl"))) {
            Event e;
            e.type = j.at("event_type").get<int>();
            e.t = j.at("dateTime").get<std::int64_t>();
            const char *entity = e.type == 0 ? "person" : e.type == 1 ? "auction" : "bid";
            e.body = j.at(entity);
            m_events.push_back(std::move(e));
        }
        QCOMPARE(m_events.size(), std::size_t(200000));
    }

    // --- The generator ---

    void generatorFollowsFlinkNumbering()
    {
        // Flink's table source: firstEventId = firstEventNumber = 1, so event k has id k + 2,
        // its type is id % 50 (0 person, 1..3 auction, else bid) and its time is
        // baseTime + (long)((k + 1) * 1e6 / rate) / 1000.
        std::int64_t persons = 0, auctions = 0, lastPerson = -1, lastAuction = -1;
        for (std::size_t k = 0; k < m_events.size(); ++k) {
            const Event &e = m_events[k];
            std::int64_t id = static_cast<std::int64_t>(k) + 2;
            int want = id % 50 == 0 ? 0 : id % 50 <= 3 ? 1 : 2;
            QCOMPARE(e.type, want);
            std::int64_t t = kBaseTime + static_cast<std::int64_t>((double(k) + 1) * 1000.0) / 1000;
            QCOMPARE(e.t, t);
            QCOMPARE(e.body.at("dateTime").get<std::int64_t>(), t);
            if (e.type == 0) {
                ++persons;
                std::int64_t pid = e.body.at("id").get<std::int64_t>();
                QCOMPARE(pid, id / 50 + 1000); // lastBase0PersonId + FIRST_PERSON_ID
                QVERIFY(pid > lastPerson);
                lastPerson = pid;
                QVERIFY(!e.body.at("name").get<std::string>().empty());
                QCOMPARE(e.body.at("creditCard").get<std::string>().size(), std::size_t(19));
                std::string state = e.body.at("state").get<std::string>();
                QVERIFY(std::set<std::string>({"AZ", "CA", "ID", "OR", "WA", "WY"}).count(state));
            } else if (e.type == 1) {
                ++auctions;
                std::int64_t aid = e.body.at("id").get<std::int64_t>();
                QCOMPARE(aid, (id / 50) * 3 + (id % 50 - 1) + 1000);
                QVERIFY(aid > lastAuction);
                lastAuction = aid;
                QVERIFY(e.body.at("expires").get<std::int64_t>() > t);
                std::int64_t cat = e.body.at("category").get<std::int64_t>();
                QVERIFY(cat >= 10 && cat < 15);
                QVERIFY(e.body.at("reserve").get<std::int64_t>()
                        > e.body.at("initialBid").get<std::int64_t>());
            } else {
                std::int64_t a = e.body.at("auction").get<std::int64_t>();
                // A bid names an existing auction or one of the next AUCTION_ID_LEAD = 10.
                QVERIFY(a >= 1000 && a <= lastAuction + 10);
                std::int64_t price = e.body.at("price").get<std::int64_t>();
                QVERIFY(price >= 100 && price <= 100000000);
                std::size_t extra = e.body.at("extra").get<std::string>().size();
                QVERIFY(extra >= 54 && extra <= 81);
                QVERIFY(e.body.at("url").get<std::string>().rfind("https://www.nexmark.com/", 0)
                        == 0);
            }
        }
        QCOMPARE(persons, std::int64_t(4000));
        QCOMPARE(auctions, std::int64_t(12000));
    }

    void generatorHotRatios()
    {
        // P(hot auction) = 1/2 + P(random pick lands on the hot id); P(hot bidder) ~ 3/4.
        std::int64_t n = 0, hotBidder = 0, hotChannel = 0;
        for (const auto &e : m_events) {
            if (e.type != 2)
                continue;
            ++n;
            std::int64_t bidder = e.body.at("bidder").get<std::int64_t>();
            if ((bidder - 1000) % 100 == 1)
                ++hotBidder;
            std::string ch = e.body.at("channel").get<std::string>();
            if (ch.rfind("channel-", 0) != 0)
                ++hotChannel;
        }
        double hb = double(hotBidder) / double(n), hc = double(hotChannel) / double(n);
        QVERIFY2(hb > 0.74 && hb < 0.77, qPrintable(QString::number(hb)));
        QVERIFY2(hc > 0.49 && hc < 0.51, qPrintable(QString::number(hc)));
    }

    void generatorIsDeterministicAndSeeded()
    {
        Json small = m_genParams;
        small["count"] = 3000;
        auto a = generate(small, tmp("a.jsonl"));
        auto b = generate(small, tmp("b.jsonl"));
        QCOMPARE(a.size(), std::size_t(3000));
        QVERIFY(a == b);
        // The same events as the first 3000 of the long run: event k depends only on k.
        for (std::size_t k = 0; k < a.size(); ++k)
            QCOMPARE(a[k].at("dateTime").get<std::int64_t>(), m_events[k].t);
        QCOMPARE(a[10].at("bid").dump(), m_events[10].body.dump());
        small["seed"] = 5;
        auto c = generate(small, tmp("c.jsonl"));
        QVERIFY(a != c);
    }

    void generatorFlinkBidderCompat()
    {
        Json p = m_genParams;
        p["count"] = 2000;
        auto plain = generate(p, tmp("plain.jsonl"));
        p["compat"] = {{"flink_bidder_double_offset", true}};
        auto flink = generate(p, tmp("flink.jsonl"));
        QCOMPARE(plain.size(), flink.size());
        int bidsSeen = 0;
        for (std::size_t i = 0; i < plain.size(); ++i) {
            if (plain[i].at("event_type") != 2)
                continue;
            ++bidsSeen;
            QCOMPARE(flink[i]["bid"]["bidder"].get<std::int64_t>(),
                     plain[i]["bid"]["bidder"].get<std::int64_t>() + 1000);
            QVERIFY((flink[i]["bid"]["price"]) == (plain[i]["bid"]["price"]));
        }
        QVERIFY(bidsSeen > 1000);
    }

    void generatorAuctionLengthsFollowGenerators()
    {
        // Auction lengths are 1 + rand(2H), H = time of 1666 events ahead: with 8 logical
        // generators the delay per event is 8x, so auctions last ~8x longer.
        auto meanLength = [&](int generators) {
            Json p = m_genParams;
            p["count"] = 20000;
            p["rate_per_s"] = 100000;
            p["generators"] = generators;
            double sum = 0;
            int n = 0;
            for (const auto &j : generate(p, tmp("g" + std::to_string(generators) + ".jsonl")))
                if (j.at("event_type") == 1) {
                    sum += double(j["auction"]["expires"].get<std::int64_t>()
                                  - j["auction"]["dateTime"].get<std::int64_t>());
                    ++n;
                }
            return sum / n;
        };
        double one = meanLength(1), eight = meanLength(8);
        // H = 1666 events x 10 us = 16.7 ms (mean ~ H); x 8 = 133 ms.
        QVERIFY2(one > 12 && one < 22, qPrintable(QString::number(one)));
        QVERIFY2(eight > 110 && eight < 160, qPrintable(QString::number(eight)));
    }

    // --- Queries ---

    void q0PassThrough()
    {
        auto rows = runQuery("q0");
        auto b = bids();
        QCOMPARE(rows.size(), b.size());
        for (std::size_t i = 0; i < b.size(); ++i) {
            const json &src = b[i]->body;
            json want = {{"bid",
                          {{"auction", src["auction"]},
                           {"bidder", src["bidder"]},
                           {"price", src["price"]},
                           {"dateTime", src["dateTime"]},
                           {"extra", src["extra"]}}}};
            if (rows[i] != want)
                QFAIL(qPrintable(QString::fromStdString("row " + std::to_string(i) + ": "
                                                        + rows[i].dump() + " != " + want.dump())));
        }
    }

    void q1CurrencyConversionIsExact()
    {
        auto rows = runQuery("q1");
        auto b = bids();
        QCOMPARE(rows.size(), b.size());
        for (std::size_t i = 0; i < b.size(); ++i) {
            std::int64_t price = b[i]->body["price"].get<std::int64_t>();
            QCOMPARE(rows[i]["price_milli"].get<std::int64_t>(), price * 908);
            QVERIFY(rows[i]["price_milli"].is_number_integer());
            QVERIFY((rows[i]["bid"]["auction"]) == (b[i]->body["auction"]));
            QVERIFY((rows[i]["bid"]["extra"]) == (b[i]->body["extra"]));
            QVERIFY(!rows[i]["bid"].contains("price"));
        }
    }

    void q2Selection()
    {
        auto rows = runQuery("q2");
        std::vector<json> want;
        for (const Event *e : bids())
            if (e->body["auction"].get<std::int64_t>() % 123 == 0)
                want.push_back(
                    {{"bid", {{"auction", e->body["auction"]}, {"price", e->body["price"]}}}});
        QVERIFY(want.size() > 50); // the selection passes something at this size
        QCOMPARE(rows.size(), want.size());
        QVERIFY(rows == want);
    }

    void q5HotItems()
    {
        // Sliding windows [k*2000, k*2000 + 10000): count bids per auction per window, keep the
        // auctions whose count equals the window's maximum.
        std::map<std::int64_t, std::map<std::int64_t, std::int64_t>>
            counts; // start -> auction -> n
        for (const Event *e : bids()) {
            std::int64_t t = e->t;
            std::int64_t a = e->body["auction"].get<std::int64_t>();
            for (std::int64_t s = (t / 2000) * 2000; s > t - 10000; s -= 2000)
                ++counts[s][a];
        }
        std::set<std::tuple<std::int64_t, std::int64_t, std::int64_t>> want; // start, auction, n
        for (const auto &[s, per] : counts) {
            std::int64_t mx = 0;
            for (const auto &[a, n] : per)
                mx = std::max(mx, n);
            for (const auto &[a, n] : per)
                if (n == mx)
                    want.insert({s, a, n});
        }
        auto rows = runQuery("q5");
        std::set<std::tuple<std::int64_t, std::int64_t, std::int64_t>> got;
        for (const auto &r : rows) {
            QCOMPARE(r["window_end"].get<std::int64_t>() - r["window_start"].get<std::int64_t>(),
                     std::int64_t(10000));
            got.insert({r["window_start"].get<std::int64_t>(),
                        r["bid"]["auction"].get<std::int64_t>(), r["num"].get<std::int64_t>()});
        }
        QCOMPARE(rows.size(), got.size()); // no row twice
        QCOMPARE(got.size(), want.size());
        QVERIFY(got == want);
        QVERIFY(counts.size() > 90); // ~100 windows over 200 s of event time
    }

    void q7HighestBid()
    {
        // Tumbling 10 s windows: the bids whose price equals the window's maximum, in window
        // order and, within a window, in arrival order.
        std::map<std::int64_t, std::vector<const Event *>> best;
        for (const Event *e : bids()) {
            std::int64_t s = (e->t / 10000) * 10000;
            auto &v = best[s];
            std::int64_t p = e->body["price"].get<std::int64_t>();
            if (v.empty() || p > v.front()->body["price"].get<std::int64_t>())
                v = {e};
            else if (p == v.front()->body["price"].get<std::int64_t>())
                v.push_back(e);
        }
        std::vector<json> want;
        for (const auto &[s, v] : best)
            for (const Event *e : v)
                want.push_back({{"bid",
                                 {{"auction", e->body["auction"]},
                                  {"price", e->body["price"]},
                                  {"bidder", e->body["bidder"]},
                                  {"dateTime", e->body["dateTime"]},
                                  {"extra", e->body["extra"]}}},
                                {"window_end", s + 10000}});
        auto rows = runQuery("q7");
        QCOMPARE(rows.size(), want.size());
        for (std::size_t i = 0; i < rows.size(); ++i)
            if (rows[i] != want[i])
                QFAIL(qPrintable(QString::fromStdString(rows[i].dump() + " != " + want[i].dump())));
    }

    void q8NewUsers()
    {
        // Tumbling 10 s windows: persons whose id is the seller of an auction of the same window.
        std::map<std::int64_t, std::set<std::int64_t>> sellers;
        for (const auto &e : m_events)
            if (e.type == 1)
                sellers[(e.t / 10000) * 10000].insert(e.body["seller"].get<std::int64_t>());
        std::vector<json> want;
        std::map<std::int64_t, std::vector<json>> perWindow;
        for (const auto &e : m_events) {
            if (e.type != 0)
                continue;
            std::int64_t s = (e.t / 10000) * 10000;
            if (sellers[s].count(e.body["id"].get<std::int64_t>()))
                perWindow[s].push_back(
                    {{"person", {{"id", e.body["id"]}, {"name", e.body["name"]}}},
                     {"window_start", s}});
        }
        for (auto &[s, v] : perWindow)
            for (auto &j : v)
                want.push_back(j);
        QVERIFY(want.size() > 20); // hot sellers open auctions right after registering
        auto rows = runQuery("q8");
        QCOMPARE(rows.size(), want.size());
        QVERIFY(rows == want);
    }

    void q11Sessions()
    {
        // Per bidder: a session continues while the next bid is at most 10 s after the last;
        // it spans [first, last + 10 s).
        struct S
        {
            std::int64_t start, last, n;
        };
        std::map<std::int64_t, std::vector<S>> per;
        for (const Event *e : bids()) {
            auto &v = per[e->body["bidder"].get<std::int64_t>()];
            if (!v.empty() && e->t <= v.back().last + 10000) {
                v.back().last = std::max(v.back().last, e->t);
                ++v.back().n;
            } else {
                v.push_back({e->t, e->t, 1});
            }
        }
        std::set<std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t>> want;
        for (const auto &[bidder, v] : per)
            for (const auto &s : v)
                want.insert({bidder, s.start, s.last + 10000, s.n});
        auto rows = runQuery("q11");
        std::set<std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t>> got;
        for (const auto &r : rows)
            got.insert({r["bid"]["bidder"].get<std::int64_t>(),
                        r["window_start"].get<std::int64_t>(), r["window_end"].get<std::int64_t>(),
                        r["bid_count"].get<std::int64_t>()});
        QCOMPARE(rows.size(), got.size());
        QCOMPARE(got.size(), want.size());
        QVERIFY(got == want);
    }

    // --- The window_join kind's pairs mode and late routing, on a hand-written input ---

    void windowJoinPairsAndLate()
    {
        std::string in = tmp("wj.jsonl");
        {
            std::ofstream f(in);
            f << R"({"side":"l","k":1,"t":1000,"v":"a"})"
              << "\n"
              << R"({"side":"r","k":1,"t":2000,"v":"x"})"
              << "\n"
              << R"({"side":"r","k":1,"t":9999,"v":"y"})"
              << "\n"
              << R"({"side":"r","k":2,"t":3000,"v":"z"})"
              << "\n"
              << R"({"side":"l","k":1,"t":10000,"v":"b"})"
              << "\n" // next window: no partner
              << R"({"side":"l","k":1,"t":30000,"v":"c"})"
              << "\n" // W = 29999: [0,10000) fired
              << R"({"side":"r","k":1,"t":5000,"v":"late"})"
              << "\n";
        }
        PipelineSpec s;
        s.nodes.push_back({"src", "source.file", {{"path", in}}, {}});
        s.nodes.push_back(
            {"wm", "watermark", {{"time_field", "t"}, {"max_out_of_orderness_ms", 0}}, {}});
        s.nodes.push_back({"l", "filter", {{"expr", "side == 'l'"}}, {}});
        s.nodes.push_back({"r", "filter", {{"expr", "side == 'r'"}}, {}});
        s.nodes.push_back({"j",
                           "window_join",
                           {{"size_ms", 10000},
                            {"left_key", Json::array({"k"})},
                            {"right_key", Json::array({"k"})}},
                           {}});
        s.nodes.push_back({"out", "sink.file", {{"path", tmp("wj-out.jsonl")}}, {}});
        s.nodes.push_back({"late", "sink.file", {{"path", tmp("wj-late.jsonl")}}, {}});
        s.edges = {{{"src", "out"}, {"wm", "in"}}, {{"wm", "out"}, {"l", "in"}},
                   {{"wm", "out"}, {"r", "in"}},   {{"l", "out"}, {"j", "left"}},
                   {{"r", "out"}, {"j", "right"}}, {{"j", "out"}, {"out", "in"}},
                   {{"j", "late"}, {"late", "in"}}};
        std::string why;
        QVERIFY2(runSpec(s, m_tmp.path().toStdString(), why), why.c_str());
        auto rows = readJsonLines(tmp("wj-out.jsonl"));
        QCOMPARE(rows.size(), std::size_t(2));
        QVERIFY((rows[0]["left"]["v"]) == (json("a")));
        QVERIFY((rows[0]["right"]["v"]) == (json("x")));
        QVERIFY((rows[1]["right"]["v"]) == (json("y")));
        QVERIFY((rows[0]["window_start"]) == (json(0)));
        QVERIFY((rows[0]["window_end"]) == (json(10000)));
        auto late = readJsonLines(tmp("wj-late.jsonl"));
        QCOMPARE(late.size(), std::size_t(1));
        QVERIFY((late[0]["reason"]) == (json("window_closed")));
        QVERIFY((late[0]["record"]["v"]) == (json("late")));
    }

    void windowJoinSemiStateRoundTrip()
    {
        // q8's left_semi state (persons in arrival order, the auctions' seller keys) survives
        // a snapshot: restored into a fresh node, it snapshots to the same bytes. The node runs
        // in testing::OperatorHarness, fed exactly what it receives inside the q8 job (its input
        // records and input watermarks, recorded by the job's taps, in order).
        std::string path = std::string(TIDELINE_SOURCE_DIR) + "/pipelines/nexmark/q8.json";
        LoadResult loaded = loadSpecFile(path);
        QVERIFY(loaded.spec);
        PipelineSpec spec = *loaded.spec;
        for (auto &n : spec.nodes) {
            if (n.kind == "source.nexmark") {
                n.params["count"] = 30000;
                n.params["rate_per_s"] = 1000; // 30 s of event time: three 10 s windows
            }
            if (n.kind == "sink.file")
                n.params["path"] = tmp("q8-rt.jsonl");
        }
        const int idx = spec.nodeIndex("new_sellers");
        QVERIFY(idx >= 0);
        std::string error;
        auto a = testing::OperatorHarness::create(spec.nodes[static_cast<std::size_t>(idx)], {},
                                                  error);
        QVERIFY2(a, error.c_str());
        JobOptions o;
        o.baseDir = m_tmp.path().toStdString();
        auto job = Job::create(spec, o, error);
        QVERIFY2(job, error.c_str());
        std::vector<std::string> jobOut;
        job->setTap("new_sellers", [&](const observe::TapEvent &e) {
            if (e.direction == observe::TapDirection::In)
                a->processRecord(e.port, testing::OperatorHarness::record(
                                             e.recordJson, e.eventTime.value_or(kMinTime)));
            else if (e.role == observe::TapPortRole::Data)
                jobOut.push_back(e.recordJson);
        });
        job->setWatermarkTap([&](const observe::WatermarkTapEvent &e) {
            if (e.node == "new_sellers" && e.which == observe::WatermarkTapEvent::Which::Input)
                a->processWatermark(e.watermark);
        });
        QCOMPARE(job->runFor(15000), Job::Status::Running); // mid-window
        job->publishMetrics();
        // The harness's node is the job's: same output so far, same state size.
        QVERIFY(!jobOut.empty());
        QCOMPARE(a->lines(), jobOut);
        QCOMPARE(a->metrics().stateEntries, job->snapshot().node("new_sellers")->stateEntries);
        const testing::OperatorSnapshot snap = a->snapshot();
        QVERIFY(snap.state.size() > 1000); // persons and seller keys are in it

        auto b = a->restoredCopy(error); // kind, fingerprint, every byte read
        QVERIFY2(b, error.c_str());
        QVERIFY(b->snapshot().state == snap.state);
        const observe::NodeMetrics ma = a->metrics(), mb = b->metrics();
        QVERIFY(ma.stateEntries > 100);
        QCOMPARE(mb.stateEntries, ma.stateEntries);
    }

    void topMinWithTiesAndValidation()
    {
        std::string in = tmp("top.jsonl");
        {
            std::ofstream f(in);
            f << R"({"t":1,"p":5,"id":1})"
              << "\n"
              << R"({"t":2,"p":3,"id":2})"
              << "\n"
              << R"({"t":3,"p":3,"id":3})"
              << "\n"
              << R"({"t":4,"p":9,"id":4})"
              << "\n"
              << R"({"t":11,"p":7,"id":5})"
              << "\n"
              << R"({"t":12,"id":6})"
              << "\n";
        }
        PipelineSpec s;
        s.nodes.push_back({"src", "source.file", {{"path", in}}, {}});
        s.nodes.push_back(
            {"wm", "watermark", {{"time_field", "t"}, {"max_out_of_orderness_ms", 0}}, {}});
        s.nodes.push_back({"top", "top", {{"field", "p"}, {"order", "min"}, {"size_ms", 10}}, {}});
        s.nodes.push_back({"out", "sink.file", {{"path", tmp("top-out.jsonl")}}, {}});
        s.edges = {{{"src", "out"}, {"wm", "in"}},
                   {{"wm", "out"}, {"top", "in"}},
                   {{"top", "out"}, {"out", "in"}}};
        std::string why;
        QVERIFY2(runSpec(s, m_tmp.path().toStdString(), why), why.c_str());
        auto rows = readJsonLines(tmp("top-out.jsonl"));
        QCOMPARE(rows.size(), std::size_t(3));
        QVERIFY((rows[0]["id"]) == (json(2)));
        QVERIFY((rows[1]["id"]) == (json(3)));
        QVERIFY((rows[1]["window_start"]) == (json(0)));
        QVERIFY((rows[2]["id"]) == (json(5)));
        QVERIFY((rows[2]["window_end"]) == (json(20)));

        // Without size_ms, an empty `by` is refused with a hint.
        s.nodes[2].params = {{"field", "p"}, {"by", json::array()}};
        QVERIFY(errorsOf(s).find("params.by") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(NexmarkTest)
#include "test_nexmark.moc"
