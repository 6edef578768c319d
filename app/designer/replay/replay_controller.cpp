#include "replay/replay_controller.hpp"

#include "engine_bridge.hpp"
#include "live/time_text.hpp"
#include "live_views.hpp"
#include "main_window.hpp"
#include "pipeline_document.hpp"

#include <tideline/engine/spec.hpp>

#include <QAction>
#include <QActionGroup>
#include <QComboBox>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QLocale>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QStatusBar>
#include <QToolBar>

namespace tideline::designer {

namespace {

using Bridge = live::EngineBridge;

/// The speeds offered (--replay-speed): 0 = flat out.
const QList<double> &speeds()
{
    static const QList<double> s{0, 1, 2, 10, 100};
    return s;
}

QString speedText(double speed)
{
    if (speed <= 0)
        return ReplayController::tr("Replay flat out");
    if (speed == 1)
        return ReplayController::tr("Replay as recorded");
    return ReplayController::tr("Replay ×%1").arg(speed);
}

/// The engine's messages are tideline-run's ("--replay: ..."): the designer has no flags.
QString withoutFlag(QString text)
{
    for (const char *flag : {"--replay: ", "--record: "})
        if (text.startsWith(QLatin1String(flag)))
            text = text.mid(static_cast<qsizetype>(qstrlen(flag)));
    return text;
}

} // namespace

ReplayController::ReplayController(MainWindow &window, live::LiveController &live)
    : QObject(&live)
    , m_window(window)
    , m_live(live)
    , m_status(new QLabel(&window))
{
    setObjectName(QStringLiteral("replayController"));
    m_status->setObjectName(QStringLiteral("recordingStatus"));
    m_window.statusBar()->insertPermanentWidget(0, m_status);
    m_speed = new QComboBox(m_live.toolBar());
    m_speed->setObjectName(QStringLiteral("replaySpeed"));
    m_speed->setToolTip(tr("How fast a replay runs: flat out, at the pace it was recorded, or "
                           "faster (like tideline-run --replay-speed)"));
    for (double s : speeds())
        m_speed->addItem(speedText(s), s);
    // In the pace box's place while a replay is on screen: a replay does not use the pace
    // (the recording sets it), and the toolbar has no room for both at 1024 pixels. Before a
    // replay, Run › Replay Speed chooses it.
    QAction *before = nullptr;
    const auto actions = m_live.toolBar()->actions();
    for (qsizetype i = 0; i + 1 < actions.size(); ++i)
        if (m_live.toolBar()->widgetForAction(actions[i]) == m_live.paceBox()) {
            m_paceAction = actions[i];
            before = actions[i + 1];
        }
    m_speedAction = before ? m_live.toolBar()->insertWidget(before, m_speed)
                           : m_live.toolBar()->addWidget(m_speed);
    m_speedAction->setVisible(false);
    connect(m_speed, &QComboBox::currentIndexChanged, this,
            [this](int i) { setSpeed(m_speed->itemData(i).toDouble()); });
    buildMenu();
    connect(m_live.bridge(), &Bridge::frame, this, &ReplayController::updateStatus);
    connect(m_live.bridge(), &Bridge::stateChanged, this, &ReplayController::updateStatus);
    m_showMessage = [this](const QString &title, const QString &text) {
        auto *box = new QMessageBox(QMessageBox::Warning, title, text, QMessageBox::Ok, &m_window);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->setObjectName(QStringLiteral("replayMessage"));
        box->open(); // window-modal, not waited for
    };
    updateStatus();
}

void ReplayController::buildMenu()
{
    m_menu = new QMenu(tr("&Run"), m_window.menuBar());
    m_menu->setObjectName(QStringLiteral("runMenu"));
    for (const char *id : {"Live.Run", "Live.Pause", "Live.Step", "Live.Stop"})
        if (QAction *a = m_window.action(QString::fromLatin1(id)))
            m_menu->addAction(a);
    m_menu->addSeparator();
    m_recordAction = m_menu->addAction(tr("&Record…"));
    m_recordAction->setObjectName(QStringLiteral("Run.Record"));
    m_recordAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    m_recordAction->setStatusTip(tr("Run the pipeline from the start and capture every source's "
                                    "input into a recording folder"));
    connect(m_recordAction, &QAction::triggered, this, [this] { record(); });
    m_replayAction = m_menu->addAction(tr("Re&play Recording…"));
    m_replayAction->setObjectName(QStringLiteral("Run.Replay"));
    m_replayAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R));
    m_replayAction->setStatusTip(tr("Run the pipeline on a recording in place of its sources, "
                                    "on the recording's clock"));
    connect(m_replayAction, &QAction::triggered, this, [this] { replay(); });
    m_window.addAction(m_recordAction);
    m_window.addAction(m_replayAction);
    QMenu *speedMenu = m_menu->addMenu(tr("Replay &Speed"));
    m_speedGroup = new QActionGroup(this);
    for (qsizetype i = 0; i < speeds().size(); ++i) {
        QAction *a = speedMenu->addAction(speedText(speeds()[i]));
        a->setObjectName(QStringLiteral("Run.ReplaySpeed.%1").arg(speeds()[i]));
        a->setCheckable(true);
        a->setChecked(i == 0);
        m_speedGroup->addAction(a);
        connect(a, &QAction::triggered, this,
                [this, i] { m_speed->setCurrentIndex(static_cast<int>(i)); });
    }
    // Between Edit/View and Test: the order of a run's life (edit, run, check).
    QAction *before = nullptr;
    for (QAction *a : m_window.menuBar()->actions())
        if (a->menu() && !before
            && (a->menu()->title().remove(QLatin1Char('&')) == tr("Test")
                || a == m_window.action(QStringLiteral("Help.Menu"))))
            before = a;
    m_window.menuBar()->insertMenu(before, m_menu);
}

