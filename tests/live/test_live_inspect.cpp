// Inspectors of the live mode: the Kafka source inspector (per-partition table fed through the
// same conversion the live run uses, and a real run against the mock cluster), the
// partition-count helper, the savepoint action with the checkpoint history view, and the canvas
// keeping live labels inside a fitted view.

#include "convert.hpp"
#include "engine_bridge.hpp"
#include "graph/graph_scene.hpp"
#include "graph/graph_view.hpp"
#include "inspect/node_inspector.hpp"
#include "kafka_inspector.hpp"
#include "live/canvas_overlay.hpp"
#include "live/checkpoint_history_view.hpp"
#include "live/kafka_source_panel.hpp"
#include "live/live_charts.hpp"
#include "live/live_history.hpp"
#include "live/partition_count_helper.hpp"
#include "live/watermark_why_panel.hpp"
#include "live_views.hpp"
#include "main_window.hpp"
#include "pipeline_document.hpp"
#include "pipeline_folder_copy.hpp"

#include <tideline/observe/metrics.hpp>

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QDirIterator>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QFile>
#include <QGraphicsItem>
#include <QLabel>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace tideline::designer;
namespace observe = tideline::observe;
namespace L = tideline::live;
using State = live::EngineBridge::State;

namespace {

const char *kKafkaPipeline = R"({"format":"tideline/1","name":"orders-per-minute",
 "nodes":[
  {"id":"orders","kind":"source.kafka","params":{"bootstrap_servers":"BOOTSTRAP","topic":"orders",
    "group_id":"designer-test","start":"earliest"},"ui":{"x":0,"y":80}},
  {"id":"valid","kind":"filter","params":{"expr":"amount > 0"},"ui":{"x":260,"y":80}},
  {"id":"wm","kind":"watermark","params":{"time_field":"ts","max_out_of_orderness_ms":0,
    "idle_timeout_ms":300},"ui":{"x":520,"y":80}},
  {"id":"out","kind":"sink.discard","params":{},"ui":{"x":780,"y":80}}],
 "edges":[{"from":"orders.out","to":"valid.in"},{"from":"valid.out","to":"wm.in"},
          {"from":"wm.out","to":"out.in"}]})";

QString kafkaPipeline(const QString &bootstrap)
{
    return QString::fromLatin1(kKafkaPipeline).replace(QStringLiteral("BOOTSTRAP"), bootstrap);
}

observe::InputWatermark part(int p,
                             std::optional<std::int64_t> w,
                             bool idle,
                             std::int64_t lag,
                             std::int64_t idleSince = 0,
                             std::int64_t lastActivity = 0)
{
    observe::InputWatermark in;
    in.name = "partition " + std::to_string(p);
    in.watermark = w;
    in.idle = idle;
    in.idleSinceMs = idleSince;
    in.lastActivityMs = lastActivity;
    in.lag = lag;
    return in;
}

/// What the engine publishes for source.kafka -> filter -> watermark with 4 partitions of which
/// this process reads 0, 1 and 2 (partition 3 belongs to another member of the group).
observe::MetricsSnapshot fakeKafkaSnapshot(std::int64_t now, std::int64_t recordsOut)
{
    observe::MetricsSnapshot s;
    s.startedAtMs = 1'000'000;
    s.takenAtMs = now;
    s.state = observe::JobState::Running;
    observe::NodeMetrics src;
    src.node = "orders";
    src.kind = "source.kafka";
    src.recordsOut = recordsOut;
    src.stateEntries = 3;
    // The source knows lag and activity (no watermark, no idleness).
    src.inputs = {part(0, std::nullopt, false, 5, 0, now - 100),
                  part(1, std::nullopt, false, 0, 0, now - 200),
                  part(2, std::nullopt, false, 120, 0, now - 4000)};
    observe::NodeMetrics filter;
    filter.node = "valid";
    filter.kind = "filter";
    observe::NodeMetrics wm;
    wm.node = "wm";
    wm.kind = "watermark";
    // The watermark node knows every partition's watermark and idleness.
    wm.inputs = {part(0, 1'714'557'605'000, false, 0, 0, now - 100),
                 part(1, 1'714'557'602'500, false, 0, 0, now - 200),
                 part(2, 1'714'557'601'000, true, 0, now - 2000, now - 4000),
                 part(3, std::nullopt, true, 0, now - 3000, 0)};
    wm.inputs[3].assigned = false; // another member of the group owns it
    wm.watermark = 1'714'557'602'500;
    observe::NodeMetrics out;
    out.node = "out";
    out.kind = "sink.discard";
    s.nodes = {src, filter, wm, out};
    return s;
}

