// Scale-out with state: two members of one consumer group share a topic's partitions, and a
// partition's keyed window state moves with it on every rebalance (partition tasks, handed
// over through the shared checkpoint dir). The windows the members write together must be
// exactly those of one uninterrupted run, computed here with a plain loop.
#include "kafka_harness.hpp"

#include <QtTest>

#include <algorithm>
#include <csignal>
#include <fstream>
#include <map>
#include <mutex>
#include <thread>

using namespace tideline;
using namespace kafkatest;

namespace {

constexpr int kPartitions = 4;
constexpr int kKeysPerPartition = 2;
constexpr long long kWindowMs = 4000;
constexpr long long kBase = 1700000000000LL; // a multiple of kWindowMs

Json node(const std::string &id, const std::string &kind, Json params = Json::object())
{
    return Json{{"id", id}, {"kind", kind}, {"params", std::move(params)}};
}

Json edge(const std::string &from, const std::string &to)
{
    return Json{{"from", from}, {"to", to}};
}

std::string keyOf(int partition, int k)
{
    return "k" + std::to_string(partition + kPartitions * k);
}

/// One member's pipeline: keyed tumbling counts, written to its own file.
Json memberPipeline(const QString &bootstrap,
                    const std::string &topic,
                    const std::string &out,
                    long long checkpointMs = 400,
                    const std::string &strategy = {})
{
    Json props{{"session.timeout.ms", "6000"}, {"heartbeat.interval.ms", "300"}};
    if (!strategy.empty())
        props["partition.assignment.strategy"] = strategy;
    Json nodes = Json::array(
        {node("src", "source.kafka",
              {{"bootstrap_servers", bootstrap.toStdString()},
               {"topic", topic},
               {"group_id", "g-" + topic},
               {"properties", props}}),
         node("wm", "watermark", {{"time_field", "t"}, {"max_out_of_orderness_ms", 0}}),
         node("w", "window",
              {{"type", "tumbling"},
               {"size_ms", kWindowMs},
               {"key", Json::array({"key"})},
               {"aggregates", Json::array({Json{{"op", "count"}, {"as", "n"}},
                                           Json{{"op", "sum"}, {"field", "v"}, {"as", "s"}}})}}),
         node("out", "sink.file", {{"path", out}})});
    Json edges
        = Json::array({edge("src.out", "wm.in"), edge("wm.out", "w.in"), edge("w.out", "out.in")});
    return Json{{"format", "tideline/1"},
                {"name", "rebalance"},
                {"settings", {{"checkpoint", {{"interval_ms", checkpointMs}, {"dir", "ckpt"}}}}},
                {"nodes", nodes},
                {"edges", edges}};
}

struct Event
{
    std::string key;
    long long t;
    long long v;
};

class Member
{
public:
    Member(const Json &pipeline,
           const std::string &dir,
           const std::string &name,
           std::vector<std::string> resetState = {},
           int parallelism = 1)
        : m_name(name)
    {
        std::string problems;
        PipelineSpec spec = specFrom(pipeline, &problems);
        if (!problems.empty()) {
            error = problems;
            return;
        }
        JobOptions o;
        o.baseDir = dir;
        o.member = name;
        o.resetState = std::move(resetState);
        o.parallelism = parallelism;
        o.log = [this](const std::string &line) {
            std::lock_guard lock(m_mutex);
            m_log.push_back(line);
        };
        job = Job::create(spec, o, error);
        if (job)
            m_thread = std::thread([this] { job->run(); });
    }
    ~Member() { stop(); }
    void stop()
    {
        if (!job || !m_thread.joinable())
            return;
        job->requestStop();
        m_thread.join();
    }
    std::size_t owned() const
    {
        auto s = job->snapshot();
        return s.node("src")->inputs.size();
    }
    long long read() const { return job->snapshot().node("src")->recordsOut; }
    long long written() const { return job->snapshot().node("out")->recordsIn; }
    /// The window node's figures (its partitions' instances added up).
    observe::NodeMetrics window() const { return *job->snapshot().node("w"); }
    std::vector<std::string> log() const
    {
        std::lock_guard lock(m_mutex);
        return m_log;
    }
    int logCount(const std::string &needle) const
    {
        int n = 0;
        for (const auto &l : log())
            n += l.find(needle) != std::string::npos;
        return n;
    }

