// tideline-live-shots: screenshots of every live view while an example runs (docs, review).
//   tideline-live-shots PIPELINE.json OUTDIR [--pace KEY] [--after MS] [--select NODE]
// KEY is a pace choice of the Run toolbar ("rps:100", "speed:60", "flat", "file").
// Writes OUTDIR/live-window.png, live-timeline.png, live-watermarks.png, live-state.png,
// live-late.png, live-checkpoints.png, live-checkpoint-history.png, live-why.png, live-ledger.png,
// live-preview.png, live-canvas.png; with --select on a source.kafka node also
// live-kafka-inspector.png; with
// --savepoint DIR a savepoint is taken half way (it shows in the checkpoint history);
// --settings also writes designer-settings.png (the Pipeline settings dialog).

#include "engine_bridge.hpp"
#include "graph/graph_scene.hpp"
#include "graph/graph_view.hpp"
#include "live/live_charts.hpp"
#include "live/output_preview.hpp"
#include "live_views.hpp"
#include "main_window.hpp"
#include "pipeline_document.hpp"
#include "pipeline_settings_dialog.hpp"
#include "theme.hpp"

#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QTabWidget>
#include <QTimer>

#include <cstdio>

using namespace tideline::designer;

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    applyTheme(app);
    QStringList args = app.arguments().mid(1);
    auto option = [&](const QString &name, const QString &def) {
        const auto i = args.indexOf(name);
        if (i < 0 || i + 1 >= args.size())
            return def;
        const QString v = args[i + 1];
        args.remove(i, 2);
        return v;
    };
    const QString pace = option(QStringLiteral("--pace"), QStringLiteral("rps:100"));
    const int after = option(QStringLiteral("--after"), QStringLiteral("6000")).toInt();
    const QString select = option(QStringLiteral("--select"), QString());
    const QString edge = option(QStringLiteral("--edge"), QString()); // from.port>to.port
    const QString savepointDir = option(QStringLiteral("--savepoint"), QString());
    const bool settings = args.removeAll(QStringLiteral("--settings")) > 0;
    if (args.size() < 2) {
        std::fprintf(stderr,
                     "usage: tideline-live-shots PIPELINE.json OUTDIR [--pace KEY] [--after MS]\n");
        return 2;
    }
    const QString out = args[1];
    QDir().mkpath(out);
    MainWindow w;
    auto *live = installLiveViews(w);
    w.resize(1600, 1000);
    w.move(0, 0);
    w.show();
    if (!w.openPath(args[0]))
        return 1;
    live->paceBox()->setCurrentIndex(live->paceBox()->findData(pace));
    QString error;
    if (!live->startRun(false, &error)) {
        std::fprintf(stderr, "%s\n", qPrintable(error));
        return 1;
    }
    if (!select.isEmpty())
        w.scene()->selectNodes({select});
    QTimer::singleShot(300, &w, [&] { w.view()->fitToContents(); });
    if (!edge.isEmpty())
        QTimer::singleShot(after / 2, &w, [&] {
            const QStringList ends = edge.split('>');
            const QStringList f = ends.value(0).split('.'), t = ends.value(1).split('.');
            live->preview()->watchEdge({f.value(0), f.value(1), t.value(0), t.value(1)});
            live->bridge()->watchEdge(f.value(0), f.value(1));
        });
    if (!savepointDir.isEmpty())
        QTimer::singleShot(after / 2, &w, [&] {
            QString err;
            if (!live->takeSavepoint(savepointDir, &err))
                std::fprintf(stderr, "%s\n", qPrintable(err));
        });
    int failures = 0;
    auto save = [&](QWidget *widget, const QString &name) {
        const QString file = out + '/' + name;
        if (!widget->grab().save(file)) {
            ++failures;
            std::fprintf(stderr, "cannot write %s\n", qPrintable(file));
        } else
            std::printf("%s\n", qPrintable(file));
    };
    QTimer::singleShot(after, &w, [&] {
        live->bridge()->pause();
        QTimer::singleShot(200, &w, [&] {
            live->onFrame();
            save(&w, QStringLiteral("live-window.png"));
            save(w.view(), QStringLiteral("live-canvas.png"));
            if (!select.isEmpty()) {
                const auto *node = w.document().spec().node(select.toStdString());
                if (node && node->kind == "source.kafka") {
                    auto *inspector = w.findChild<QDockWidget *>(QStringLiteral("inspectorDock"));
                    inspector->raise();
                    inspector->setFloating(true);
                    inspector->resize(560, 940);
                    QApplication::processEvents();
                    live->onFrame();
                    QApplication::processEvents();
                    save(inspector->widget(), QStringLiteral("live-kafka-inspector.png"));
                    inspector->setFloating(false);
                }
            }
            if (settings) {
                PipelineSettingsDialog dialog(w.document().header(), QDir::currentPath(), &w);
                dialog.show();
                QApplication::processEvents();
                save(&dialog, QStringLiteral("designer-settings.png"));
            }
            // Each view alone, floated at a projector-friendly size, then docked back.
            auto shotDock = [&](const QString &dockName, const QString &file, QSize size) {
                QDockWidget *d = live->dock(dockName);
                d->raise();
                d->setFloating(true);
                d->resize(size);
                QApplication::processEvents();
                live->onFrame();
                QApplication::processEvents();
                save(d->widget(), file);
                d->setFloating(false);
            };
            const QSize wide(1400, 560);
            shotDock(QStringLiteral("windowTimelineDock"), QStringLiteral("live-timeline.png"),
                     wide);
            shotDock(QStringLiteral("lateLedgerDock"), QStringLiteral("live-ledger.png"), wide);
            shotDock(QStringLiteral("outputPreviewDock"), QStringLiteral("live-preview.png"), wide);
            shotDock(QStringLiteral("watermarkWhyDock"), QStringLiteral("live-why.png"),
                     QSize(900, 420));
            QDockWidget *charts = live->dock(QStringLiteral("liveChartsDock"));
            charts->raise();
            charts->setFloating(true);
            charts->resize(1400, 600);
            const char *names[] = {"live-watermarks.png", "live-state.png", "live-late.png",
                                   "live-checkpoints.png", "live-checkpoint-history.png"};
            for (int i = 0; i < 5; ++i) {
                live->charts()->tabs()->setCurrentIndex(i);
                QApplication::processEvents();
                live->onFrame();
                QApplication::processEvents();
                save(live->charts(), QString::fromLatin1(names[i]));
            }
            charts->setFloating(false);
            live->charts()->tabs()->setCurrentIndex(0);
            live->dock(QStringLiteral("windowTimelineDock"))->raise();
            live->bridge()->shutdown();
            QApplication::exit(failures ? 1 : 0);
        });
    });
    return app.exec();
}