QString cell(QTableWidget *t, int row, int col)
{
    auto *item = t->item(row, col);
    return item ? item->text() : QStringLiteral("<none>");
}

/// The Kafka mock cluster in its own process (tools/kafka-mock), as the Kafka tests use it.
class Mock
{
public:
    ~Mock()
    {
        if (m_proc.state() != QProcess::NotRunning) {
            m_proc.write("quit\n");
            m_proc.closeWriteChannel();
            if (!m_proc.waitForFinished(5000))
                m_proc.kill();
            m_proc.waitForFinished(2000);
        }
    }
    QString start(const QString &topic)
    {
        m_proc.start(
            QStringLiteral(TIDELINE_BINARY_DIR "/tools/kafka-mock/tideline-kafka-mock"),
            {QStringLiteral("--brokers"), QStringLiteral("1"), QStringLiteral("--topic"), topic});
        if (!m_proc.waitForStarted(5000))
            return m_proc.errorString();
        QElapsedTimer t;
        t.start();
        while (!m_proc.canReadLine() && t.elapsed() < 10000)
            m_proc.waitForReadyRead(100);
        const QString line = QString::fromUtf8(m_proc.readLine()).trimmed();
        if (!line.startsWith(QLatin1String("bootstrap ")))
            return QStringLiteral("no bootstrap line: ") + line;
        bootstrap = line.mid(10);
        return {};
    }
    QString bootstrap;

private:
    QProcess m_proc;
};

bool kcatProduce(const QString &bootstrap,
                 const QString &topic,
                 int partition,
                 const QByteArray &lines)
{
    QProcess p;
    p.start(QStringLiteral("kcat"),
            {"-P", "-b", bootstrap, "-t", topic, "-p", QString::number(partition), "-q"});
    if (!p.waitForStarted(5000))
        return false;
    p.write(lines);
    p.closeWriteChannel();
    return p.waitForFinished(60000) && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
}

} // namespace

class TestLiveInspect : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
    void partitionCountFormula();
    void partitionCountHelperWidget();
    void kafkaInspectorFromEngineSnapshot();
    void whyPanelNamesPartitionsOfOtherMembers();
    void kafkaInspectorAgainstMockCluster();
    void savepointActionAndCheckpointHistory();
    void checkpointHistoryShowsFailureCause();
    void fittedCanvasKeepsLiveLabelsInside();
};

void TestLiveInspect::partitionCountFormula()
{
    QCOMPARE(L::partitionsNeeded(50000, 10000, 1), 5);
    QCOMPARE(L::partitionsNeeded(50001, 10000, 1), 6);
    QCOMPARE(L::partitionsNeeded(10000, 10000, 8), 8); // consumers decide
    QCOMPARE(L::partitionsNeeded(0, 10000, 3), 3);
    QCOMPARE(L::partitionsNeeded(0, 0, 0), 1); // a topic has at least one partition
    QCOMPARE(L::partitionsNeeded(2.5e6, 7000, 12), 358);
    QCOMPARE(L::partitionsNeeded(100, 0, 2), 2); // unknown per-partition rate
}

