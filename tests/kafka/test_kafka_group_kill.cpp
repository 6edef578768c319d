// Group crash test (slow): three `tideline-run` members of one consumer group read 32
// partitions into keyed tumbling windows (partition tasks: a partition's window state moves
// with it). Members are killed with SIGKILL or stopped with SIGTERM at random and restarted;
// every restart also rebalances the group. At the end every member stops gracefully and the
// windows all members wrote together must equal a plain group-by of the input: each window
// present, none extra, and a window written twice (by a member killed after writing it but
// before its checkpoint) written with the same counts. Issue 23.1 froze event time here.
//
// Sizes: TIDELINE_GROUP_KILL_EVENTS (default 96,000), TIDELINE_GROUP_KILL_ROUNDS (default 8),
// TIDELINE_GROUP_KILL_SEED (default 11).

#include "kafka_harness.hpp"
#include "kafka_producer.hpp"

#include <librdkafka/rdkafka.h>

#include <QtTest>

#include <csignal>
#include <fstream>
#include <map>
#include <random>

using namespace kafkatest;

namespace {

constexpr int kPartitions = 32;
constexpr int kKeys = 64; // key k lives on partition k % 32: the topic is partitioned by key
constexpr long long kBase = 1700000000000LL;
constexpr long long kWindowMs = 1000;
constexpr long long kStepMs = 1; // event i at kBase + i ms: ~15 events per key and window

long long envInt(const char *name, long long def)
{
    const char *v = std::getenv(name);
    return v && *v ? std::atoll(v) : def;
}

/// Events [from, to); with `close` also one record per partition far enough ahead to close
/// every window of the data.
bool produce(const QString &bootstrap, long long from, long long to, bool close)
{
    tideline::testing::KafkaTestProducer producer(bootstrap.toStdString());
    if (!producer.ok())
        return false;
    for (long long i = from; i < to; ++i) {
        const int key = static_cast<int>(i % kKeys);
        producer.send("gkill", key % kPartitions,
                      "{\"key\":\"k" + std::to_string(key)
                          + "\",\"t\":" + std::to_string(kBase + i * kStepMs) + "}");
    }
    for (int p = 0; close && p < kPartitions; ++p)
        producer.send("gkill", p,
                      "{\"key\":\"close\",\"t\":"
                          + std::to_string(kBase + to * kStepMs + 10 * kWindowMs) + "}");
    return producer.flush();
}

} // namespace

