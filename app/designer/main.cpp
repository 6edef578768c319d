// tideline: the pipeline designer.
//   tideline [PIPELINE.json] [--screenshot OUT.png] [--size WxH] [--run PACE] [--after MS]
//            [--presentation SCALE] [--select NODE] [--raise DOCK] [--check]
// --screenshot renders the main window to a PNG and exits (docs and tests): after loading,
// or with --run after the run has gone on for --after ms (then paused, so that every view
// shows the same moment). PACE is a choice of the Run toolbar: rps:20, speed:60, flat, file.
// --presentation sets the presentation scale (View > Presentation mode), e.g. 1.5. --raise
// brings a dock forward for the shot: lateLedgerDock, liveChartsDock, outputPreviewDock, ...
// --check runs Test › Check Against Expected Outputs and takes the shot once it has finished.
// --record DIR / --replay DIR [--replay-speed N]: like --run, but Run › Record… into DIR or
// Run › Replay Recording… of DIR (speed 0 = flat out, 1 = as recorded, N = ×N).

#include "check/check_controller.hpp"
#include "compare/compare_controller.hpp"
#include "compare/compare_dialog.hpp"
#include "engine_bridge.hpp"
#include "graph/graph_scene.hpp"
#include "graph/graph_view.hpp"
#include "live/live_charts.hpp"
#include "live_views.hpp"
#include "main_window.hpp"
#include "replay/replay_controller.hpp"
#include "theme.hpp"
#include "trace/trace_controller.hpp"
#include "ui_scale.hpp"

#include <QApplication>
#include <QComboBox>
#include <QCommandLineParser>
#include <QDockWidget>
#include <QScreen>
#include <QStatusBar>
#include <QTimer>

