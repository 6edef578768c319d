// tideline: the pipeline designer.
//   tideline [PIPELINE.json] [--screenshot OUT.png]
// --screenshot renders the main window after loading to a PNG and exits (docs and tests).

#include "graph/graph_scene.hpp"
#include "graph/graph_view.hpp"
#include "live_views.hpp"
#include "main_window.hpp"
#include "theme.hpp"

#include <QApplication>
#include <QCommandLineParser>
#include <QTimer>

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
        QStringLiteral("Render the window to PNG after loading, then exit."),
        QStringLiteral("PNG"));
    parser.addOption(screenshot);
    QCommandLineOption select(
        QStringLiteral("select"),
        QStringLiteral("Select this node after loading (shows it in the inspector)."),
        QStringLiteral("NODE"));
    parser.addOption(select);
    parser.addPositionalArgument(QStringLiteral("pipeline"),
                                 QStringLiteral("Pipeline file to open."));
    parser.process(app);

    tideline::designer::MainWindow window;
    tideline::designer::installLiveViews(window); // Run toolbar + live docks (app/designer/live)
    const QStringList args = parser.positionalArguments();
    bool opened = true;
    if (!args.isEmpty())
        opened = window.openPath(args.first());
    if (parser.isSet(select))
        window.scene()->selectNodes({parser.value(select)});

    if (parser.isSet(screenshot)) {
        window.resize(1600, 1000);
        window.move(0, 0);
        window.show();
        const QString out = parser.value(screenshot);
        // Let layouts, docks and the first paint settle before fitting and grabbing.
        QTimer::singleShot(300, &window, [&window, out, opened] {
            window.view()->fitToContents();
            QTimer::singleShot(200, &window, [&window, out, opened] {
                const bool saved = window.grab().save(out);
                if (!saved)
                    qWarning("cannot write %s", qPrintable(out));
                QApplication::exit(saved && opened ? 0 : 1);
            });
        });
        return app.exec();
    }
    window.show();
    return app.exec();
}
