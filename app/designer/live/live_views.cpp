#include "live_views.hpp"

#include "catalog_adapter.hpp"
#include "document_change.hpp"
#include "engine_bridge.hpp"
#include "graph/graph_scene.hpp"
#include "graph/graph_view.hpp"
#include "kafka_inspector.hpp"
#include "live/canvas_overlay.hpp"
#include "live/late_ledger.hpp"
#include "live/live_charts.hpp"
#include "live/live_history.hpp"
#include "live/live_style.hpp"
#include "live/output_preview.hpp"
#include "live/time_text.hpp"
#include "live/watermark_why_panel.hpp"
#include "live/window_timeline_model.hpp"
#include "live/window_timeline_view.hpp"
#include "main_window.hpp"
#include "pipeline_document.hpp"
#include "postgres_inspector.hpp"
#include "replay/replay_controller.hpp"
#include "trace/trace_controller.hpp"

#include <tideline/engine/catalog.hpp>

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDateTime>
#include <QDir>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QInputDialog>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QStatusBar>
#include <QStyle>
#include <QTableView>
#include <QTableWidget>
#include <QTimer>
#include <QToolBar>

#include <limits>

namespace tideline::designer {

namespace L = tideline::live;

namespace live {

LiveController::LiveController(MainWindow &window)
    : QObject(&window)
    , m_window(window)
    , m_bridge(new EngineBridge(this))
    , m_history(std::make_unique<L::LiveHistory>())
{
    setObjectName(QStringLiteral("liveController"));
    m_overlay = new L::CanvasOverlay(window.scene(), this);
    m_kafka = new KafkaInspector(window.inspector(), this);
    m_postgres = new PostgresInspector(window.inspector(), this);
    m_postgres->setLookup(
        [this](const std::string &id) { return m_window.document().spec().node(id); });
    buildToolbar();
    buildDocks();
    connect(m_bridge, &EngineBridge::frame, this, &LiveController::onFrame);
    connect(m_bridge, &EngineBridge::stateChanged, this, &LiveController::onStateChanged);
    connect(m_bridge, &EngineBridge::savepointFinished, this,
            [this](bool ok, const QString &message, const QString &dir) {
                const QString pipeline = m_window.document().filePath();
                m_window.statusBar()->showMessage(
                    ok ? tr("Savepoint written to %1 — resume with: tideline-run %2 --restore %1")
                             .arg(dir, pipeline.isEmpty() ? tr("PIPELINE.json") : pipeline)
                       : tr("Savepoint failed: %1").arg(message),
                    15000);
                Q_EMIT savepointFinished(ok, message);
            });
    connect(window.scene(), &QGraphicsScene::selectionChanged, this,
            &LiveController::onSelectionChanged);
    connect(&window.document(), &PipelineDocument::changed, this,
            &LiveController::onDocumentChanged);
    // Zoomed out, live labels grow to stay readable: lay them out again (queued: zoom changes
    // come from inside fitToContents(), itself called while laying out).
    m_overlay->setViewZoom(window.view()->zoom());
    connect(
        window.view(), &widgets::GraphView::zoomChanged, this,
        [this](qreal zoom) {
            const double before = m_overlay->labelScale();
            m_overlay->setViewZoom(zoom);
            if (m_bridge->active() && before != m_overlay->labelScale())
                refreshDocumentViews(m_zoomRefits++ < 4);
            else
                m_zoomRefits = 0;
        },
        Qt::QueuedConnection);
    connect(m_postgres, &PostgresInspector::readBack, this,
            [this](const QString &node, const QStringList &rows, const QString &status) {
                m_readsInFlight.remove(node);
                m_preview->setReadBack(L::OutputPreview::tableKey(node), rows, status);
            });
    // The table place shows what the database holds: read again while it is on screen.
    auto *readBackTimer = new QTimer(this);
    readBackTimer->setInterval(2000);
    connect(readBackTimer, &QTimer::timeout, this, [this] {
        const QString key = m_preview->currentKey();
        if (key.startsWith(QLatin1String("table:")) && m_preview->isVisible())
            readBackTable(key.mid(6));
    });
    readBackTimer->start();
    m_replay = new ReplayController(window, *this); // after the toolbar (its speed box)
    connect(m_preview, &L::OutputPreview::currentChanged, this, [this](const QString &key) {
        if (key.startsWith(QLatin1String("table:")))
            readBackTable(key.mid(6));
        if (key.startsWith(QLatin1String("edge:"))) {
            const QString rest = key.mid(5);
            const int dot = static_cast<int>(rest.lastIndexOf(QLatin1Char('.')));
            m_bridge->watchEdge(rest.left(dot), rest.mid(dot + 1));
        }
    });
    updateActions();
}

void LiveController::readBackTable(const QString &node)
{
    const NodeSpec *n = m_runSpec.node(node.toStdString());
    if (!n || n->kind != "sink.postgres" || m_readsInFlight.contains(node))
        return;
    m_readsInFlight.insert(node);
    m_postgres->readNewestRows(*n);
}

LiveController::~LiveController()
{
    m_bridge->shutdown();
}

QDockWidget *LiveController::dock(const QString &objectName) const
{
    for (auto *d : m_docks)
        if (d->objectName() == objectName)
            return d;
    return nullptr;
}

const L::WindowTimelineModel *LiveController::timelineModel(const QString &node) const
{
    auto it = m_timelines.constFind(node);
    return it == m_timelines.constEnd() ? nullptr : it->get();
}

void LiveController::buildToolbar()
{
    m_window.addToolBarBreak(); // its own row: the status text needs the width
    m_toolbar = m_window.addToolBar(tr("Run"));
    m_toolbar->setObjectName(QStringLiteral("liveToolbar"));
    m_toolbar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    auto make = [this](const QString &id, const QString &text, QStyle::StandardPixmap icon,
                       const QKeySequence &key, const QString &tip) {
        auto *a = new QAction(m_window.style()->standardIcon(icon), text, this);
        a->setObjectName(id);
        a->setShortcut(key);
        a->setToolTip(tip + QStringLiteral(" (") + key.toString(QKeySequence::NativeText) + ')');
        m_toolbar->addAction(a);
        m_window.addAction(a);
        return a;
    };
    m_run = make(QStringLiteral("Live.Run"), tr("Run"), QStyle::SP_MediaPlay,
                 QKeySequence(Qt::Key_F5), tr("Run the pipeline on the embedded engine"));
    m_pauseAction = make(QStringLiteral("Live.Pause"), tr("Pause"), QStyle::SP_MediaPause,
                         QKeySequence(Qt::Key_F6), tr("Pause between two records"));
    m_step = make(QStringLiteral("Live.Step"), tr("Step"), QStyle::SP_MediaSeekForward,
                  QKeySequence(Qt::Key_F10), tr("Process exactly one source record"));
    m_stop = make(QStringLiteral("Live.Stop"), tr("Stop"), QStyle::SP_MediaStop,
                  QKeySequence(Qt::SHIFT | Qt::Key_F5), tr("Stop taking input, flush sinks"));
    m_savepoint = make(QStringLiteral("Live.Savepoint"), tr("Savepoint…"),
                       QStyle::SP_DialogSaveButton, QKeySequence(Qt::CTRL | Qt::Key_F5),
                       tr("Write a savepoint of the running pipeline (restore it with "
                          "tideline-run --restore DIR)"));
    // Lineage in the live run (Trace a Record reads it while it runs; an unbounded run keeps
    // its newest records): on unless switched off, a flat-out run is a few times slower.
    m_lineage = new QAction(tr("Keep Lineage While Running"), this);
    m_lineage->setObjectName(QStringLiteral("Live.Lineage"));
    m_lineage->setCheckable(true);
    m_lineage->setChecked(true);
    m_lineage->setToolTip(tr("Record every record's path during the run, so Trace a Record "
                             "(and a click on the window timeline) can say where it went; "
                             "the oldest are forgotten first. Takes effect at the next Run."));
    m_window.addAction(m_lineage);
    m_bridge->setLineage(true);
    connect(m_lineage, &QAction::toggled, m_bridge, &EngineBridge::setLineage);
    for (QAction *a : m_window.menuBar()->actions()) // beside Trace a Record (Test menu)
        if (a->menu() && (a->text() == tr("&Run") || a->text() == tr("&Test"))) {
            a->menu()->addAction(m_lineage);
            break;
        }
    m_pace = new QComboBox(m_toolbar);
    m_pace->setObjectName(QStringLiteral("livePace"));
    m_pace->setToolTip(tr("How fast sources feed the pipeline (generator and file sources)"));
    m_pace->addItem(tr("Pace as in file"), QStringLiteral("file"));
    m_pace->addItem(tr("Flat out"), QStringLiteral("flat"));
    for (int rps : {2, 5, 20, 50, 100, 200, 1000})
        m_pace->addItem(tr("%1 records/s").arg(rps), QStringLiteral("rps:%1").arg(rps));
    for (int speed : {1, 10, 60, 600})
        m_pace->addItem(tr("event time ×%1").arg(speed), QStringLiteral("speed:%1").arg(speed));
    m_toolbar->addWidget(m_pace);
    m_status = new QLabel(m_toolbar);
    m_status->setObjectName(QStringLiteral("liveStatus"));
    // Wide enough for "Running · 12,345 records read · 1.2 k events/s" at 1024 pixels, and
    // no wider: a fixed 420 px pushed it off the toolbar on small screens.
    m_status->setMinimumWidth(260);
    m_status->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    m_status->setFont(L::style::font(11));
    m_status->setContentsMargins(10, 0, 0, 0);
    m_toolbar->addWidget(m_status);

    connect(m_run, &QAction::triggered, this, [this] {
        if (m_bridge->active() && m_bridge->state() == EngineBridge::State::Paused) {
            m_bridge->run();
            return;
        }
        if (!readyToStart())
            return;
        QString error;
        if (!startRun(false, &error))
            m_window.statusBar()->showMessage(error, 8000);
    });
    connect(m_pauseAction, &QAction::triggered, m_bridge, &EngineBridge::pause);
    connect(m_step, &QAction::triggered, this, [this] {
        const bool live = m_bridge->active()
                          && (m_bridge->state() == EngineBridge::State::Paused
                              || m_bridge->state() == EngineBridge::State::Running);
        if (!live) {
            if (!readyToStart())
                return;
            QString error;
            if (!startRun(true, &error)) {
                m_window.statusBar()->showMessage(error, 8000);
                return;
            }
        }
        m_bridge->step();
    });
    connect(m_stop, &QAction::triggered, m_bridge, &EngineBridge::stop);
    connect(m_savepoint, &QAction::triggered, this, [this] {
        bool ok = false;
        const QString dir = QInputDialog::getText(
            &m_window, tr("Savepoint"),
            tr("Folder for the savepoint (new or empty; state of every node, source positions "
               "and watermarks):"),
            QLineEdit::Normal, suggestedSavepointDir(), &ok);
        if (!ok || dir.trimmed().isEmpty())
            return;
        QString error;
        if (!takeSavepoint(dir.trimmed(), &error))
            m_window.statusBar()->showMessage(error, 8000);
    });
}

QStringList LiveController::relativePaths() const
{
    return relativePathParams(m_window.document().spec());
}

bool LiveController::readyToStart()
{
    // An unsaved pipeline has no folder for its relative paths: save it first (they used to
    // resolve against whatever folder the designer was started in).
    if (m_window.document().filePath().isEmpty() && !relativePaths().isEmpty()) {
        m_window.statusBar()->showMessage(
            tr("Save the pipeline first: its relative paths (%1) resolve against the file's folder")
                .arg(relativePaths().join(QStringLiteral(", "))),
            10000);
        if (!m_window.saveInteractively())
            return false;
    }
    return m_window.confirmRun();
}

QString LiveController::suggestedSavepointDir() const
{
    const PipelineDocument &doc = m_window.document();
    const QString base
        = doc.filePath().isEmpty() ? QDir::currentPath() : QFileInfo(doc.filePath()).absolutePath();
    QString name = QString::fromStdString(doc.spec().name);
    if (name.isEmpty())
        name = QStringLiteral("pipeline");
    return QDir(base).filePath(
        QStringLiteral("savepoints/%1-%2")
            .arg(name, QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss"))));
}

bool LiveController::takeSavepoint(const QString &dir, QString *error)
{
    const auto st = m_bridge->state();
    if (!m_bridge->active()
        || (st != EngineBridge::State::Running && st != EngineBridge::State::Paused)) {
        if (error)
            *error = tr("A savepoint needs a running (or paused) pipeline: press Run first.");
        return false;
    }
    // Relative folders resolve against the pipeline's folder, like paths in the file.
    const PipelineDocument &doc = m_window.document();
    const QString base
        = doc.filePath().isEmpty() ? QDir::currentPath() : QFileInfo(doc.filePath()).absolutePath();
    const QString abs = QDir(base).absoluteFilePath(dir);
    if (!m_bridge->requestSavepoint(abs)) {
        if (error)
            *error = tr("The run has ended; a savepoint needs a running pipeline.");
        return false;
    }
    m_window.statusBar()->showMessage(tr("Writing a savepoint to %1…").arg(abs), 8000);
    return true;
}

void LiveController::buildDocks()
{
    auto addDock
        = [this](const QString &id, const QString &title, QWidget *w, Qt::DockWidgetArea area) {
              auto *d = new QDockWidget(title, &m_window);
              d->setObjectName(id);
              d->setWidget(w);
              m_window.addDockWidget(area, d);
              m_docks.push_back(d);
              return d;
          };
    m_charts = new L::LiveCharts;
    m_timeline = new L::WindowTimelineView;
    m_why = new L::WatermarkWhyPanel;
    m_ledger = new L::LateLedgerView;
    m_preview = new L::OutputPreview;
    auto *charts = addDock(QStringLiteral("liveChartsDock"), tr("Live charts"), m_charts,
                           Qt::BottomDockWidgetArea);
    auto *timeline = addDock(QStringLiteral("windowTimelineDock"), tr("Window timeline"),
                             m_timeline, Qt::BottomDockWidgetArea);
    auto *ledger = addDock(QStringLiteral("lateLedgerDock"), tr("Late-data ledger"), m_ledger,
                           Qt::BottomDockWidgetArea);
    auto *preview = addDock(QStringLiteral("outputPreviewDock"), tr("Output preview"), m_preview,
                            Qt::BottomDockWidgetArea);
    // Double-click a row of the preview or the ledger: where did it come from? (the Trace dock)
    connect(m_preview->table(), &QTableWidget::cellDoubleClicked, this, [this](int row, int) {
        if (auto *item = m_preview->table()->item(row, 0); item && m_window.traceController())
            m_window.traceController()->traceText(item->toolTip(), true);
    });
    // Click a dot or a bar of the window timeline: that record's path, that pane's records.
    connect(m_timeline, &L::WindowTimelineView::traceRequested, this,
            [this](const L::WindowTimelineView::TraceQuery &q) {
                if (m_window.traceController() && !q.node.isEmpty())
                    m_window.traceController()->traceAt(q.node, q.match, q.made, q.label);
            });
    if (TraceController *tracer = m_window.traceController())
        tracer->setLiveLineage([this](const TraceController::StoreFn &fn) {
            return m_bridge->active() && m_bridge->withLineage(fn);
        });
    connect(m_ledger->table(), &QTableView::doubleClicked, this, [this](const QModelIndex &i) {
        const QString json
            = i.siblingAtColumn(L::LateLedgerModel::Record).data(Qt::ToolTipRole).toString();
        if (m_window.traceController() && !json.isEmpty())
            m_window.traceController()->traceText(json, false);
    });
    auto *why = addDock(QStringLiteral("watermarkWhyDock"), tr("Why is the watermark here?"), m_why,
                        Qt::RightDockWidgetArea);
    // Share the designer's bottom and right dock groups instead of splitting them.
    auto *problems = m_window.findChild<QDockWidget *>(QStringLiteral("problemsDock"));
    auto *inspector = m_window.findChild<QDockWidget *>(QStringLiteral("inspectorDock"));
    if (problems)
        m_window.tabifyDockWidget(problems, timeline);
    m_window.tabifyDockWidget(timeline, charts);
    m_window.tabifyDockWidget(timeline, ledger);
    m_window.tabifyDockWidget(timeline, preview);
    if (inspector)
        m_window.tabifyDockWidget(inspector, why);
    if (problems)
        problems->raise();
    if (inspector)
        inspector->raise();
    m_timeline->setModel(nullptr);
}

bool LiveController::startRun(bool paused, QString *error, const EngineBridge::Recording &recording)
{
    const PipelineDocument &doc = m_window.document();
    if (doc.errorCount() > 0) {
        if (error)
            *error = tr("Cannot run: the pipeline has %1 problem(s) — see the Problems panel.")
                         .arg(doc.errorCount());
        return false;
    }
    EngineBridge::Pace pace;
    const QString p = m_pace->currentData().toString();
    if (p == QLatin1String("flat"))
        pace.mode = EngineBridge::Pace::FlatOut;
    else if (p.startsWith(QLatin1String("rps:"))) {
        pace.mode = EngineBridge::Pace::RecordsPerSecond;
        pace.value = p.mid(4).toDouble();
    } else if (p.startsWith(QLatin1String("speed:"))) {
        pace.mode = EngineBridge::Pace::EventTimeSpeed;
        pace.value = p.mid(6).toDouble();
    }
    if (doc.filePath().isEmpty() && !relativePaths().isEmpty()) {
        if (error)
            *error = tr("Cannot run: save the pipeline first — its relative paths (%1) resolve "
                        "against the pipeline file's folder, and it has none yet")
                         .arg(relativePaths().join(QStringLiteral(", ")));
        return false;
    }
    const QString base
        = doc.filePath().isEmpty() ? QDir::homePath() : QFileInfo(doc.filePath()).absolutePath();
    QString err;
    if (!m_bridge->start(doc.spec(), base, pace, &err, recording)) {
        if (error)
            *error = tr("Cannot run: %1").arg(err);
        return false;
    }
    // Fresh views for the new run.
    m_history->clear();
    m_charts->clear();
    m_ledger->clear();
    m_preview->clear();
    m_overlay->clear();
    m_timelines.clear();
    m_pendingMarks.clear();
    m_pendingSnapshots.clear();
    m_shown = L::Snapshot();
    m_runSpec = doc.spec();
    updateMatching();
    QStringList ids, sinks;
    for (const auto &n : m_bridge->nodes()) {
        ids << n.id;
        if (n.kind.startsWith(QLatin1String("sink.")))
            sinks << n.id;
        if (n.kind == QLatin1String("window")) {
            auto m = std::make_shared<L::WindowTimelineModel>();
            m->configure(n);
            m_timelines.insert(n.id, m);
        }
    }
    m_ledger->setNodes(ids);
    m_preview->setSinks(sinks);
    for (const auto &n : m_runSpec.nodes)
        if (n.kind == "sink.postgres")
            m_preview->addTablePlace(
                QString::fromStdString(n.id),
                QString::fromStdString(n.params.value("table", std::string())));
    m_kafka->setRun(m_bridge->nodes(), m_bridge->edges());
    // Show the selected window node, or the first window of the pipeline.
    QString show = m_selected;
    if (!m_timelines.contains(show))
        for (const auto &n : m_bridge->nodes())
            if (m_timelines.contains(n.id)) {
                show = n.id;
                break;
            }
    m_timeline->setModel(m_matching.contains(show) ? m_timelines.value(show).get() : nullptr);
    // Bring the live views forward, with room for the timeline.
    if (auto *d = dock(QStringLiteral("windowTimelineDock"))) {
        d->raise();
        m_window.resizeDocks({d}, {m_window.height() * 9 / 20}, Qt::Vertical);
    }
    if (auto *d = dock(QStringLiteral("watermarkWhyDock")))
        d->raise();
    if (!paused)
        m_bridge->run();
    updateActions();
    return true;
}

void LiveController::selectNode(const QString &id)
{
    m_selected = id;
    // Figures of the node that ran, never of a new node that took its place or its id.
    const bool same = m_matching.contains(id);
    if (same && m_timelines.contains(id))
        m_timeline->setModel(m_timelines.value(id).get());
    const L::NodeFigures *n = same ? m_shown.node(id) : nullptr;
    const L::NodeInfo *info = nullptr;
    for (const auto &ni : m_bridge->nodes())
        if (ni.id == id)
            info = &ni;
    m_why->showNode(n, info, m_shown.takenAtMs);
    updateTimelineNote();
}

void LiveController::onSelectionChanged()
{
    const QStringList nodes = m_window.scene()->selectedNodeIds();
    {
        const NodeSpec *n = nodes.size() == 1
                                ? m_window.document().spec().node(nodes.first().toStdString())
                                : nullptr;
        m_kafka->showNode(n ? nodes.first() : QString(),
                          n ? QString::fromStdString(n->kind) : QString());
        m_postgres->showNode(n);
        if (m_bridge->active()) {
            m_kafka->update(m_shown);
            // Its partitions are in the inspector, which a run puts behind the "why" panel.
            if (n && n->kind == "source.kafka")
                if (auto *inspector
                    = m_window.findChild<QDockWidget *>(QStringLiteral("inspectorDock"))) {
                    inspector->raise();
                    // Room for the partition table's columns.
                    if (!inspector->isFloating() && inspector->width() < 480)
                        m_window.resizeDocks({inspector}, {480}, Qt::Horizontal);
                }
        }
    }
    if (!nodes.isEmpty()) {
        selectNode(nodes.first());
        return;
    }
    const auto edges = m_window.scene()->selectedConnections();
    if (!edges.isEmpty()) {
        const auto &c = edges.first();
        m_preview->watchEdge({c.fromNode, c.fromPort, c.toNode, c.toPort});
        m_bridge->watchEdge(c.fromNode, c.fromPort);
        if (auto *d = dock(QStringLiteral("outputPreviewDock")))
            d->raise();
    }
}

void LiveController::processRecords(const QList<L::TappedRecord> &records)
{
    // Records and watermark changes interleave in the loop; replay them in that order so a
    // window's dots are classified against the watermark of their moment.
    for (const auto &r : records) {
        qsizetype wi = 0;
        for (; wi < m_pendingMarks.size() && m_pendingMarks[wi].recordsRead < r.recordsRead; ++wi)
            if (auto m = m_timelines.value(m_pendingMarks[wi].node))
                m->setWatermark(m_pendingMarks[wi].watermark);
        m_pendingMarks.remove(0, wi);
        if (auto m = m_timelines.value(r.node))
            m->addRecord(r);
    }
    m_ledger->append(records);
    m_preview->append(records);
}

void LiveController::onFrame()
{
    QElapsedTimer timer;
    timer.start();
    // Every view shows one moment: a snapshot is shown once the records tapped up to it
    // (snapshot.recordsRead) have been processed, so the timeline, the ledger, the canvas and
    // the "why" panel never disagree. Work on records is bounded per frame (~12 ms): what is
    // left stays queued in the bridge, whose worker then waits, so the UI stays responsive
    // and nothing is dropped.
    const L::Snapshot latest = m_bridge->snapshot();
    if (m_pendingSnapshots.isEmpty() || m_pendingSnapshots.back().takenAtMs != latest.takenAtMs
        || m_pendingSnapshots.back().recordsRead != latest.recordsRead)
        m_pendingSnapshots.push_back(latest);
    else
        m_pendingSnapshots.back() = latest; // same figures, maybe a newer state
    m_pendingMarks += m_bridge->takeWatermarks();
    bool outOfTime = false;
    while (!m_pendingSnapshots.isEmpty() && !outOfTime) {
        const L::Snapshot &next = m_pendingSnapshots.front();
        const bool last = m_pendingSnapshots.size() == 1;
        const bool ended = next.state == QLatin1String("Finished")
                           || next.state == QLatin1String("Stopped")
                           || next.state == QLatin1String("Failed");
        // The final snapshot takes whatever is left (a restart may have rewound the counter).
        const qint64 upTo = last && ended ? std::numeric_limits<qint64>::max() : next.recordsRead;
        while (true) {
            const auto records = m_bridge->takeRecordsUpTo(upTo, 2000);
            if (records.isEmpty())
                break;
            processRecords(records);
            if (timer.elapsed() >= 12) {
                outOfTime = true;
                break;
            }
        }
        if (outOfTime && m_bridge->hasRecordsUpTo(upTo))
            break;
        qsizetype wi = 0;
        for (; wi < m_pendingMarks.size() && m_pendingMarks[wi].recordsRead <= upTo; ++wi)
            if (auto m = m_timelines.value(m_pendingMarks[wi].node))
                m->setWatermark(m_pendingMarks[wi].watermark);
        m_pendingMarks.remove(0, wi);
        L::Snapshot shown = m_pendingSnapshots.takeFirst();
        m_history->append(shown);
        m_shown = std::move(shown);
    }
    m_charts->update(*m_history, m_shown.startedAtMs, m_bridge->checkpointsConfigured());
    refreshDocumentViews(true);
    m_kafka->update(m_shown);
    updateStatus();
    m_frameTimes.push_back(static_cast<double>(timer.nsecsElapsed()) / 1e6);
    if (m_frameTimes.size() > 100000)
        m_frameTimes.remove(0, 50000);
}

QString LiveController::statusText() const
{
    return m_status->text();
}

void LiveController::updateStatus()
{
    if (!m_bridge->active()) {
        m_status->clear();
        return;
    }
    const L::Snapshot &s = m_shown;
    QString text = tr("<b>%1</b> · %2 read")
                       .arg(s.state, L::countNoun(s.recordsRead, tr("record"), tr("records")));
    // A rate only while records flow: paused or ended, the last figure would be stale.
    if (s.state == QLatin1String("Running"))
        text += tr(" · %1 events/s").arg(L::countText(s.eventsPerSecond));
    m_status->setText(text);
}

void LiveController::refreshDocumentViews(bool refit)
{
    // Figures only for the nodes and edges on the canvas that are the ones that ran.
    L::Snapshot s = m_shown;
    s.nodes.erase(
        std::remove_if(s.nodes.begin(), s.nodes.end(),
                       [this](const L::NodeFigures &n) { return !m_matching.contains(n.node); }),
        s.nodes.end());
    QList<L::EdgeInfo> edges;
    for (const auto &e : m_bridge->edges())
        if (m_matching.contains(e.fromNode) && m_matching.contains(e.toNode))
            edges.push_back(e);
    m_overlay->update(s, edges);
    // Figures appear beside the nodes once a run starts: a fitted canvas grows to show them
    // instead of cutting them off at its edges (a zoomed or panned one is left alone). Never
    // while a mouse button is down: the view replays the last mouse move after a transform
    // change, which would drag a node being moved again.
    if (auto *view = m_window.view();
        refit && view->isFitted() && QApplication::mouseButtons() == Qt::NoButton) {
        const QRectF visible = view->mapToScene(view->viewport()->rect()).boundingRect();
        if (!visible.contains(view->contentsRect()))
            view->fitToContents();
    }
    if (m_timeline->model() && !m_matching.contains(m_timeline->model()->nodeId()))
        m_timeline->setModel(nullptr);
    m_timeline->refresh();
    if (!m_selected.isEmpty())
        selectNode(m_selected);
    else
        updateTimelineNote();
}

void LiveController::updateTimelineNote()
{
    // A window no record reached: say where they went instead (the ledger has each reason).
    const L::WindowTimelineModel *m = m_timeline->model();
    QString note;
    if (m && m->recordsIn() == 0 && m_bridge->active()) {
        QStringList where;
        qint64 total = 0;
        std::vector<std::string> stack{m->nodeId().toStdString()};
        QSet<QString> seen;
        while (!stack.empty()) {
            const std::string id = stack.back();
            stack.pop_back();
            for (const auto &e : m_runSpec.edges) {
                if (e.to.node != id || seen.contains(QString::fromStdString(e.from.node)))
                    continue;
                const QString up = QString::fromStdString(e.from.node);
                seen.insert(up);
                stack.push_back(e.from.node);
                if (const L::NodeFigures *f = m_shown.node(up)) {
                    if (f->errors > 0)
                        where << tr("`%1.errors` (%2)").arg(up).arg(f->errors);
                    if (f->late > 0)
                        where << tr("`%1.late` (%2)").arg(up).arg(f->late);
                    total += f->errors + f->late;
                }
            }
        }
        if (total > 0)
            note = tr("No record has reached `%1`: %2 went to %3.\nThe Late-data ledger shows "
                      "each one with its reason.")
                       .arg(m->nodeId(), L::countNoun(total, tr("record"), tr("records")),
                            where.join(tr(" and ")));
    }
    m_timeline->canvas()->setEmptyNote(note);
}

void LiveController::updateMatching()
{
    m_matching.clear();
    if (!m_bridge->active() && m_runSpec.nodes.empty())
        return;
    const PipelineSpec &doc = m_window.document().spec();
    auto incident = [](const PipelineSpec &spec, const std::string &id) {
        std::vector<EdgeSpec> out;
        for (const auto &e : spec.edges)
            if (e.from.node == id || e.to.node == id)
                out.push_back(e);
        std::sort(out.begin(), out.end(), [](const EdgeSpec &a, const EdgeSpec &b) {
            return std::tie(a.from.node, a.from.port, a.to.node, a.to.port)
                   < std::tie(b.from.node, b.from.port, b.to.node, b.to.port);
        });
        return out;
    };
    for (const auto &ran : m_runSpec.nodes) {
        const NodeSpec *now = doc.node(ran.id);
        if (now && now->kind == ran.kind && now->params == ran.params
            && incident(doc, ran.id) == incident(m_runSpec, ran.id))
            m_matching.insert(QString::fromStdString(ran.id));
    }
}

void LiveController::onDocumentChanged(const DocumentChange &change)
{
    using T = DocumentChange::Type;
    if (change.type == T::Reset) {
        // New or Open: the run belongs to a document that is no longer on screen.
        resetViews();
        return;
    }
    if (!m_bridge->active())
        return;
    if (change.type != T::NodeMoved && change.type != T::PipelineSettingsChanged)
        updateMatching();
    refreshDocumentViews(false); // moved nodes take their labels along
}

void LiveController::resetViews()
{
    m_bridge->reset();
    m_runSpec = PipelineSpec();
    m_matching.clear();
    m_pendingMarks.clear();
    m_pendingSnapshots.clear();
    m_shown = L::Snapshot();
    m_history->clear();
    m_charts->clear();
    m_ledger->clear();
    m_ledger->setNodes({});
    m_preview->clear();
    m_preview->setSinks({});
    m_overlay->clear();
    m_timeline->setModel(nullptr);
    m_timelines.clear();
    m_kafka->setRun({}, {});
    m_selected.clear();
    m_why->showNode(nullptr, nullptr, 0);
    updateStatus();
    updateActions();
}

void LiveController::onStateChanged()
{
    updateActions();
    const auto st = m_bridge->state();
    if (st == EngineBridge::State::Failed)
        m_window.statusBar()->showMessage(tr("Run failed: %1").arg(m_bridge->failure()), 15000);
    Q_EMIT runStateChanged(m_bridge->snapshot().state);
}

void LiveController::updateActions()
{
    const auto st = m_bridge->state();
    const bool live = m_bridge->active()
                      && (st == EngineBridge::State::Running || st == EngineBridge::State::Paused);
    m_run->setEnabled(!live || st == EngineBridge::State::Paused);
    m_pauseAction->setEnabled(live && st == EngineBridge::State::Running);
    m_step->setEnabled(!live || st == EngineBridge::State::Paused);
    m_stop->setEnabled(live);
    m_savepoint->setEnabled(live);
    m_pace->setEnabled(!live);
}

} // namespace live

live::LiveController *installLiveViews(MainWindow &window)
{
    return new live::LiveController(window);
}

} // namespace tideline::designer