void TestLiveInspect::partitionCountHelperWidget()
{
    L::PartitionCountHelper h;
    h.throughputBox()->setValue(45000);
    h.perPartitionBox()->setValue(10000);
    h.consumersBox()->setValue(2);
    QCOMPARE(h.result(), 5);
    QVERIFY2(h.explanation().contains(QStringLiteral("max(5, 2)")), qPrintable(h.explanation()));
    QVERIFY(h.resultText().contains(QStringLiteral("5 partition")));
    h.consumersBox()->setValue(9);
    QCOMPARE(h.result(), 9);
    QVERIFY(h.explanation().contains(QStringLiteral("consumers decide")));
    // The limit is stated.
    auto *limit = h.findChild<QLabel *>(QStringLiteral("helperLimit"));
    QVERIFY(limit && limit->text().contains(QStringLiteral("Parallelism ≤ partitions")));
    // While running: the topic's partition count and the measured rate.
    auto *current = h.findChild<QLabel *>(QStringLiteral("helperCurrent"));
    QVERIFY(current);
    h.setCurrentPartitions(4);
    QVERIFY(current->text().contains(QStringLiteral("4 partitions")));
    QVERIFY(current->text().contains(QStringLiteral("5 fewer than needed")));
    QVERIFY(!h.useMeasuredButton()->isEnabled());
    h.setMeasuredRate(61234.4);
    QVERIFY(h.useMeasuredButton()->isEnabled());
    h.useMeasuredButton()->click();
    QCOMPARE(h.throughputBox()->value(), 61234.0);
    QCOMPARE(h.result(), 9);
    h.consumersBox()->setValue(1);
    QCOMPARE(h.result(), 7); // ceil(61234 / 10000)
}