QString ReplayController::baseDir() const
{
    const QString path = m_window.document().filePath();
    return path.isEmpty() ? QDir::homePath() : QFileInfo(path).absolutePath();
}

std::string ReplayController::pipelineText() const
{
    // The recording's pipeline hash is of the file as loaded: the saved file when the
    // document is it (so a recording made by tideline-run matches), else the document.
    const PipelineDocument &doc = m_window.document();
    if (!doc.filePath().isEmpty() && !doc.isModified()) {
        QFile f(doc.filePath());
        if (f.open(QIODevice::ReadOnly))
            return f.readAll().toStdString();
    }
    return writeSpec(doc.spec());
}

QString ReplayController::suggestedDir() const
{
    QString name = QString::fromStdString(m_window.document().spec().name);
    if (name.isEmpty())
        name = QStringLiteral("pipeline");
    return QDir(baseDir()).filePath(
        QStringLiteral("recordings/%1-%2")
            .arg(name, QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss"))));
}

bool ReplayController::record()
{
    if (!m_live.readyToStart())
        return false;
    RecordSettings initial = m_lastRecord;
    initial.dir = suggestedDir();
    std::optional<RecordSettings> chosen;
    if (m_chooseRecord)
        chosen = m_chooseRecord(initial);
    else {
        RecordDialog dialog(initial, &m_window);
        if (dialog.exec() == QDialog::Accepted)
            chosen = dialog.settings();
    }
    if (!chosen)
        return false;
    return startRecording(*chosen);
}

bool ReplayController::replay()
{
    if (!m_live.readyToStart())
        return false;
    const QString start = m_lastReplayDir.isEmpty() ? baseDir() : m_lastReplayDir;
    const QString dir = m_chooseFolder ? m_chooseFolder(start)
                                       : QFileDialog::getExistingDirectory(
                                           &m_window, tr("Replay a recording folder"), start);
    if (dir.isEmpty())
        return false;
    return startReplay(dir);
}

bool ReplayController::startRecording(const RecordSettings &settings, bool paused)
{
    m_lastRecord = settings;
    Bridge::Recording rec;
    rec.mode = Bridge::Recording::Record;
    rec.dir = settings.dir;
    rec.maxRecords = settings.maxRecords;
    rec.maxBytes = settings.maxBytes;
    rec.maxDurationMs = settings.maxDurationMs;
    rec.pipelineText = pipelineText();
    QString error;
    if (!m_live.startRun(paused, &error, rec)) {
        show(tr("Cannot record"), withoutFlag(error));
        return false;
    }
    m_reported = false;
    updateStatus();
    return true;
}

bool ReplayController::startReplay(const QString &dir, bool paused)
{
    m_lastReplayDir = dir;
    Bridge::Recording rec;
    rec.mode = Bridge::Recording::Replay;
    rec.dir = dir;
    rec.speed = speed();
    rec.pipelineText = pipelineText();
    QString error;
    if (!m_live.startRun(paused, &error, rec)) {
        show(tr("Cannot replay %1").arg(QDir::toNativeSeparators(dir)), withoutFlag(error));
        return false;
    }
    const QStringList notes = m_live.bridge()->recordingNotes();
    if (!notes.isEmpty()) {
        m_lastMessage = notes.join(QLatin1Char('\n'));
        m_window.statusBar()->showMessage(tr("Replay: %1").arg(notes.join(QStringLiteral("; "))),
                                          15000);
    }
    m_reported = false;
    updateStatus();
    return true;
}

void ReplayController::setSpeed(double speed)
{
    const qsizetype i = speeds().indexOf(speed);
    if (i >= 0 && m_speed->currentIndex() != i)
        m_speed->setCurrentIndex(static_cast<int>(i)); // comes back here through the signal
    if (i >= 0)
        m_speedGroup->actions().at(i)->setChecked(true);
    if (m_live.bridge()->recordingMode() == Bridge::Recording::Replay)
        m_live.bridge()->setReplaySpeed(speed);
    updateStatus();
}

double ReplayController::speed() const
{
    return m_speed->currentData().toDouble();
}

void ReplayController::show(const QString &title, const QString &text)
{
    m_lastMessage = text;
    m_window.statusBar()->showMessage(title + QStringLiteral(": ") + text, 20000);
    if (m_showMessage)
        m_showMessage(title, text);
    Q_EMIT messageShown(text);
}

QString ReplayController::statusText() const
{
    return m_status->text();
}

void ReplayController::updateStatus()
{
    const Bridge *b = m_live.bridge();
    const auto mode = b->active() ? b->recordingMode() : Bridge::Recording::None;
    m_speedAction->setVisible(mode == Bridge::Recording::Replay);
    if (m_paceAction)
        m_paceAction->setVisible(mode != Bridge::Recording::Replay);
    if (mode == Bridge::Recording::None) {
        m_status->clear();
        m_status->setToolTip({});
        return;
    }
    const auto st = b->state();
    const bool ended = st == Bridge::State::Finished || st == Bridge::State::Stopped
                       || st == Bridge::State::Failed;
    const qint64 n = b->recordingCount();
    QString text;
    if (mode == Bridge::Recording::Record)
        text
            = ended
                  ? tr("Recorded %1").arg(tideline::live::countNoun(n, tr("record"), tr("records")))
                  : tr("● Recording · %1 captured")
                        .arg(tideline::live::countNoun(n, tr("record"), tr("records")));
    else
        text = tr("%1 · %2 of %3 records")
                   .arg(ended ? tr("Replayed") : speedText(speed()))
                   .arg(QLocale::c().toString(n), QLocale::c().toString(b->recordingTotal()));
    m_status->setText(text);
    m_status->setToolTip(QDir::toNativeSeparators(b->recordingDir()));
    if (ended && !m_reported) {
        m_reported = true;
        const QString result = b->recordingResult();
        if (!result.isEmpty())
            m_window.statusBar()->showMessage(withoutFlag(result), 15000);
    }
}

} // namespace tideline::designer
