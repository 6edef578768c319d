// tideline-designer-bench: opens a generated 500-node pipeline in the real designer window
// (offscreen) and prints the open time and the average frame time while panning and zooming.
//   tideline-designer-bench [--nodes N] [--frames F]
// Frames are rendered by grabbing the canvas viewport (a full QGraphicsView paint each).

#include "commands/set_param_command.hpp"
#include "graph/graph_view.hpp"
#include "main_window.hpp"
#include "pipeline_document.hpp"
#include "theme.hpp"

#include <tideline/engine/spec.hpp>

#include <QApplication>
#include <QElapsedTimer>
#include <QScrollBar>
#include <QUndoStack>

#include <algorithm>
#include <cstdio>
#include <vector>

using namespace tideline;

namespace {

PipelineSpec generate(int nodes)
{
    // Chains of five: generator -> watermark -> filter -> window -> file sink. No `ui`, so the
    // open path includes the automatic layout.
    PipelineSpec spec;
    spec.name = "bench";
    const int chains = std::max(1, nodes / 5);
    for (int c = 0; c < chains; ++c) {
        const std::string s = std::to_string(c);
        spec.nodes.push_back(
            {"gen_" + s, "source.generator", Json{{"count", 1000}, {"seed", c}}, Json()});
        spec.nodes.push_back({"wm_" + s, "watermark",
                              Json{{"time_field", "event_time"}, {"max_out_of_orderness_ms", 5000}},
                              Json()});
        spec.nodes.push_back({"keep_" + s, "filter", Json{{"expr", "value > 10"}}, Json()});
        Json agg = Json::array();
        agg.push_back(Json{{"op", "count"}, {"as", "n"}});
        spec.nodes.push_back({"win_" + s, "window",
                              Json{{"type", "tumbling"},
                                   {"size_ms", 60000},
                                   {"key", Json::array({"user_id"})},
                                   {"aggregates", agg}},
                              Json()});
        spec.nodes.push_back(
            {"out_" + s, "sink.file", Json{{"path", "out/" + s + ".jsonl"}}, Json()});
        spec.edges.push_back({{"gen_" + s, "out"}, {"wm_" + s, "in"}});
        spec.edges.push_back({{"wm_" + s, "out"}, {"keep_" + s, "in"}});
        spec.edges.push_back({{"keep_" + s, "out"}, {"win_" + s, "in"}});
        spec.edges.push_back({{"win_" + s, "out"}, {"out_" + s, "in"}});
    }
    return spec;
}

double ms(const QElapsedTimer &t)
{
    return double(t.nsecsElapsed()) / 1e6;
}

struct Stats
{
    double avg = 0, max = 0, p95 = 0;
};

Stats stats(std::vector<double> v)
{
    Stats s;
    if (v.empty())
        return s;
    for (double x : v)
        s.avg += x;
    s.avg /= double(v.size());
    std::sort(v.begin(), v.end());
    s.max = v.back();
    s.p95 = v[std::min(v.size() - 1, std::size_t(double(v.size()) * 0.95))];
    return s;
}

} // namespace

int main(int argc, char **argv)
{
    if (!qEnvironmentVariableIsSet("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    designer::applyTheme(app);
    int nodes = 500, frames = 120;
    const QStringList args = app.arguments();
    for (int i = 1; i + 1 < args.size(); ++i) {
        if (args[i] == QLatin1String("--nodes"))
            nodes = args[i + 1].toInt();
        else if (args[i] == QLatin1String("--frames"))
            frames = args[i + 1].toInt();
    }

    const std::string text = writeSpec(generate(nodes));
    designer::MainWindow window;
    window.resize(1600, 1000);
    window.show();
    QApplication::processEvents();

    QElapsedTimer t;
    t.start();
    QString error;
    if (!window.document().openText(text, QString(), &error)) {
        std::fprintf(stderr, "open failed: %s\n", qPrintable(error));
        return 1;
    }
    const double openMs = ms(t);
    auto *view = window.view();
    view->setZoom(1.0);
    view->centerOn(0, 0);
    QElapsedTimer f;
    f.start();
    (void)view->viewport()->grab();
    const double firstFrame = ms(f);
    const double total = ms(t);

    auto frame = [&] {
        QElapsedTimer ft;
        ft.start();
        (void)view->viewport()->grab();
        return ms(ft);
    };
    auto pan = [&](qreal zoom) {
        view->setZoom(zoom);
        view->centerOn(0, 0);
        (void)view->viewport()->grab(); // warm the item caches at this zoom
        std::vector<double> times;
        for (int i = 0; i < frames; ++i) {
            auto *h = view->horizontalScrollBar();
            auto *v = view->verticalScrollBar();
            h->setValue(h->value() + 23);
            v->setValue(v->value() + (i % 20 < 10 ? 17 : -17));
            times.push_back(frame());
        }
        return stats(times);
    };
    auto zoomSweep = [&] {
        view->setZoom(0.15);
        view->centerOn(1400, 4000);
        std::vector<double> times;
        for (int i = 0; i < frames; ++i) {
            view->zoomBy(i % 40 < 20 ? 1.1 : 1 / 1.1);
            times.push_back(frame());
        }
        return stats(times);
    };
    const Stats pan100 = pan(1.0);
    const Stats pan40 = pan(0.4);
    const Stats panFar = pan(0.12);
    const Stats zoom = zoomSweep();

    // One param edit: command + validation + repaint of the changed node.
    QElapsedTimer e;
    e.start();
    window.document().undoStack()->push(
        new designer::SetParamCommand(window.document(), "win_0", "size_ms", Json(30000)));
    QApplication::processEvents();
    const double editMs = ms(e);

    std::printf("tideline-designer-bench: %zu nodes, %zu edges, %d frames per series, "
                "viewport %dx%d\n",
                window.document().spec().nodes.size(), window.document().spec().edges.size(),
                frames, view->viewport()->width(), view->viewport()->height());
    std::printf("open (parse+validate+layout+scene): %.1f ms; first frame %.1f ms; total %.1f ms\n",
                openMs, firstFrame, total);
    std::printf("validate(): %.2f ms\n", window.document().lastValidationMs());
    auto row = [](const char *name, const Stats &s) {
        std::printf("%-22s avg %6.2f ms  p95 %6.2f ms  max %6.2f ms  (%.0f fps avg)\n", name, s.avg,
                    s.p95, s.max, s.avg > 0 ? 1000.0 / s.avg : 0.0);
    };
    row("pan @100%", pan100);
    row("pan @40%", pan40);
    row("pan @12% (overview)", panFar);
    row("zoom sweep 15%..100%", zoom);
    std::printf("param edit (command+validate+repaint): %.2f ms\n", editMs);
    return 0;
}