void TestLiveInspect::kafkaInspectorFromEngineSnapshot()
{
    MainWindow w;
    auto *liveViews = installLiveViews(w);
    w.resize(1400, 900);
    QString error;
    QVERIFY2(w.document().openText(kafkaPipeline(QStringLiteral("127.0.0.1:9")).toStdString(),
                                   QString(), &error),
             qPrintable(error));
    auto *kafka = liveViews->kafkaInspector();
    auto *panel = kafka->panel();
    // Design time: the helper is there, the table waits for a run.
    w.scene()->selectNodes({QStringLiteral("orders")});
    QVERIFY(panel->isVisibleTo(w.inspector()));
    QVERIFY(panel->statusText().contains(QStringLiteral("Run the pipeline")));
    QCOMPARE(panel->table()->rowCount(), 0);

    // The run's path: engine snapshot -> toLive() -> history (rates) -> inspector.
    const auto &spec = w.document().spec();
    kafka->setRun(live::nodeInfos(spec), live::edgeInfos(spec));
    L::LiveHistory history;
    L::Snapshot first = live::toLive(fakeKafkaSnapshot(2'000'000, 1000));
    history.append(first);
    L::Snapshot s = live::toLive(fakeKafkaSnapshot(2'001'000, 3000));
    history.append(s);
    kafka->update(s);

    QTableWidget *t = panel->table();
    QCOMPARE(t->rowCount(), 4);
    for (int i = 0; i < 4; ++i)
        QCOMPARE(cell(t, i, L::KafkaSourcePanel::Partition), QString::number(i));
    // Watermarks from the watermark node (two nodes downstream, through the filter).
    QCOMPARE(cell(t, 0, L::KafkaSourcePanel::Watermark), QStringLiteral("10:00:05.000"));
    // Partition 1 holds the minimum of the active partitions.
    QVERIFY2(cell(t, 1, L::KafkaSourcePanel::Watermark).startsWith(QStringLiteral("10:00:02.500")),
             qPrintable(cell(t, 1, L::KafkaSourcePanel::Watermark)));
    QVERIFY(cell(t, 1, L::KafkaSourcePanel::Watermark).contains(QStringLiteral("min")));
    QVERIFY(t->item(1, L::KafkaSourcePanel::Watermark)->font().bold());
    QVERIFY(!cell(t, 2, L::KafkaSourcePanel::Watermark).contains(QStringLiteral("min")));
    // Another member's partition has no watermark in this process.
    QCOMPARE(cell(t, 3, L::KafkaSourcePanel::Watermark), QStringLiteral("—"));
    // Lag from the source.
    QCOMPARE(cell(t, 0, L::KafkaSourcePanel::Lag), QStringLiteral("5"));
    QCOMPARE(cell(t, 2, L::KafkaSourcePanel::Lag), QStringLiteral("120"));
    QCOMPARE(cell(t, 3, L::KafkaSourcePanel::Lag), QStringLiteral("—"));
    // Idle state.
    QCOMPARE(cell(t, 0, L::KafkaSourcePanel::State), QStringLiteral("active"));
    QCOMPARE(cell(t, 2, L::KafkaSourcePanel::State), QStringLiteral("idle 2 s"));
    QCOMPARE(cell(t, 3, L::KafkaSourcePanel::State), QStringLiteral("other member"));
    QCOMPARE(cell(t, 2, L::KafkaSourcePanel::LastRecord), QStringLiteral("4 s ago"));
    QCOMPARE(cell(t, 3, L::KafkaSourcePanel::LastRecord), QStringLiteral("none yet"));
    QVERIFY2(panel->statusText().contains(QStringLiteral("4 partitions")),
             qPrintable(panel->statusText()));
    QVERIFY(panel->statusText().contains(QStringLiteral("3 read by this run")));
    QVERIFY(panel->statusText().contains(QStringLiteral("total lag 125")));
    QVERIFY(panel->statusText().contains(QStringLiteral("“wm”")));
    // 2000 records in one second: the helper offers the measured rate.
    QVERIFY(panel->helper()->useMeasuredButton()->isEnabled());
    panel->helper()->useMeasuredButton()->click();
    QCOMPARE(panel->helper()->throughputBox()->value(), 2000.0);

    // Live: a later snapshot changes the rows in place.
    auto later = fakeKafkaSnapshot(2'002'000, 5000);
    later.nodes[0].inputs[2].lag = 0;
    later.nodes[2].inputs[2].idle = false;
    L::Snapshot s2 = live::toLive(later);
    history.append(s2);
    kafka->update(s2);
    QCOMPARE(cell(t, 2, L::KafkaSourcePanel::Lag), QStringLiteral("0"));
    QCOMPARE(cell(t, 2, L::KafkaSourcePanel::State), QStringLiteral("active"));
    // Partition 2 is active again and now holds the minimum.
    QVERIFY(cell(t, 2, L::KafkaSourcePanel::Watermark).contains(QStringLiteral("min")));

    // Another node: the panel goes away; back to the source: it returns.
    w.scene()->selectNodes({QStringLiteral("wm")});
    QVERIFY(!panel->isVisibleTo(w.inspector()));
    w.scene()->selectNodes({QStringLiteral("orders")});
    QVERIFY(panel->isVisibleTo(w.inspector()));

    // Without a watermark node downstream there is nothing to show per partition but lag.
    QCOMPARE(live::downstreamWatermarkNode(live::nodeInfos(spec), live::edgeInfos(spec),
                                           QStringLiteral("orders")),
             QStringLiteral("wm"));
    QCOMPARE(live::downstreamWatermarkNode(live::nodeInfos(spec), {}, QStringLiteral("orders")),
             QString());
}

void TestLiveInspect::whyPanelNamesPartitionsOfOtherMembers()
{
    // A consumer group member: the engine lists every partition of the watermark node and
    // marks those another member owns; they are not in this process's minimum.
    const qint64 now = 2'000'000;
    L::Snapshot s = live::toLive(fakeKafkaSnapshot(now, 1000));
    const L::NodeFigures *wm = s.node(QStringLiteral("wm"));
    QVERIFY(wm);
    L::WatermarkWhyPanel panel;
    panel.showNode(wm, nullptr, now);
    QTableWidget *t = panel.table();
    QCOMPARE(t->rowCount(), 4);
    QCOMPARE(t->item(3, 3)->text(), QStringLiteral("owned by another member of the group"));
    QVERIFY(t->item(1, 0)->text().contains(QStringLiteral("min"))); // partition 1 holds it
    QVERIFY2(panel.explanation().contains(QStringLiteral("another member of the consumer group")),
             qPrintable(panel.explanation()));
}