    std::unique_ptr<Job> job;
    std::string error;

private:
    std::string m_name;
    std::thread m_thread;
    mutable std::mutex m_mutex;
    std::vector<std::string> m_log;
};

} // namespace

class KafkaRebalanceTest : public QObject
{
    Q_OBJECT
    MockCluster m_mock;
    QTemporaryDir m_dir;
    std::vector<Event> m_sent;

    /// Events of every key of every partition with t in [from, to) every 100 ms, then one
    /// closing event per partition at `close` (its own key) to move event time on.
    bool produce(const std::string &topic, long long from, long long to, long long close)
    {
        for (int p = 0; p < kPartitions; ++p) {
            QByteArray b;
            auto add = [&](const std::string &key, long long t, long long v) {
                b += "{\"key\":\"" + QByteArray::fromStdString(key) + "\",\"t\":"
                     + QByteArray::number(kBase + t) + ",\"v\":" + QByteArray::number(v) + "}\n";
                m_sent.push_back({key, kBase + t, v});
            };
            for (long long t = from; t < to; t += 100)
                for (int k = 0; k < kKeysPerPartition; ++k)
                    add(keyOf(p, k), t, t / 100 + k);
            add("close-p" + std::to_string(p), close, 1);
            if (!kcatProduce(m_mock.bootstrap, QString::fromStdString(topic), b, p))
                return false;
        }
        return true;
    }

    /// The windows one uninterrupted run fires once every partition's watermark is `w`.
    std::map<std::pair<std::string, long long>, std::pair<long long, long long>>
    expected(long long w) const
    {
        std::map<std::pair<std::string, long long>, std::pair<long long, long long>> out;
        for (const auto &e : m_sent) {
            long long start = e.t - e.t % kWindowMs;
            if (start + kWindowMs - 1 > w)
                continue;
            auto &c = out[{e.key, start}];
            c.first += 1;
            c.second += e.v;
        }
        return out;
    }

    static bool waitFor(const std::function<bool()> &done, int ms)
    {
        QElapsedTimer t;
        t.start();
        while (t.elapsed() < ms) {
            if (done())
                return true;
            QTest::qWait(100);
        }
        return done();
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QString err = m_mock.start(3, {"moves:4", "moves2:4", "moves3:4", "crash:4", "restart:2"});
        QVERIFY2(err.isEmpty(), qPrintable(err));
    }

    void windowStateMovesWithItsPartition_data()
    {
        QTest::addColumn<QString>("topic");
        QTest::addColumn<QString>("strategy");
        QTest::addColumn<int>("parallelismA");
        QTest::addColumn<int>("parallelismB");
        // Eager: every rebalance revokes everything (kept partitions resume suspended, without
        // a reload). Cooperative: only the partitions that move are revoked and assigned.
        QTest::newRow("eager (range,roundrobin)") << "moves"
                                                  << "" << 1 << 1;
        QTest::newRow("cooperative-sticky") << "moves2"
                                            << "cooperative-sticky" << 1 << 1;
        // Each member runs its partitions' windows on worker threads (parallel stages, split
        // by key group); a partition's state moves between members of another parallelism.
        QTest::newRow("eager, members at parallelism 2 and 3") << "moves3"
                                                               << "" << 2 << 3;
    }

