// Crash test (slow): `tideline-run` reading 32 Kafka partitions into a sink.upsert table is
// killed with SIGKILL at random points and restarted from its checkpoints; on every fifth
// kill broker 2 goes down before the restart and comes back a little later. At the end the
// table must hold every event id exactly once, and the report says how many redeliveries the
// upsert sink absorbed (records processed again after a restore).
//
// Sizes: TIDELINE_KAFKA_KILL_EVENTS (default 2,000,000), TIDELINE_KAFKA_KILLS (default 20),
// TIDELINE_KAFKA_KILL_SEED (default 7), TIDELINE_KAFKA_KILL_MAX_DELAY_MS (default 600: each
// run is killed 150..max ms after it starts).

#include "kafka_harness.hpp"
#include "kafka_producer.hpp"

#include <tideline/engine/upsert_table.hpp>

#include <librdkafka/rdkafka.h>

#include <QtTest>

#include <csignal>
#include <random>
#include <set>
#include <sstream>

using namespace kafkatest;

namespace {

long long envInt(const char *name, long long def)
{
    const char *v = std::getenv(name);
    return v && *v ? std::atoll(v) : def;
}

bool loadEvents(const QString &bootstrap, const std::string &topic, long long n, int partitions)
{
    tideline::testing::KafkaTestProducer producer(
        bootstrap.toStdString(),
        {{"batch.num.messages", "10000"}, {"queue.buffering.max.messages", "1000000"}});
    if (!producer.ok())
        return false;
    // Small values: the mock keeps at most 5 MiB per partition and drops older data.
    char buf[200];
    for (long long i = 0; i < n; ++i) {
        int len = std::snprintf(buf, sizeof buf, "{\"event_id\":%lld}", i);
        producer.send(topic, static_cast<int>(i % partitions),
                      std::string_view(buf, static_cast<std::size_t>(len)));
    }
    return producer.flush();
}

/// records_in of node `out` in a metrics file: (first, last) lines, -1 when none.
std::pair<long long, long long> sinkRecords(const std::string &path)
{
    long long first = -1, last = -1;
    for (const auto &j : readJsonLines(path)) {
        if (j.value("node", std::string()) != "out")
            continue;
        long long v = j.value("records_in", -1LL);
        if (first < 0)
            first = v;
        last = v;
    }
    return {first, last};
}

} // namespace