void TestLiveInspect::kafkaInspectorAgainstMockCluster()
{
    if (QStandardPaths::findExecutable(QStringLiteral("kcat")).isEmpty())
        QSKIP("kcat is not installed");
    if (!QFile::exists(QStringLiteral(TIDELINE_BINARY_DIR "/tools/kafka-mock/tideline-kafka-mock")))
        QSKIP("tideline-kafka-mock is not built in this build folder");
    Mock mock;
    const QString problem = mock.start(QStringLiteral("orders:4"));
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    // Partitions 0..2 get 40 records each; partition 3 stays empty (idle).
    for (int p = 0; p < 3; ++p) {
        QByteArray lines;
        for (int i = 0; i < 40; ++i)
            lines += QStringLiteral("{\"ts\":%1,\"amount\":%2}\n")
                         .arg(1714557600000LL + p * 1000 + i * 100)
                         .arg(i + 1)
                         .toUtf8();
        QVERIFY(kcatProduce(mock.bootstrap, QStringLiteral("orders"), p, lines));
    }

    QTemporaryDir dir;
    MainWindow w;
    auto *liveViews = installLiveViews(w);
    w.resize(1400, 900);
    const QString path = dir.filePath(QStringLiteral("orders.json"));
    {
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(kafkaPipeline(mock.bootstrap).toUtf8());
    }
    QVERIFY(w.openPath(path));
    QCOMPARE(w.document().errorCount(), 0);
    QString error;
    QVERIFY2(liveViews->startRun(false, &error), qPrintable(error));
    w.scene()->selectNodes({QStringLiteral("orders")});
    auto *bridge = liveViews->bridge();
    auto *t = liveViews->kafkaInspector()->panel()->table();
    // Every record read, and the empty partition idle after idle_timeout_ms (300 ms).
    QTRY_VERIFY_WITH_TIMEOUT(
        (liveViews->onFrame(), bridge->snapshot().recordsRead == 120 && t->rowCount() == 4
                                   && cell(t, 3, L::KafkaSourcePanel::State).startsWith("idle")),
        30000);
    for (int p = 0; p < 3; ++p) {
        QCOMPARE(cell(t, p, L::KafkaSourcePanel::Lag), QStringLiteral("0"));
        // Newest ts of partition p is 1714557600000 + p*1000 + 3900; W = that - 0 - 1.
        const QString expected = QStringLiteral("10:00:0%1.899").arg(3 + p);
        QVERIFY2(cell(t, p, L::KafkaSourcePanel::Watermark).startsWith(expected),
                 qPrintable(cell(t, p, L::KafkaSourcePanel::Watermark) + " vs " + expected));
    }
    // The empty partition is this run's: no watermark yet.
    QCOMPARE(cell(t, 3, L::KafkaSourcePanel::Watermark), QStringLiteral("−∞"));
    QCOMPARE(cell(t, 3, L::KafkaSourcePanel::LastRecord), QStringLiteral("none yet"));
    // Once partitions 0..2 have been silent for 300 ms they are idle too; 3 was idle first.
    QVERIFY(liveViews->kafkaInspector()->panel()->statusText().contains(QStringLiteral(" idle")));
    // The helper knows the topic's partition count.
    auto *current = liveViews->kafkaInspector()->panel()->helper()->findChild<QLabel *>(
        QStringLiteral("helperCurrent"));
    QVERIFY(current && current->text().contains(QStringLiteral("4 partitions")));
    bridge->stop();
    QTRY_COMPARE_WITH_TIMEOUT(bridge->state(), State::Stopped, 20000);
}