    void windowStateMovesWithItsPartition()
    {
        QFETCH(QString, topic);
        QFETCH(QString, strategy);
        QFETCH(int, parallelismA);
        QFETCH(int, parallelismB);
        const std::string topicName = topic.toStdString();
        const std::string assignor = strategy.toStdString();
        const std::string dir = m_dir.path().toStdString() + "/" + topicName;
        QVERIFY(QDir().mkpath(QString::fromStdString(dir)));
        m_sent.clear();
        // Phase 1: [0, 6 s) on every partition; the window [4 s, 8 s) stays open across the
        // rebalance that follows.
        QVERIFY(produce(topicName, 0, 6000, 6000));
        const long long phase1 = static_cast<long long>(m_sent.size());

        auto a = std::make_unique<Member>(
            memberPipeline(m_mock.bootstrap, topicName, "out-a.jsonl", 400, assignor), dir, "a",
            std::vector<std::string>{}, parallelismA);
        QVERIFY2(a->job, a->error.c_str());
        if (parallelismA > 1) {
            std::string planned;
            for (const auto &line : a->log())
                if (line.rfind("parallelism", 0) == 0)
                    planned += line + "\n";
            QVERIFY2(planned.find("`w#p0`, `w#p1`, `w#p2`, `w#p3` run as "
                                  + std::to_string(parallelismA) + " instances each")
                         != std::string::npos,
                     planned.c_str());
        }
        QVERIFY2(waitFor([&] { return a->read() == phase1 && a->owned() == 4; }, 30000),
                 qPrintable(QString("member a read %1 of %2").arg(a->read()).arg(phase1)));

        // (With parallelism the instances' figures arrive as their rounds come back.)
        QVERIFY(waitFor(
            [&] {
                const long long e = a->window().stateEntries;
                QTest::qWait(300);
                return e > 0 && e == a->window().stateEntries;
            },
            10000));
        const long long stateBefore = a->window().stateEntries;
        const long long inBefore = a->window().recordsIn;
        QVERIFY(stateBefore > 0);
        // Member b joins: the group rebalances and b takes two partitions with their state.
        Member b(memberPipeline(m_mock.bootstrap, topicName, "out-b.jsonl", 400, assignor), dir,
                 "b", {}, parallelismB);
        QVERIFY2(b.job, b.error.c_str());
        QVERIFY2(waitFor([&] { return a->owned() == 2 && b.owned() == 2; }, 30000),
                 qPrintable(QString("owned: a %1, b %2").arg(a->owned()).arg(b.owned())));
        QVERIFY2(a->logCount("handed over partition(s)") >= 1, "a handed its partitions over");
        for (const auto &line : a->log())
            if (line.find("handed over partition(s)") != std::string::npos) {
                // Eager rebalancing revokes all four (two come back without a reload);
                // cooperative revokes only the two that move.
                const auto commas = std::count(line.begin(), line.end(), ',');
                QVERIFY2(commas == (assignor.empty() ? 3 : 1), line.c_str());
                break;
            }
        QCOMPARE(b.logCount("state restored from member `a`'s checkpoint"), 2);
        // The state moved rather than being copied: a no longer holds what b took over.
        QVERIFY2(
            waitFor(
                [&] { return a->window().stateEntries + b.window().stateEntries == stateBefore; },
                5000),
            qPrintable(QString("window state: a %1 + b %2, before %3")
                           .arg(a->window().stateEntries)
                           .arg(b.window().stateEntries)
                           .arg(stateBefore)));
        QVERIFY(b.window().stateEntries > 0);
        // Counters do not go back when a partition's instance leaves.
        QVERIFY2(
            a->window().recordsIn >= inBefore,
            qPrintable(QString("records_in %1 < %2").arg(a->window().recordsIn).arg(inBefore)));

        // Phase 2 [6 s, 12 s) and a close at 12.001 s: windows up to [8 s, 12 s) fire.
        QVERIFY(produce(topicName, 6000, 12000, 12001));
        auto want2 = expected(kBase + 12000);
        QVERIFY2(
            waitFor(
                [&] { return a->written() + b.written() >= static_cast<long long>(want2.size()); },
                30000),
            qPrintable(QString("written a %1 + b %2 of %3")
                           .arg(a->written())
                           .arg(b.written())
                           .arg(want2.size())));

        // Member a leaves (stops, and its consumer leaves the group when the job is gone): b
        // takes over a's partitions from a's final checkpoint.
        a->stop();
        const long long fromA = a->written();
        a.reset();
        QVERIFY2(waitFor([&] { return b.owned() == 4; }, 30000), "b owns every partition");
        QCOMPARE(b.logCount("state restored from member `a`'s checkpoint"), 4);
        QVERIFY(produce(topicName, 12100, 16000, 16001));
        auto want = expected(kBase + 16000);
        QVERIFY2(
            waitFor([&] { return fromA + b.written() >= static_cast<long long>(want.size()); },
                    30000),
            qPrintable(
                QString("written a %1 + b %2 of %3").arg(fromA).arg(b.written()).arg(want.size())));
        b.stop();

        std::map<std::pair<std::string, long long>, std::pair<long long, long long>> got;
        int rows = 0;
        for (const char *f : {"/out-a.jsonl", "/out-b.jsonl"})
            for (const auto &r : readJsonLines(dir + f)) {
                ++rows;
                auto key = std::make_pair(r["key"].get<std::string>(),
                                          r["window_start"].get<long long>());
                QVERIFY2(!got.count(key),
                         qPrintable("window emitted twice: " + QString::fromStdString(r.dump())));
                got[key] = {r["n"].get<long long>(), r["s"].get<long long>()};
            }
        qInfo("%d windows written by the two members (%zu expected)", rows, want.size());
        for (const auto &[k, v] : want) {
            auto it = got.find(k);
            QVERIFY2(it != got.end(), qPrintable(QString("missing window %1 @ %2")
                                                     .arg(QString::fromStdString(k.first))
                                                     .arg(k.second)));
            QVERIFY2(it->second == v, qPrintable(QString("window %1 @ %2: n=%3 s=%4, expected "
                                                         "n=%5 s=%6")
                                                     .arg(QString::fromStdString(k.first))
                                                     .arg(k.second)
                                                     .arg(it->second.first)
                                                     .arg(it->second.second)
                                                     .arg(v.first)
                                                     .arg(v.second)));
        }
        QCOMPARE(got.size(), want.size());
    }

