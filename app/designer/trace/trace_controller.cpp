#include "trace_controller.hpp"

#include "graph/graph_scene.hpp"
#include "live/trace_highlight.hpp"
#include "live/trace_view.hpp"
#include "main_window.hpp"
#include "pipeline_document.hpp"

#include <tideline/engine/expected_outputs.hpp>
#include <tideline/engine/job.hpp>
#include <tideline/engine/lineage.hpp>

#include <nlohmann/json.hpp>

#include <QAction>
#include <QDateTime>
#include <QDir>
#include <QDockWidget>
#include <QFileInfo>
#include <QMenu>
#include <QMenuBar>
#include <QTemporaryDir>
#include <QThread>

#include <algorithm>

namespace tideline::designer {

namespace {

QString q(const std::string &s)
{
    return QString::fromStdString(s);
}

live::TraceItem toItem(const lineage::TracedInput &in, const lineage::Explanation &e)
{
    live::TraceItem it;
    it.title = QStringLiteral("`%1` #%2").arg(q(in.source)).arg(in.seq);
    it.record = q(in.record);
    for (const auto &s : in.path) {
        it.steps.push_back({q(s.node), q(s.kind), q(s.what)});
        it.nodes << q(s.node);
    }
    for (std::uint64_t o : in.outputs)
        for (const auto &out : e.outputs)
            if (out.id == o)
                it.steps.push_back({q(out.sink), QStringLiteral("output"),
                                    QObject::tr("output row #%1: %2").arg(o).arg(q(out.record))});
    return it;
}

live::TraceItem toItem(const lineage::TracedOutput &o, const lineage::Explanation &e)
{
    live::TraceItem it;
    const QString at = q(o.madeAt.empty() ? o.sink : o.madeAt);
    it.title = o.madeAt.empty() ? QObject::tr("output #%1 (sink `%2`)").arg(o.id).arg(at)
                                : QObject::tr("row of `%1`").arg(at);
    it.record = q(o.record);
    if (!o.madeBy.empty())
        it.steps.push_back(
            {at, QStringLiteral("made"), QObject::tr("made by %1").arg(q(o.madeBy))});
    for (std::uint64_t id : o.inputs) {
        auto in = std::find_if(e.inputs.begin(), e.inputs.end(),
                               [&](const lineage::TracedInput &t) { return t.id == id; });
        if (in == e.inputs.end())
            continue;
        it.steps.push_back({q(in->source), QStringLiteral("input"),
                            QObject::tr("input #%1: %2").arg(in->seq).arg(q(in->record))});
        // Each input's path, separated by "" (TraceHighlight lights no connection across it).
        if (!it.nodes.isEmpty())
            it.nodes << QString();
        for (const auto &s : in->path)
            it.nodes << q(s.node);
    }
    return it;
}

/// Text search: records whose JSON contains `text` (when it is not an expression); a whole
/// JSON object (a row clicked in the output preview or the ledger) matches records equal to it.
lineage::Explanation textSearch(const lineage::Store &store, const std::string &text, bool outputs)
{
    lineage::Explanation all = lineage::explainAll(store);
    const nlohmann::json whole = text.starts_with('{')
                                     ? nlohmann::json::parse(text, nullptr, false)
                                     : nlohmann::json(nlohmann::json::value_t::discarded);
    auto matches = [&](const std::string &record) {
        if (whole.is_object())
            return nlohmann::json::parse(record, nullptr, false) == whole;
        return record.find(text) != std::string::npos;
    };
    lineage::Explanation out;
    out.forgotten = all.forgotten;
    out.budgetNote = all.budgetNote;
    if (outputs) {
        for (const auto &o : all.outputs)
            if (matches(o.record))
                out.outputs.push_back(o);
        out.inputs = all.inputs; // their inputs, looked up by id
    } else {
        for (const auto &in : all.inputs)
            if (matches(in.record))
                out.inputs.push_back(in);
        out.outputs = all.outputs;
    }
    return out;
}

} // namespace

TraceController::TraceController(MainWindow &window)
    : QObject(&window)
    , m_window(window)
    , m_view(new live::TraceView)
    , m_highlight(new live::TraceHighlight(window.scene(), this))
    , m_dock(new QDockWidget(tr("Trace"), &window))
    , m_action(new QAction(tr("&Trace a Record…"), this))
{
    setObjectName(QStringLiteral("traceController"));
    m_action->setObjectName(QStringLiteral("Run.Trace"));
    m_action->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_T));
    m_action->setToolTip(tr("Where did this record go? Run the pipeline keeping every record's "
                            "path, then search its records (Ctrl+Shift+T)"));
    m_window.addAction(m_action);
    m_dock->setObjectName(QStringLiteral("traceDock"));
    m_dock->setWidget(m_view);
    m_dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable
                        | QDockWidget::DockWidgetClosable);
    m_window.addDockWidget(Qt::BottomDockWidgetArea, m_dock);
    if (auto *problems = m_window.findChild<QDockWidget *>(QStringLiteral("problemsDock")))
        m_window.tabifyDockWidget(problems, m_dock);
    m_dock->hide();
    // In the Run menu (the live mode's) or the Test menu (Check's), else a menu of its own.
    QMenu *home = nullptr;
    for (QAction *a : m_window.menuBar()->actions())
        if (a->menu() && (a->text() == tr("&Run") || a->text() == tr("&Test")))
            home = a->menu();
    if (home) {
        home->addSeparator();
        home->addAction(m_action);
    } else if (QAction *help = m_window.action(QStringLiteral("Help.Menu"))) {
        auto *m = new QMenu(tr("T&race"), m_window.menuBar());
        m->addAction(m_action);
        m_window.menuBar()->insertMenu(help, m);
    }
    connect(m_action, &QAction::triggered, this, [this] {
        m_dock->show();
        m_dock->raise();
        if (!ready() && !running())
            run();
    });
    connect(m_view, &live::TraceView::runRequested, this, [this] { run(); });
    connect(m_view, &live::TraceView::searchRequested, this, &TraceController::search);
    connect(m_view, &live::TraceView::pathSelected, m_highlight, &live::TraceHighlight::show);
    connect(&m_window.document(), &PipelineDocument::changed, this, [this] {
        // The traced run is of the pipeline as it was: say so, and take the light down.
        if (m_job) {
            m_view->setStatus(tr("The pipeline changed since the traced run: run again to trace "
                                 "it as it is now."),
                              true);
            m_highlight->clear();
        }
    });
}