class KafkaGroupKillTest : public QObject
{
    Q_OBJECT
private slots:
    void membersKilledAndStoppedAtRandomGiveThePlainGroupBy()
    {
        const long long events = envInt("TIDELINE_GROUP_KILL_EVENTS", 96000);
        const int rounds = static_cast<int>(envInt("TIDELINE_GROUP_KILL_ROUNDS", 8));
        std::mt19937 rng(static_cast<unsigned>(envInt("TIDELINE_GROUP_KILL_SEED", 11)));
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string d = dir.path().toStdString();
        MockCluster mock;
        QString err = mock.start(3, {"gkill:32"});
        QVERIFY2(err.isEmpty(), qPrintable(err));

        Json pipeline{
            {"format", "tideline/1"},
            {"name", "group-kill"},
            {"settings", {{"checkpoint", {{"interval_ms", 300}, {"dir", "ckpt"}}}}},
            {"nodes",
             Json::array(
                 {Json{{"id", "src"},
                       {"kind", "source.kafka"},
                       {"params",
                        {{"bootstrap_servers", mock.bootstrap.toStdString()},
                         {"topic", "gkill"},
                         {"group_id", "g-gkill"},
                         {"properties",
                          {{"session.timeout.ms", "6000"}, {"heartbeat.interval.ms", "300"}}}}}},
                  Json{{"id", "wm"},
                       {"kind", "watermark"},
                       {"params", {{"time_field", "t"}, {"max_out_of_orderness_ms", 0}}}},
                  Json{{"id", "w"},
                       {"kind", "window"},
                       {"params",
                        {{"type", "tumbling"},
                         {"size_ms", kWindowMs},
                         {"key", Json::array({"key"})},
                         {"aggregates", Json::array({Json{{"op", "count"}, {"as", "n"}}})}}}},
                  Json{
                      {"id", "out"}, {"kind", "sink.file"}, {"params", {{"path", "out.jsonl"}}}}})},
            {"edges", Json::array({Json{{"from", "src.out"}, {"to", "wm.in"}},
                                   Json{{"from", "wm.out"}, {"to", "w.in"}},
                                   Json{{"from", "w.out"}, {"to", "out.in"}}})}};
        const QString runner = QStringLiteral(TIDELINE_BINARY_DIR "/app/runner/tideline-run");
        const std::vector<std::string> names{"m0", "m1", "m2"};
        // Each member writes its own output file (one sink file per process).
        for (const auto &m : names) {
            Json p = pipeline;
            p["nodes"][3]["params"]["path"] = "out-" + m + ".jsonl";
            std::ofstream(d + "/" + m + ".json") << p.dump(2);
        }
        std::map<std::string, std::unique_ptr<QProcess>> procs;
        // Every (re)start picks its parallelism (1 to 3 worker threads for the partitions'
        // windows): partitions move between members of different parallelism, and a killed
        // member's state is whatever its threads had checkpointed.
        std::mt19937 threads(rng() ^ 0x5eed);
        auto startMember = [&](const std::string &m) {
            const QString parallelism = QString::number(1 + threads() % 3);
            auto p = std::make_unique<QProcess>();
            p->setProcessChannelMode(QProcess::MergedChannels);
            p->setStandardOutputFile(QString::fromStdString(d + "/" + m + ".log"),
                                     QIODevice::Append);
            p->start(runner, {QString::fromStdString(d + "/" + m + ".json"), "--member",
                              QString::fromStdString(m), "--parallelism", parallelism});
            QVERIFY(p->waitForStarted(5000));
            procs[m] = std::move(p);
        };
        auto stopMember = [&](const std::string &m, int sig) {
            QProcess &p = *procs[m];
            ::kill(static_cast<pid_t>(p.processId()), sig);
            QVERIFY2(p.waitForFinished(60000), "a member did not stop");
            if (sig == SIGTERM)
                QVERIFY2(p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0,
                         qPrintable(QString::fromStdString("member " + m + " exited "
                                                           + std::to_string(p.exitCode()))));
        };

        for (const auto &m : names)
            startMember(m);
        QTest::qWait(2000);
        QVERIFY(produce(mock.bootstrap, 0, events / 2, false));
        int kills = 0, stops = 0;
        std::uniform_int_distribution<int> pick(0, static_cast<int>(names.size()) - 1);
        std::uniform_int_distribution<int> pause(300, 2500);
        for (int r = 0; r < rounds; ++r) {
            if (r == rounds / 2) // the second half of the input arrives mid-way
                QVERIFY(produce(mock.bootstrap, events / 2, events, true));
            QTest::qWait(pause(rng));
            const std::string &m = names[static_cast<std::size_t>(pick(rng))];
            const bool kill = rng() % 2 == 0;
            stopMember(m, kill ? SIGKILL : SIGTERM);
            (kill ? kills : stops)++;
            QTest::qWait(pause(rng));
            startMember(m);
        }
        // Let the group settle and finish the input, then stop everyone gracefully (a member
        // that was killed last truncates its uncommitted rows when it restarted).
        auto windows = [&] {
            std::map<std::pair<std::string, long long>, long long> got;
            for (const auto &m : names)
                for (const auto &row : readJsonLines(d + "/out-" + m + ".jsonl"))
                    got[{row["key"].get<std::string>(), row["window_start"].get<long long>()}]
                        = row["n"].get<long long>();
            return got;
        };
        // Plain group-by of the input (the closing records close every window of it).
        std::map<std::pair<std::string, long long>, long long> want;
        for (long long i = 0; i < events; ++i) {
            const long long t = kBase + i * kStepMs;
            want[{"k" + std::to_string(i % kKeys), t - t % kWindowMs}] += 1;
        }
        QElapsedTimer t;
        t.start();
        while (t.elapsed() < 90000 && windows().size() < want.size())
            QTest::qWait(500);
        for (const auto &m : names)
            stopMember(m, SIGTERM);

        // Every row, in every member's file, must agree with the group-by; duplicates across
        // members (a window emitted again after a partition moved back from a crash) must be
        // identical.
        std::map<std::pair<std::string, long long>, long long> got;
        long long rows = 0, repeated = 0;
        for (const auto &m : names)
            for (const auto &row : readJsonLines(d + "/out-" + m + ".jsonl")) {
                ++rows;
                const auto k = std::make_pair(row["key"].get<std::string>(),
                                              row["window_start"].get<long long>());
                const long long n = row["n"].get<long long>();
                auto [it, fresh] = got.emplace(k, n);
                if (!fresh) {
                    ++repeated;
                    QVERIFY2(it->second == n,
                             qPrintable(QString("window %1 @ %2 written as %3 and %4")
                                            .arg(QString::fromStdString(k.first))
                                            .arg(k.second)
                                            .arg(it->second)
                                            .arg(n)));
                }
            }
        qInfo("%d kills, %d graceful stops, %lld rows for %zu windows (%lld repeated)", kills,
              stops, rows, want.size(), repeated);
        for (const auto &[k, n] : want) {
            auto it = got.find(k);
            QVERIFY2(it != got.end(),
                     qPrintable(QString("missing window %1 @ %2 (%3 of %4 present)")
                                    .arg(QString::fromStdString(k.first))
                                    .arg(k.second)
                                    .arg(got.size())
                                    .arg(want.size())));
            QVERIFY2(it->second == n, qPrintable(QString("window %1 @ %2: n=%3, expected %4")
                                                     .arg(QString::fromStdString(k.first))
                                                     .arg(k.second)
                                                     .arg(it->second)
                                                     .arg(n)));
        }
        QCOMPARE(got.size(), want.size());
    }
};

QTEST_GUILESS_MAIN(KafkaGroupKillTest)
#include "test_kafka_group_kill.moc"