    /// Two `tideline-run` processes (a at parallelism 2); member a is killed with SIGKILL while it
    /// works, so nothing is handed over: b takes a's partitions over from a's last periodic
    /// checkpoint (its task pointers) and processes what came after it again. Every window is still
    /// right; windows written twice are identical (an upsert consumer absorbs them).
    void killedMemberIsTakenOverFromItsLastCheckpoint()
    {
        const std::string topic = "crash";
        const std::string dir = m_dir.path().toStdString() + "/crash";
        QVERIFY(QDir().mkpath(QString::fromStdString(dir)));
        m_sent.clear();
        // Member a checkpoints only every minute, so when it is killed its partitions' newest
        // state is the handover from when b joined: b must process a's share of phase 2 again.
        for (auto [file, ms] : {std::pair<const char *, long long>{"/pipeline-a.json", 60000},
                                {"/pipeline-b.json", 400}}) {
            std::ofstream f(dir + file);
            f << memberPipeline(m_mock.bootstrap, topic, "out-${env:TL_MEMBER}.jsonl", ms).dump(2);
        }
        const QString runner = QStringLiteral(TIDELINE_BINARY_DIR "/app/runner/tideline-run");
        auto start = [&](QProcess &p, const QString &member) {
            QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
            env.insert("TL_MEMBER", member);
            p.setProcessEnvironment(env);
            p.setWorkingDirectory(QString::fromStdString(dir));
            p.setProcessChannelMode(QProcess::MergedChannels);
            p.setStandardOutputFile(QString::fromStdString(dir + "/log-" + member.toStdString()));
            // Member a runs its partitions' windows on two worker threads: what it checkpoints
            // is the state of one instance per partition all the same, which b restores.
            p.start(runner,
                    {"--member", member, "--parallelism", member == "a" ? "2" : "1", "--metrics",
                     QString::fromStdString(dir + "/metrics-" + member.toStdString()),
                     "--metrics-interval", "100",
                     QString::fromStdString(dir + "/pipeline-" + member.toStdString() + ".json")});
            return p.waitForStarted(5000);
        };
        // Where each partition's newest state is, and who wrote it.
        auto pointers = [&] {
            std::map<int, std::pair<std::string, long long>> out;
            for (int p = 0; p < kPartitions; ++p) {
                auto rows = readJsonLines(dir + "/ckpt/tasks/src/p" + std::to_string(p) + ".json");
                if (!rows.empty())
                    out[p] = {rows[0]["member"].get<std::string>(),
                              rows[0]["offset"].get<long long>()};
            }
            return out;
        };
        auto allAt = [&](long long offset, const std::string &member) {
            auto ps = pointers();
            if (ps.size() != kPartitions)
                return false;
            for (const auto &[p, mo] : ps)
                if (mo.second != offset || (!member.empty() && mo.first != member))
                    return false;
            return true;
        };
        const long long perPartition1 = 60 * kKeysPerPartition + 1;
        const long long perPartition2 = perPartition1 + 60 * kKeysPerPartition + 1;

        QVERIFY(produce(topic, 0, 6000, 6000));
        // Records member a has read (its metrics file).
        auto readByA = [&] {
            long long n = -1;
            for (const auto &j : readJsonLines(dir + "/metrics-a"))
                if (j.value("node", std::string()) == "src")
                    n = j.value("records_out", -1LL);
            return n;
        };
        QProcess a, b;
        QVERIFY(start(a, "a"));
        QVERIFY2(waitFor([&] { return readByA() == kPartitions * perPartition1; }, 30000),
                 "member a read phase 1");
        QVERIFY(start(b, "b"));
        QVERIFY2(waitFor(
                     [&] {
                         int ofB = 0;
                         for (const auto &[p, mo] : pointers())
                             ofB += mo.first == "b";
                         return ofB == 2;
                     },
                     30000),
                 "member b took two partitions over");
        QVERIFY2(allAt(perPartition1, ""), "the handover named phase 1's end for every partition");
        QVERIFY(produce(topic, 6000, 12000, 12001));
        QVERIFY2(waitFor(
                     [&] {
                         return readByA()
                                == kPartitions * perPartition1
                                       + 2 * (perPartition2 - perPartition1);
                     },
                     30000),
                 "member a read its share of phase 2");
        ::kill(static_cast<pid_t>(a.processId()), SIGKILL);
        a.waitForFinished(5000);
        // After the session timeout (6 s) the group gives a's partitions to b.
        QVERIFY2(waitFor([&] { return allAt(perPartition2, "b"); }, 60000),
                 "member b owns and has checkpointed every partition to the end");
        b.terminate();
        QVERIFY(b.waitForFinished(20000));
        QCOMPARE(b.exitCode(), 0);

        auto want = expected(kBase + 12000);
        std::map<std::pair<std::string, long long>, std::pair<long long, long long>> got;
        int rows = 0, twice = 0;
        for (const char *f : {"/out-a.jsonl", "/out-b.jsonl"})
            for (const auto &r : readJsonLines(dir + f)) {
                ++rows;
                auto key = std::make_pair(r["key"].get<std::string>(),
                                          r["window_start"].get<long long>());
                std::pair<long long, long long> v{r["n"].get<long long>(), r["s"].get<long long>()};
                if (got.count(key)) {
                    ++twice;
                    QVERIFY2(got[key] == v, qPrintable("a window written twice differs: "
                                                       + QString::fromStdString(r.dump())));
                }
                got[key] = v;
            }
        std::string logA, logB;
        for (auto [file, text] : {std::pair{"/log-a", &logA}, {"/log-b", &logB}}) {
            std::ifstream in(dir + file);
            text->assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
        }
        QVERIFY2(logA.find("`w#p0`, `w#p1`, `w#p2`, `w#p3` run as 2 instances each")
                     != std::string::npos,
                 "member a ran its partitions' windows on two threads");
        int replayed = 0;
        for (std::size_t at = 0;
             (at = logB.find("resuming at offset " + std::to_string(perPartition1), at))
             != std::string::npos;
             ++at)
            ++replayed;
        qInfo("%d window rows from the two members, %d written again after the kill (%zu "
              "windows expected); %d partitions taken over at the handover's offsets",
              rows, twice, want.size(), replayed);
        // b restored its own two at the handover, and a's two after the kill, both at phase 1's
        // end: a's share of phase 2 was processed again from a's state.
        QCOMPARE(replayed, 4);
        QVERIFY2(got == want, "the windows equal those of one uninterrupted run");
    }