void TestLiveInspect::savepointActionAndCheckpointHistory()
{
    QTemporaryDir dir;
    QVERIFY(copyPipelineFolder(
        QStringLiteral(TIDELINE_SOURCE_DIR "/tests/live/pipelines/checkpointed-sessions"),
        dir.path()));
    MainWindow w;
    auto *liveViews = installLiveViews(w);
    w.resize(1400, 900);
    QVERIFY(w.openPath(dir.filePath(QStringLiteral("pipeline.json"))));
    liveViews->paceBox()->setCurrentIndex(
        liveViews->paceBox()->findData(QStringLiteral("rps:500")));
    QAction *savepoint = liveViews->savepointAction();
    QVERIFY(!savepoint->isEnabled()); // nothing running
    QString error;
    QVERIFY(!liveViews->takeSavepoint(QStringLiteral("sp"), &error));
    QVERIFY(error.contains(QStringLiteral("Run")));

    QVERIFY2(liveViews->startRun(false, &error), qPrintable(error));
    QVERIFY(savepoint->isEnabled());
    auto *bridge = liveViews->bridge();
    // Two checkpoints (every 400 ms) first.
    QTRY_VERIFY_WITH_TIMEOUT((bridge->poll(), bridge->snapshot().checkpointHistory.size() >= 2),
                             20000);
    QSignalSpy done(liveViews, &live::LiveController::savepointFinished);
    QVERIFY2(liveViews->takeSavepoint(QStringLiteral("savepoints/first"), &error),
             qPrintable(error));
    QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 20000);
    QVERIFY2(done.at(0).at(0).toBool(), qPrintable(done.at(0).at(1).toString()));
    // Relative to the pipeline's folder, with a manifest.
    QVERIFY(QFile::exists(dir.filePath(QStringLiteral("savepoints/first/manifest.json"))));

    // Pause, then a savepoint while paused (one more record gets the loop to its tick).
    bridge->pause();
    QTRY_COMPARE_WITH_TIMEOUT(bridge->state(), State::Paused, 5000);
    QVERIFY(liveViews->takeSavepoint(dir.filePath(QStringLiteral("savepoints/paused")), &error));
    QTRY_COMPARE_WITH_TIMEOUT(done.count(), 2, 20000);
    QVERIFY2(done.at(1).at(0).toBool(), qPrintable(done.at(1).at(1).toString()));
    QVERIFY(QFile::exists(dir.filePath(QStringLiteral("savepoints/paused/manifest.json"))));
    QCOMPARE(bridge->state(), State::Paused);

    // The history view lists both savepoints among the checkpoints, newest first.
    bridge->poll();
    liveViews->onFrame();
    auto *view = liveViews->charts()->checkpointHistory();
    QTableWidget *t = view->table();
    QVERIFY(t->rowCount() >= 4);
    int savepoints = 0;
    for (int r = 0; r < t->rowCount(); ++r) {
        QCOMPARE(cell(t, r, L::CheckpointHistoryView::Status), QStringLiteral("completed"));
        QVERIFY(cell(t, r, L::CheckpointHistoryView::Size).contains(QStringLiteral("B")));
        QVERIFY(cell(t, r, L::CheckpointHistoryView::Duration).contains(QStringLiteral("s")));
        savepoints += cell(t, r, L::CheckpointHistoryView::Kind) == QLatin1String("savepoint");
        if (r > 0)
            QVERIFY(cell(t, r - 1, L::CheckpointHistoryView::Id).toLongLong()
                    > cell(t, r, L::CheckpointHistoryView::Id).toLongLong());
    }
    QCOMPARE(savepoints, 2);
    QCOMPARE(cell(t, 0, L::CheckpointHistoryView::Kind), QStringLiteral("savepoint"));
    QVERIFY(view->summary().contains(QStringLiteral("0 failed")));
    bridge->stop();
    QTRY_VERIFY_WITH_TIMEOUT(
        bridge->state() == State::Stopped || bridge->state() == State::Finished, 20000);
    QVERIFY(!savepoint->isEnabled());
}