class KafkaKillTest : public QObject
{
    Q_OBJECT
private slots:
    void killNineAtRandomPoints()
    {
        const long long events = envInt("TIDELINE_KAFKA_KILL_EVENTS", 2000000);
        const int kills = static_cast<int>(envInt("TIDELINE_KAFKA_KILLS", 20));
        const unsigned seed = static_cast<unsigned>(envInt("TIDELINE_KAFKA_KILL_SEED", 7));
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string d = dir.path().toStdString();
        MockCluster mock;
        QString err = mock.start(3, {"kill:32"});
        QVERIFY2(err.isEmpty(), qPrintable(err));
        QElapsedTimer total;
        total.start();
        QVERIFY(loadEvents(mock.bootstrap, "kill", events, 32));
        qInfo("loaded %lld events into 32 partitions in %lld ms", events, total.elapsed());

        Json pipeline{
            {"format", "tideline/1"},
            {"name", "kafka-kill"},
            {"settings", {{"checkpoint", {{"interval_ms", 250}, {"dir", "ckpt"}, {"keep", 3}}}}},
            {"nodes",
             Json::array(
                 {Json{{"id", "src"},
                       {"kind", "source.kafka"},
                       {"params",
                        {{"bootstrap_servers", mock.bootstrap.toStdString()},
                         {"topic", "kill"},
                         {"group_id", "g-kill"},
                         {"bounded", true}}}},
                  Json{{"id", "out"},
                       {"kind", "sink.upsert"},
                       {"params", {{"path", "table"}, {"key", Json::array({"event_id"})}}}}})},
            {"edges", Json::array({Json{{"from", "src.out"}, {"to", "out.in"}}})}};
        {
            std::ofstream f(d + "/pipeline.json");
            f << pipeline.dump(2);
        }
        const QString runner = QStringLiteral(TIDELINE_BINARY_DIR "/app/runner/tideline-run");
        std::mt19937 rng(seed);
        // Short enough that every kill lands before the run can finish, also on an idle machine
        // (2M events; a run only keeps what its checkpoints, every 250 ms, made durable).
        std::uniform_int_distribution<int> delay(
            150, static_cast<int>(envInt("TIDELINE_KAFKA_KILL_MAX_DELAY_MS", 600)));

        int killed = 0, midStream = 0, brokerCycles = 0;
        long long redeliveries = 0;
        long long prevLast = -1;
        bool finished = false;
        bool brokerIsDown = false;
        for (int run = 0; run <= kills && !finished; ++run) {
            QProcess p;
            std::string metrics = d + "/metrics-" + std::to_string(run) + ".jsonl";
            p.setProcessChannelMode(QProcess::MergedChannels);
            p.start(runner, {QString::fromStdString(d + "/pipeline.json"), "--metrics",
                             QString::fromStdString(metrics), "--metrics-interval", "50"});
            QVERIFY(p.waitForStarted(5000));
            if (brokerIsDown) {
                // Broker 2 went down with the last kill; back while this run starts up.
                QTest::qWait(1000);
                QCOMPARE(mock.command("up 2"), QString("ok"));
                brokerIsDown = false;
                ++brokerCycles;
            }
            if (run == kills) {
                // Last run: to the end.
                QVERIFY2(p.waitForFinished(600000), "final run did not finish");
                QString out = p.readAll();
                QVERIFY2(p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0,
                         qPrintable(out));
                finished = true;
            } else {
                int ms = delay(rng);
                if (p.waitForFinished(ms)) {
                    QString out = p.readAll();
                    QVERIFY2(p.exitCode() == 0, qPrintable(out));
                    finished = true; // ended before this kill point
                } else {
                    ::kill(static_cast<pid_t>(p.processId()), SIGKILL);
                    p.waitForFinished(5000);
                    ++killed;
                    if (killed % 5 == 0) {
                        QCOMPARE(mock.command("down 2"), QString("ok"));
                        brokerIsDown = true;
                    }
                }
            }
            auto [first, last] = sinkRecords(metrics);
            if (prevLast >= 0 && first >= 0 && prevLast > first)
                redeliveries += prevLast - first; // processed again after the restore
            if (!finished && last > 0 && last < events)
                ++midStream;
            prevLast = last;
        }
        if (!finished) {
            mock.command("up 2");
            QFAIL("the run never finished");
        }
        QVERIFY(mock.command("up 2").startsWith("ok"));

        std::ostringstream rows;
        std::string error;
        QVERIFY2(tideline::dumpUpsertTable(d + "/table", rows, error), error.c_str());
        std::set<long long> seen;
        long long rowCount = 0, dupRows = 0;
        std::istringstream in(rows.str());
        std::string line;
        while (std::getline(in, line)) {
            if (line.empty())
                continue;
            ++rowCount;
            if (!seen.insert(Json::parse(line)["event_id"].get<long long>()).second)
                ++dupRows;
        }
        long long lost = 0;
        for (long long i = 0; i < events; ++i)
            lost += seen.count(i) ? 0 : 1;
        qInfo("%d kills (%d mid-stream), %d broker down/up cycles, %lld events: %lld rows, %lld "
              "lost, "
              "%lld duplicate rows, at least %lld redeliveries absorbed, %lld ms",
              killed, midStream, brokerCycles, events, rowCount, lost, dupRows, redeliveries,
              total.elapsed());
        QCOMPARE(lost, 0LL);
        QCOMPARE(dupRows, 0LL);
        QCOMPARE(rowCount, events);
        QVERIFY2(killed >= kills * 3 / 4, qPrintable(QString("only %1 kills landed").arg(killed)));
        QVERIFY2(redeliveries > 0, "no replay observed: the kills did not exercise recovery");
    }
};

QTEST_GUILESS_MAIN(KafkaKillTest)
#include "test_kafka_kill.moc"