TraceController::~TraceController()
{
    if (m_thread) {
        m_thread->wait();
        delete m_thread;
    }
}

bool TraceController::run()
{
    if (m_thread)
        return false;
    PipelineDocument &doc = m_window.document();
    if (doc.errorCount() > 0) {
        m_view->setStatus(tr("The pipeline has %n problem(s) — see the Problems panel.", nullptr,
                             doc.errorCount()),
                          false);
        return false;
    }
    if (!m_window.confirmRun())
        return false;
    auto temp = std::make_unique<QTemporaryDir>(
        QDir::temp().filePath(QStringLiteral("tideline-trace-XXXXXX")));
    PipelineSpec spec = doc.spec();
    expected::Plan plan;
    if (std::string e = expected::prepare(spec, temp->path().toStdString(), "Trace", plan);
        !e.empty()) {
        m_view->setStatus(q(e), false);
        return false;
    }
    const QString base
        = doc.filePath().isEmpty() ? QDir::homePath() : QFileInfo(doc.filePath()).absolutePath();
    m_temp = std::move(temp);
    m_job.reset();
    m_highlight->clear();
    m_view->setResults({}, {});
    m_view->setStatus(tr("Running with lineage…"), false);
    m_thread = QThread::create([this, spec = std::move(spec), base = base.toStdString()] {
        JobOptions options;
        options.baseDir = base;
        options.fresh = true;
        options.lineage.enabled = true;
        std::string err;
        auto job = Job::create(spec, std::move(options), err);
        if (!job) {
            m_workerError = err;
            return;
        }
        const Job::Status status = job->run();
        if (status == Job::Status::Failed)
            m_workerError = "the run failed: " + job->failure();
        m_workerJob = std::move(job);
    });
    m_thread->setObjectName(QStringLiteral("tideline-trace"));
    connect(m_thread, &QThread::finished, this, &TraceController::onWorkerDone,
            Qt::QueuedConnection);
    m_workerError.clear();
    m_thread->start();
    return true;
}

