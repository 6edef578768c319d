// Issue 19: a Kafka pipeline recorded from the mock cluster (tideline-run --record) replays
// without Kafka (the cluster is gone) to byte-identical outputs, twice, equal to the live
// run's: a bounded read whose idle partition (no records) goes idle after idle_timeout_ms
// while the partitions with records left never do. The recording keeps each message's
// partition, offset, key, timestamp and headers, and a message that is not JSON replays to
// `errors` as it did live.

#include "kafka_harness.hpp"

#include <tideline/engine/recording.hpp>

#include <QDir>
#include <QtTest>

#include <fstream>
#include <set>
#include <sstream>

using namespace kafkatest;

namespace {

std::string slurp(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

int runner(const QStringList &args, QString &err)
{
    QProcess p;
    p.start(TIDELINE_RUN_EXE, args);
    p.waitForFinished(120000);
    err = QString::fromUtf8(p.readAllStandardError());
    return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
}

const char *kPipeline = R"({"format":"tideline/1","name":"krr","nodes":[
  {"id":"src","kind":"source.kafka","params":{"bootstrap_servers":"BOOTSTRAP","topic":"rr",
     "group_id":"rr-test","bounded":true}},
  {"id":"wm","kind":"watermark","params":{"time_field":"t","max_out_of_orderness_ms":0,
     "idle_timeout_ms":30}},
  {"id":"w","kind":"window","params":{"type":"tumbling","size_ms":100,"key":["k"],
     "aggregates":[{"op":"count","as":"n"}]}},
  {"id":"out","kind":"sink.file","params":{"path":"out/w.jsonl"}},
  {"id":"late","kind":"sink.file","params":{"path":"out/late.jsonl"}},
  {"id":"bad","kind":"sink.file","params":{"path":"out/bad.jsonl"}}],
 "edges":[{"from":"src.out","to":"wm.in"},{"from":"wm.out","to":"w.in"},
  {"from":"w.out","to":"out.in"},{"from":"w.late","to":"late.in"},
  {"from":"src.errors","to":"bad.in"}]})";

} // namespace

class KafkaRecordReplayTest : public QObject
{
    Q_OBJECT

private slots:
    void recordedTopicReplaysWithoutKafka()
    {
        QTemporaryDir tmp;
        const std::string dir = tmp.path().toStdString();
        MockCluster mock;
        QString err = mock.start(1, {"rr:3"});
        QVERIFY2(err.isEmpty(), qPrintable(err));
        // Partitions 0 and 1 get records (keyed; partition 1 with a header), partition 2 none.
        QByteArray p0, p1;
        for (int i = 0; i < 300; ++i) {
            p0 += "k" + QByteArray::number(i % 3) + "\t{\"k\":" + QByteArray::number(i % 3)
                  + ",\"t\":" + QByteArray::number(1000 + i * 7) + "}\n";
            p1 += "k9\t{\"k\":9,\"t\":" + QByteArray::number(1000 + i * 5) + "}\n";
        }
        p0 += "kx\tnot json\n";
        QVERIFY2(kcatProduce(mock.bootstrap, "rr", p0, 0, true, &err), qPrintable(err));
        {
            QProcess k; // kcat with a header on every message of partition 1
            k.start("kcat", {"-P", "-b", mock.bootstrap, "-t", "rr", "-p", "1", "-K", "\t", "-H",
                             "trace=abc", "-q"});
            QVERIFY(k.waitForStarted(5000));
            k.write(p1);
            k.closeWriteChannel();
            QVERIFY(k.waitForFinished(60000) && k.exitCode() == 0);
        }
        std::string pipeline = kPipeline;
        pipeline.replace(pipeline.find("BOOTSTRAP"), 9, mock.bootstrap.toStdString());
        std::ofstream(dir + "/p.json") << pipeline;
        const QString p = QString::fromStdString(dir + "/p.json");
        const QString rec = QString::fromStdString(dir + "/rec");
        QVERIFY2(runner({"--record", rec, p}, err) == 0, qPrintable(err));
        const std::string liveW = slurp(dir + "/out/w.jsonl");
        const std::string liveLate = slurp(dir + "/out/late.jsonl");
        const std::string liveBad = slurp(dir + "/out/bad.jsonl");
        QVERIFY(!liveW.empty());
        QVERIFY(liveBad.find("not json") != std::string::npos);
        mock.stop(); // the replays run without Kafka

        std::string error;
        auto reader = tideline::recording::Reader::open(rec.toStdString(), error);
        QVERIFY2(reader, error.c_str());
        QCOMPARE(reader->info().manifest.sources.at(0).partitions, 3);
        QCOMPARE(reader->info().manifest.records, std::int64_t(601));
        tideline::recording::Entry e;
        int withHeader = 0, keyed = 0, timestamped = 0;
        std::set<std::int32_t> parts;
        while (reader->next(e)) {
            if (e.end)
                continue;
            parts.insert(e.partition.value_or(-1));
            QVERIFY(e.offset.has_value());
            keyed += e.key.has_value();
            timestamped += e.timestamp.has_value();
            if (e.partition == 1) {
                QCOMPARE(e.headers.size(), std::size_t(1));
                QCOMPARE(e.headers[0].first, std::string("trace"));
                QCOMPARE(e.headers[0].second, std::string("abc"));
                ++withHeader;
            }
        }
        QVERIFY2(reader->error().empty(), reader->error().c_str());
        QCOMPARE(parts, (std::set<std::int32_t>{0, 1}));
        QCOMPARE(keyed, 601);
        QCOMPARE(timestamped, 601);
        QCOMPARE(withHeader, 300);

        for (int run = 0; run < 2; ++run) {
            QDir(QString::fromStdString(dir + "/out")).removeRecursively();
            QVERIFY2(runner({"--replay", rec, p}, err) == 0, qPrintable(err));
            QCOMPARE(slurp(dir + "/out/w.jsonl"), liveW);
            QCOMPARE(slurp(dir + "/out/late.jsonl"), liveLate);
            QCOMPARE(slurp(dir + "/out/bad.jsonl"), liveBad);
        }
    }