    void unusableTaskStateFailsWithTheFix()
    {
        // A pointer naming a checkpoint that is gone: the member must not start the partition
        // empty in silence.
        const std::string dir = m_dir.path().toStdString() + "/gone";
        QVERIFY(QDir().mkpath(QString::fromStdString(dir + "/ckpt/tasks/src")));
        for (int p = 0; p < kPartitions; ++p) {
            std::ofstream f(dir + "/ckpt/tasks/src/p" + std::to_string(p) + ".json");
            f << R"({"source":"src","partition":)" << p
              << R"(,"member":"x","checkpoint":9,"manifest":"members/x/manifest-9.json","offset":0})";
        }
        Member m(memberPipeline(m_mock.bootstrap, "moves", "gone.jsonl"), dir, "solo");
        QVERIFY2(m.job, m.error.c_str());
        QVERIFY2(waitFor([&] { return !m.job->failure().empty(); }, 30000), "the run fails");
        const std::string f = m.job->failure();
        QVERIFY2(f.find("member `x`'s checkpoint 9") != std::string::npos, f.c_str());
        QVERIFY2(f.find("delete ") != std::string::npos
                     && f.find("/ckpt/tasks/src/p") != std::string::npos,
                 f.c_str());
    }

    void editedKeyedNodeRefusesMovedStateUntilReset()
    {
        const std::string dir = m_dir.path().toStdString() + "/edited";
        QVERIFY(QDir().mkpath(QString::fromStdString(dir)));
        {
            // Owns every partition, stops: its final checkpoint names all four.
            Member m(memberPipeline(m_mock.bootstrap, "moves", "edited.jsonl"), dir, "solo");
            QVERIFY2(m.job, m.error.c_str());
            QVERIFY(waitFor([&] { return m.owned() == 4; }, 30000));
        }
        Json edited = memberPipeline(m_mock.bootstrap, "moves", "edited.jsonl");
        edited["nodes"][2]["params"]["size_ms"] = 2000;
        {
            Member m(edited, dir, "solo");
            QVERIFY2(m.job, m.error.c_str());
            QVERIFY2(waitFor([&] { return !m.job->failure().empty(); }, 30000), "the run fails");
            const std::string f = m.job->failure();
            QVERIFY2(f.find("does not fit the node as configured here") != std::string::npos
                         && f.find("--reset-state w") != std::string::npos,
                     f.c_str());
        }
        Member m(edited, dir, "solo", {"w"});
        QVERIFY2(m.job, m.error.c_str());
        QVERIFY2(
            waitFor([&] { return m.owned() == 4 && m.logCount("discarded (--reset-state)") == 4; },
                    30000),
            "the window's saved state is dropped for every partition");
        QVERIFY(m.job->failure().empty());
    }