void TraceController::onWorkerDone()
{
    if (!m_thread)
        return;
    m_thread->wait();
    delete m_thread;
    m_thread = nullptr;
    m_job = std::move(m_workerJob);
    if (!m_workerError.empty() || !m_job || !m_job->lineage()) {
        m_job.reset();
        m_view->setStatus(tr("Could not trace: %1").arg(q(m_workerError)), false);
    } else {
        const auto s = m_job->snapshot();
        m_view->setStatus(tr("Traced %1 records. Search by expression (click_id == \"clk-0082\") "
                             "or by any text of a record.")
                              .arg(s.recordsRead),
                          true);
        if (m_at)
            searchAt();
        else if (!m_view->query().isEmpty())
            search(m_view->query(), m_view->searchesOutputs());
    }
    Q_EMIT finished();
}

bool TraceController::withStore(const std::function<void(const lineage::Store &, bool)> &fn)
{
    if (m_live && m_live([&fn](const lineage::Store &s) { fn(s, true); }))
        return true;
    if (!m_job || !m_job->lineage())
        return false;
    fn(*m_job->lineage(), false);
    return true;
}

void TraceController::search(const QString &text, bool outputs)
{
    m_at.reset();
    const std::string t = text.trimmed().toStdString();
    lineage::Explanation e;
    bool fromLive = false;
    const bool found = withStore([&](const lineage::Store &store, bool isLive) {
        fromLive = isLive;
        e = outputs ? lineage::explainOutputs(store, t) : lineage::explainInputs(store, t);
        if (!e.error.empty())
            e = textSearch(store, t, outputs); // not an expression: any text of the record
    });
    if (found)
        show(e, outputs, fromLive);
}

void TraceController::searchAt()
{
    if (!m_at)
        return;
    const At at = *m_at;
    lineage::Explanation e;
    bool fromLive = false;
    const bool found = withStore([&](const lineage::Store &store, bool isLive) {
        fromLive = isLive;
        e = at.made ? lineage::explainMade(store, at.node.toStdString(), at.match.toStdString())
                    : lineage::explainReached(store, at.node.toStdString(), at.match.toStdString());
    });
    if (found)
        show(e, at.made, fromLive);
}

void TraceController::show(const lineage::Explanation &e, bool outputs, bool fromLive)
{
    QList<live::TraceItem> items;
    if (outputs)
        for (const auto &o : e.outputs)
            items << toItem(o, e);
    else
        for (const auto &in : e.inputs)
            items << toItem(in, e);
    constexpr qsizetype kShown = 500;
    // What is no longer traceable, plainly: since when the records are kept (local time).
    QString note;
    if (e.forgotten > 0)
        note = (e.tracedFromMs > 0 ? tr("Traced from %1 on; ")
                                         .arg(QDateTime::fromMSecsSinceEpoch(e.tracedFromMs)
                                                  .toString(QStringLiteral("HH:mm:ss")))
                                   : QString())
               + (e.forgotten == 1
                      ? tr("1 older record evicted: no longer traceable.")
                      : tr("%1 older records evicted: no longer traceable.").arg(e.forgotten));
    if (fromLive) {
        m_view->setStatus(tr("Tracing the live run (it keeps lineage): search its records by "
                             "expression (click_id == \"clk-0082\") or by any text."),
                          true);
        note = tr("From the live run.") + (note.isEmpty() ? QString() : QLatin1Char(' ') + note);
    }
    if (items.size() > kShown) {
        note = tr("%1 records match; the first %2 are shown.").arg(items.size()).arg(kShown)
               + (note.isEmpty() ? QString() : QLatin1Char(' ') + note);
        items = items.mid(0, kShown);
    }
    m_view->setResults(items, note);
}

void TraceController::traceText(const QString &text, bool outputs)
{
    m_dock->show();
    m_dock->raise();
    m_view->search(text, outputs);
    if (!ready() && !running() && !(m_live && m_live([](const lineage::Store &) {})))
        run();
}

void TraceController::traceAt(const QString &node,
                              const QString &match,
                              bool made,
                              const QString &label)
{
    m_dock->show();
    m_dock->raise();
    m_at = At{node, match, made};
    m_view->showQuery(label, made);
    if (m_live && m_live([](const lineage::Store &) {})) {
        searchAt();
        return;
    }
    if (ready())
        searchAt();
    else if (!running())
        run();
}

} // namespace tideline::designer