    // An unbounded read (a consumer group, partition tasks) stopped by --record-max-records:
    // the replay assigns the recorded partitions to its tasks, stops where the recording
    // ends, and gives the same outputs twice.
    void unboundedGroupReadReplaysTwiceAlike()
    {
        QTemporaryDir tmp;
        const std::string dir = tmp.path().toStdString();
        MockCluster mock;
        QString err = mock.start(1, {"rr:3"});
        QVERIFY2(err.isEmpty(), qPrintable(err));
        for (int p = 0; p < 2; ++p) {
            QByteArray b;
            for (int i = 0; i < 200; ++i)
                b += "k" + QByteArray::number(p) + "\t{\"k\":" + QByteArray::number(p)
                     + ",\"t\":" + QByteArray::number(1000 + i * (p + 3)) + "}\n";
            QVERIFY2(kcatProduce(mock.bootstrap, "rr", b, p, true, &err), qPrintable(err));
        }
        std::string pipeline = kPipeline;
        pipeline.replace(pipeline.find("BOOTSTRAP"), 9, mock.bootstrap.toStdString());
        pipeline.replace(pipeline.find("\"bounded\":true"), 14, "\"bounded\":false");
        std::ofstream(dir + "/p.json") << pipeline;
        const QString p = QString::fromStdString(dir + "/p.json");
        const QString rec = QString::fromStdString(dir + "/rec");
        QVERIFY2(runner({"--record", rec, "--record-max-records", "300", p}, err) == 0,
                 qPrintable(err));
        mock.stop();
        std::string error;
        auto reader = tideline::recording::Reader::open(rec.toStdString(), error);
        QVERIFY2(reader, error.c_str());
        QCOMPARE(reader->info().manifest.records, std::int64_t(300));
        QCOMPARE(reader->info().manifest.stoppedBy, std::string("max records"));
        std::string first;
        for (int run = 0; run < 2; ++run) {
            QDir(QString::fromStdString(dir + "/out")).removeRecursively();
            QVERIFY2(runner({"--replay", rec, p}, err) == 0, qPrintable(err));
            QVERIFY2(err.contains("stopping the replay"), qPrintable(err));
            const std::string out = slurp(dir + "/out/w.jsonl") + slurp(dir + "/out/late.jsonl");
            if (run == 0)
                first = out;
            else
                QCOMPARE(out, first);
        }
        QVERIFY(!first.empty());
    }
};

QTEST_GUILESS_MAIN(KafkaRecordReplayTest)
#include "test_kafka_record_replay.moc"