    void secondProcessWithTheSameMemberNameIsRefused()
    {
        const std::string dir = m_dir.path().toStdString() + "/same";
        QVERIFY(QDir().mkpath(QString::fromStdString(dir)));
        Member a(memberPipeline(m_mock.bootstrap, "moves", "same-1.jsonl"), dir, "same");
        QVERIFY2(a.job, a.error.c_str());
        Member b(memberPipeline(m_mock.bootstrap, "moves", "same-2.jsonl"), dir, "same");
        QVERIFY(!b.job);
        QVERIFY2(b.error.find("member `same`") != std::string::npos
                     && b.error.find("--member") != std::string::npos,
                 b.error.c_str());
        // Nor can a plain run share the group's folder (it would overwrite the members').
        JobOptions o;
        o.baseDir = dir;
        std::string error;
        PipelineSpec plain = specFrom(memberPipeline(m_mock.bootstrap, "moves", "same-3.jsonl"));
        plain.nodes[0].params["partition_tasks"] = false;
        QVERIFY(!Job::create(plain, o, error));
        QVERIFY2(error.find("in use by members of a Kafka consumer group") != std::string::npos,
                 error.c_str());
    }

    // Issue 23.1: every `wm#pN` instance saved the merged watermark as its own, so after any
    // restart (here a graceful stop) a partition without new records held event time at the
    // old minimum: 10 windows instead of the uninterrupted run's 101.
    void restartKeepsEachPartitionsOwnWatermark()
    {
        const std::string dir = m_dir.path().toStdString() + "/restart";
        QVERIFY(QDir().mkpath(QString::fromStdString(dir)));
        auto records = [](const std::string &key, long long from, long long to) {
            QByteArray b;
            for (long long s = from; s < to; ++s)
                b += "{\"key\":\"" + QByteArray::fromStdString(key)
                     + "\",\"t\":" + QByteArray::number(kBase + s * 1000) + ",\"v\":1}\n";
            return b;
        };
        // Partition 0: 10 records 1 s apart, then one 1,000,000 s later. Partition 1: 100.
        QVERIFY(kcatProduce(m_mock.bootstrap, "restart",
                            records("p0", 0, 10) + records("p0", 1000000, 1000001), 0));
        QVERIFY(kcatProduce(m_mock.bootstrap, "restart", records("p1", 0, 100), 1));
        Json pipeline = memberPipeline(m_mock.bootstrap, "restart", "out.jsonl", 300);
        pipeline["nodes"][2]["params"]["size_ms"] = 10000;
        {
            Member a(pipeline, dir, "a");
            QVERIFY2(a.job, a.error.c_str());
            QVERIFY2(waitFor([&] { return a.read() == 111; }, 30000),
                     qPrintable(QString("read %1 of 111").arg(a.read())));
            a.stop(); // SIGTERM's path: a final checkpoint with each partition's state
        }
        // 900 more on partition 1 and one far ahead, so that every window up to 1000 s closes
        // once partition 0 (still at 1,000,000 s) does not hold the minimum back.
        QVERIFY(kcatProduce(m_mock.bootstrap, "restart",
                            records("p1", 100, 1000) + records("p1", 2000000, 2000001), 1));
        auto windows = [&] {
            return readJsonLines(dir + "/out.jsonl");
        };
        Member again(pipeline, dir, "a");
        QVERIFY2(again.job, again.error.c_str());
        const bool all = waitFor([&] { return windows().size() >= 101; }, 30000);
        again.stop();
        std::map<std::pair<std::string, long long>, long long> got;
        for (const auto &r : windows())
            got[{r["key"].get<std::string>(), r["window_start"].get<long long>()}]
                += r["n"].get<long long>();
        QVERIFY2(all,
                 qPrintable(QString("%1 windows after the restart, 101 expected").arg(got.size())));
        QCOMPARE(got.size(), std::size_t(101));
        QCOMPARE(got[std::make_pair(std::string("p0"), kBase)], 10LL);
        for (long long w = 0; w < 100; ++w)
            QCOMPARE(got[std::make_pair(std::string("p1"), kBase + w * 10000)], 10LL);
    }
};

QTEST_GUILESS_MAIN(KafkaRebalanceTest)
#include "test_kafka_rebalance.moc"
