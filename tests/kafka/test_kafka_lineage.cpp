// Lineage with partition tasks (issue 16, item 4): an unbounded source.kafka whose watermark
// and keyed window run as one instance per partition ("w#p2") is traced. Every record read is
// traceable, every answer names the pipeline's nodes (not the instances), a window row lists
// exactly the records its partition's pane counted, and the run says in words what lineage
// cannot follow (another member's records). Against librdkafka's mock cluster.

#include "kafka_harness.hpp"

#include <tideline/engine/lineage.hpp>

#include <QtTest>

#include <set>

using namespace tideline;
using namespace kafkatest;

namespace {

Json node(const std::string &id, const std::string &kind, Json params = Json::object())
{
    return Json{{"id", id}, {"kind", kind}, {"params", std::move(params)}};
}
Json edge(const std::string &from, const std::string &to)
{
    return Json{{"from", from}, {"to", to}};
}

} // namespace

class KafkaLineageTest : public QObject
{
    Q_OBJECT
    MockCluster m_mock;
    QTemporaryDir m_dir;

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QString err = m_mock.start(1, {"lin:4"});
        QVERIFY2(err.isEmpty(), qPrintable(err));
    }

    void partitionTasksAreTraced()
    {
        // 400 events keyed k<i> (spread over the 4 partitions), 7 users, 10 ms apart.
        QByteArray lines;
        for (int i = 0; i < 400; ++i)
            lines += "k" + QByteArray::number(i) + "\t{\"event_id\":" + QByteArray::number(i)
                     + ",\"user\":\"u" + QByteArray::number(i % 7)
                     + "\",\"t\":" + QByteArray::number(1700000000000LL + i * 10) + "}\n";
        QString err;
        QVERIFY2(kcatProduce(m_mock.bootstrap, "lin", lines, -1, true, &err), qPrintable(err));
        Json j{{"format", "tideline/1"},
               {"name", "kafka-lineage"},
               {"nodes",
                Json::array(
                    {node("src", "source.kafka",
                          {{"bootstrap_servers", m_mock.bootstrap.toStdString()},
                           {"topic", "lin"},
                           {"group_id", "g-lin"}}),
                     node("wm", "watermark", {{"time_field", "t"}, {"max_out_of_orderness_ms", 0}}),
                     node("w", "window",
                          {{"type", "tumbling"},
                           {"size_ms", 1000},
                           {"key", Json::array({"user"})},
                           {"aggregates", Json::array({{{"op", "count"}, {"as", "n"}}})}}),
                     node("out", "sink.file", {{"path", "out.jsonl"}})})},
               {"edges", Json::array({edge("src.out", "wm.in"), edge("wm.out", "w.in"),
                                      edge("w.out", "out.in")})}};
        std::string problems;
        PipelineSpec spec = specFrom(j, &problems);
        QVERIFY2(problems.empty(), problems.c_str());
        JobOptions o;
        o.baseDir = m_dir.path().toStdString();
        o.lineage.enabled = true;
        std::vector<std::string> logged;
        o.log = [&logged](const std::string &line) {
            logged.push_back(line);
        };
        std::string error;
        auto job = Job::create(spec, o, error);
        QVERIFY2(job, error.c_str());
        QVERIFY(job->lineage()); // (it used to be switched off here)
        QElapsedTimer t;
        t.start();
        while (t.elapsed() < 30000 && job->snapshot().recordsRead < 400) {
            QCOMPARE(job->runFor(50), Job::Status::Running);
            job->publishMetrics();
            QTest::qWait(2);
        }
        QCOMPARE(job->snapshot().recordsRead, std::int64_t{400});
        QVERIFY(job->snapshot().node("src")->partitions == 4);
        bool said = false;
        for (const auto &l : logged)
            said = said || l.find("lineage with partition tasks") != std::string::npos;
        QVERIFY(said);

        const auto all = lineage::explainAll(*job->lineage());
        QCOMPARE(all.inputs.size(), std::size_t{400});
        for (const auto &in : all.inputs) {
            bool atWindow = false;
            for (const auto &s : in.path) {
                QVERIFY2(s.node.find('#') == std::string::npos, s.node.c_str()); // not "w#p2"
                atWindow = atWindow || s.node == "w";
            }
            QVERIFY2(atWindow, in.record.c_str());
        }
        // Window rows (the first seconds have fired): each lists exactly the records its pane
        // counted, all of its user and inside its window.
        QVERIFY(all.outputs.size() >= 7);
        for (const auto &row : all.outputs) {
            const Json r = Json::parse(row.record);
            QVERIFY2(row.madeBy.find("window `w`") != std::string::npos, row.madeBy.c_str());
            QCOMPARE(static_cast<std::int64_t>(row.inputs.size()), r["n"].get<std::int64_t>());
            std::set<int> partitions;
            for (std::uint64_t id : row.inputs)
                for (const auto &in : all.inputs)
                    if (in.id == id) {
                        const Json rec = Json::parse(in.record);
                        QCOMPARE(rec["user"], r["user"]);
                        QVERIFY(rec["t"].get<std::int64_t>()
                                >= r["window_start"].get<std::int64_t>());
                        QVERIFY(rec["t"].get<std::int64_t>() < r["window_end"].get<std::int64_t>());
                        partitions.insert(rec["_kafka"]["partition"].get<int>());
                    }
            QCOMPARE(partitions.size(), std::size_t{1}); // one partition's pane
        }
        job->requestStop();
        job->run();
    }
};

QTEST_GUILESS_MAIN(KafkaLineageTest)
#include "test_kafka_lineage.moc"