#include <memory>
#include <utility>

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("Tideline"));
    QApplication::setOrganizationName(QStringLiteral("Tideline"));
    QApplication::setApplicationVersion(QStringLiteral(TIDELINE_VERSION));
    tideline::designer::applyTheme(app);
    QApplication::setWindowIcon(tideline::designer::appIcon());

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Tideline pipeline designer"));
    parser.addHelpOption();
    parser.addVersionOption();
    QCommandLineOption screenshot(
        QStringLiteral("screenshot"),
        QStringLiteral("Render the window to PNG after loading (or running), then exit."),
        QStringLiteral("PNG"));
    parser.addOption(screenshot);
    QCommandLineOption select(
        QStringLiteral("select"),
        QStringLiteral("Select this node after loading (shows it in the inspector)."),
        QStringLiteral("NODE"));
    parser.addOption(select);
    QCommandLineOption size(QStringLiteral("size"),
                            QStringLiteral("Window size for --screenshot (default: the screen)."),
                            QStringLiteral("WxH"));
    parser.addOption(size);
    QCommandLineOption run(QStringLiteral("run"),
                           QStringLiteral("With --screenshot: run the pipeline at this pace "
                                          "(rps:N, speed:N, flat, file) before the shot."),
                           QStringLiteral("PACE"));
    parser.addOption(run);
    QCommandLineOption after(QStringLiteral("after"),
                             QStringLiteral("With --run: take the shot after this many ms."),
                             QStringLiteral("MS"), QStringLiteral("6000"));
    parser.addOption(after);
    QCommandLineOption presentation(
        QStringLiteral("presentation"),
        QStringLiteral("Presentation scale (View > Presentation mode), e.g. 1.5."),
        QStringLiteral("SCALE"));
    parser.addOption(presentation);
    QCommandLineOption raise(QStringLiteral("raise"),
                             QStringLiteral("With --screenshot: bring this dock forward "
                                            "(e.g. lateLedgerDock)."),
                             QStringLiteral("DOCK"));
    parser.addOption(raise);
    QCommandLineOption check(QStringLiteral("check"),
                             QStringLiteral("With --screenshot: check the pipeline against its "
                                            "expected outputs, then take the shot."));
    parser.addOption(check);
    QCommandLineOption trace(QStringLiteral("trace"),
                             QStringLiteral("With --screenshot: trace the input records matching "
                                            "EXPR (Test > Trace a Record), then take the shot."),
                             QStringLiteral("EXPR"));
    parser.addOption(trace);
    QCommandLineOption recordOpt(QStringLiteral("record"),
                                 QStringLiteral("With --screenshot: record the run into this new "
                                                "folder (Run > Record...) before the shot."),
                                 QStringLiteral("DIR"));
    parser.addOption(recordOpt);
    QCommandLineOption replayOpt(QStringLiteral("replay"),
                                 QStringLiteral("With --screenshot: replay this recording (Run > "
                                                "Replay Recording...) before the shot."),
                                 QStringLiteral("DIR"));
    parser.addOption(replayOpt);
    QCommandLineOption replaySpeed(QStringLiteral("replay-speed"),
                                   QStringLiteral("With --replay: 0 = flat out, 1 = as recorded, "
                                                  "N = N times as fast."),
                                   QStringLiteral("N"), QStringLiteral("0"));
    parser.addOption(replaySpeed);
    QCommandLineOption compareOpt(QStringLiteral("compare"),
                                  QStringLiteral("With --screenshot: run Test > Compare Engines "
                                                 "and take the shot of its dialog, sized as the "
                                                 "window would be."));
    parser.addOption(compareOpt);
    parser.addPositionalArgument(QStringLiteral("pipeline"),
                                 QStringLiteral("Pipeline file to open."));
    parser.process(app);

    tideline::designer::MainWindow window;
    // Run toolbar + live docks (app/designer/live)
    auto *live = tideline::designer::installLiveViews(window);
    // Compare Engines' "Use this engine": the live views run the pipeline in that mode.
    window.compareController()->setLiveRunHook([live, &window] {
        QString error;
        if (!live->startRun(false, &error))
            window.statusBar()->showMessage(error, 8000);
    });
    if (parser.isSet(presentation))
        tideline::widgets::UiScale::instance().setFactor(parser.value(presentation).toDouble());
    const QStringList args = parser.positionalArguments();
    bool opened = true;
    if (!args.isEmpty())
        opened = window.openPath(args.first());
    if (parser.isSet(select))
        window.scene()->selectNodes({parser.value(select)});

    if (parser.isSet(screenshot)) {
        QSize windowSize(1600, 1000);
        if (const QScreen *s = QGuiApplication::primaryScreen())
            windowSize = s->availableGeometry().size();
        if (parser.isSet(size)) {
            const QStringList wh = parser.value(size).split(QLatin1Char('x'));
            windowSize = QSize(wh.value(0).toInt(), wh.value(1).toInt());
        }
        window.resize(windowSize);
        window.move(0, 0);
        window.show();
        const QString out = parser.value(screenshot);
        const QString dockName = parser.value(raise);
        auto grab = [&window, out, &opened, dockName] {
            if (auto *d = window.findChild<QDockWidget *>(dockName); d && !dockName.isEmpty())
                d->raise();
            window.view()->fitToContents();
            QTimer::singleShot(300, &window, [&window, out, &opened] {
                const bool saved = window.grab().save(out);
                if (!saved)
                    qWarning("cannot write %s", qPrintable(out));
                QApplication::exit(saved && opened ? 0 : 1);
            });
        };
        if (parser.isSet(compareOpt) && opened) {
            window.setRunConfirmer([](const QString &) { return true; });
            auto *dialog = window.compareController()->open();
            dialog->resize(windowSize);
            dialog->move(0, 0);
            QObject::connect(dialog, &tideline::designer::CompareDialog::compareFinished, dialog,
                             [dialog, out] {
                                 QTimer::singleShot(400, dialog, [dialog, out] {
                                     const bool saved = dialog->grab().save(out);
                                     if (!saved)
                                         qWarning("cannot write %s", qPrintable(out));
                                     QApplication::exit(saved ? 0 : 1);
                                 });
                             });
            QTimer::singleShot(300, dialog, [dialog] {
                if (!dialog->runCompare()) {
                    qWarning("%s", qPrintable(dialog->status()));
                    QApplication::exit(1);
                }
            });
        } else if (parser.isSet(trace) && opened) {
            window.setRunConfirmer([](const QString &) { return true; });
            auto *tracer = window.traceController();
            QObject::connect(tracer, &tideline::designer::TraceController::finished, &window,
                             [grab] { QTimer::singleShot(200, grab); });
            QTimer::singleShot(300, &window, [tracer, expr = parser.value(trace)] {
                tracer->traceText(expr, false);
            });
        } else if (parser.isSet(check) && opened) {
            // Asked for on the command line: no "run a pipeline from elsewhere?" question.
            window.setRunConfirmer([](const QString &) { return true; });
            // The report (or why there is none) is shown: take the shot once.
            auto *checker = window.checkController();
            auto once = std::make_shared<bool>(false);
            auto shoot = [grab, once] {
                if (!std::exchange(*once, true))
                    QTimer::singleShot(200, grab);
            };
            QObject::connect(checker, &tideline::designer::CheckController::finished, &window,
                             shoot);
            QTimer::singleShot(300, &window, [checker, shoot] {
                if (!checker->check() && !checker->running())
                    shoot(); // refused before running (the panel may say why)
            });
        } else if ((parser.isSet(recordOpt) || parser.isSet(replayOpt)) && opened) {
            window.setRunConfirmer([](const QString &) { return true; });
            auto *replay = live->replayController();
            if (parser.isSet(run)) // the pace of the recorded run
                live->paceBox()->setCurrentIndex(live->paceBox()->findData(parser.value(run)));
            bool started;
            if (parser.isSet(replayOpt)) {
                replay->setSpeed(parser.value(replaySpeed).toDouble());
                started = replay->startReplay(parser.value(replayOpt));
            } else {
                tideline::designer::RecordSettings rec;
                rec.dir = parser.value(recordOpt);
                started = replay->startRecording(rec);
            }
            if (!started) {
                qWarning("%s", qPrintable(replay->lastMessage()));
                return 1;
            }
            if (parser.isSet(select))
                live->selectNode(parser.value(select));
            QTimer::singleShot(parser.value(after).toInt(), &window, [live, grab] {
                live->bridge()->pause();
                QTimer::singleShot(200, live, [live, grab] {
                    live->onFrame();
                    grab();
                });
            });
        } else if (parser.isSet(run) && opened) {
            const QString pace = parser.value(run);
            live->paceBox()->setCurrentIndex(live->paceBox()->findData(pace));
            QString error;
            if (!live->startRun(false, &error)) {
                qWarning("%s", qPrintable(error));
                return 1;
            }
            if (parser.isSet(select))
                live->selectNode(parser.value(select));
            QTimer::singleShot(parser.value(after).toInt(), &window, [live, grab] {
                live->bridge()->pause();
                QTimer::singleShot(200, live, [live, grab] {
                    live->onFrame();
                    grab();
                });
            });
        } else
            // Let layouts, docks and the first paint settle before fitting and grabbing.
            QTimer::singleShot(300, &window, grab);
        return app.exec();
    }
    window.show();
    return app.exec();
}