void TestLiveInspect::checkpointHistoryShowsFailureCause()
{
    QTemporaryDir dir;
    QVERIFY(copyPipelineFolder(
        QStringLiteral(TIDELINE_SOURCE_DIR "/tests/live/pipelines/checkpointed-sessions"),
        dir.path()));
    MainWindow w;
    auto *liveViews = installLiveViews(w);
    QVERIFY(w.openPath(dir.filePath(QStringLiteral("pipeline.json"))));
    liveViews->paceBox()->setCurrentIndex(
        liveViews->paceBox()->findData(QStringLiteral("rps:200")));
    // A savepoint folder that is not empty is refused by the engine: a failed entry with cause.
    QDir().mkpath(dir.filePath(QStringLiteral("full")));
    {
        QFile f(dir.filePath(QStringLiteral("full/keep.txt")));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("x");
    }
    QString error;
    QVERIFY2(liveViews->startRun(false, &error), qPrintable(error));
    QSignalSpy done(liveViews, &live::LiveController::savepointFinished);
    QVERIFY(liveViews->takeSavepoint(QStringLiteral("full"), &error));
    QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 20000);
    QVERIFY(!done.at(0).at(0).toBool());
    QVERIFY(done.at(0).at(1).toString().contains(QStringLiteral("not empty")));
    auto *bridge = liveViews->bridge();
    bridge->poll();
    liveViews->onFrame();
    QTableWidget *t = liveViews->charts()->checkpointHistory()->table();
    int failedRow = -1;
    for (int r = 0; r < t->rowCount(); ++r)
        if (cell(t, r, L::CheckpointHistoryView::Status) == QLatin1String("failed"))
            failedRow = r;
    QVERIFY(failedRow >= 0);
    QCOMPARE(cell(t, failedRow, L::CheckpointHistoryView::Kind), QStringLiteral("savepoint"));
    QCOMPARE(cell(t, failedRow, L::CheckpointHistoryView::Cause),
             QStringLiteral("folder not empty"));
    QCOMPARE(cell(t, failedRow, L::CheckpointHistoryView::Size), QStringLiteral("—"));
    QVERIFY(liveViews->charts()->checkpointHistory()->summary().contains(
                QStringLiteral("1</span> failed"))
            || liveViews->charts()->checkpointHistory()->summary().contains(QStringLiteral(">1<")));
    bridge->stop();
    QTRY_VERIFY_WITH_TIMEOUT(
        bridge->state() == State::Stopped || bridge->state() == State::Finished, 20000);
}

void TestLiveInspect::fittedCanvasKeepsLiveLabelsInside()
{
    QTemporaryDir dir;
    QVERIFY(copyPipelineFolder(
        QStringLiteral(TIDELINE_SOURCE_DIR "/tests/live/pipelines/checkpointed-sessions"),
        dir.path()));
    MainWindow w;
    auto *liveViews = installLiveViews(w);
    w.resize(1400, 900);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(w.openPath(dir.filePath(QStringLiteral("pipeline.json"))));
    auto *view = w.view();
    QVERIFY(view->isFitted());
    liveViews->paceBox()->setCurrentIndex(
        liveViews->paceBox()->findData(QStringLiteral("rps:200")));
    QString error;
    QVERIFY2(liveViews->startRun(false, &error), qPrintable(error));
    auto labelsInside = [&] {
        const QRectF visible = view->mapToScene(view->viewport()->rect()).boundingRect();
        QRectF labels;
        for (QGraphicsItem *item : w.scene()->items())
            if (item->isVisible() && item->zValue() >= 50) // overlay labels
                labels |= item->sceneBoundingRect();
        return !labels.isEmpty() && visible.contains(labels);
    };
    QTRY_VERIFY_WITH_TIMEOUT((liveViews->onFrame(), QApplication::processEvents(), labelsInside()),
                             10000);
    // Fit to View (the action) also counts the labels.
    view->zoomBy(3.0);
    QVERIFY(!view->isFitted());
    liveViews->onFrame();
    QVERIFY(!labelsInside()); // a zoomed-in view is left alone
    w.action(QStringLiteral("View.Fit"))->trigger();
    QVERIFY(view->isFitted());
    QVERIFY(labelsInside());
    liveViews->bridge()->stop();
    QTRY_VERIFY_WITH_TIMEOUT(liveViews->bridge()->state() == State::Stopped
                                 || liveViews->bridge()->state() == State::Finished,
                             20000);
}

QTEST_MAIN(TestLiveInspect)
#include "test_live_inspect.moc"
