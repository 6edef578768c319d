// tideline-live-bench: UI frame times while the engine runs flat out.
//   tideline-live-bench [PIPELINE.json] [--records N] [--no-window]
// Without a file it builds generator(N) -> watermark -> tumbling window (keyed) -> sink.discard.
// Opens the pipeline in the real MainWindow with the live views, runs it flat out, and prints
// (1) the time each live frame took on the UI thread (snapshot + records -> views), and
// (2) the UI event loop's responsiveness: gaps between ticks of a 10 ms timer (a gap much
// longer than 10 ms means the UI was blocked for that long).

#include "engine_bridge.hpp"
#include "live_views.hpp"
#include "main_window.hpp"
#include "theme.hpp"

#include <QApplication>
#include <QComboBox>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QTimer>

#include <algorithm>
#include <cstdio>

using namespace tideline::designer;

namespace {

QByteArray generatedPipeline(long long records, bool window)
{
    QByteArray json = R"({"format":"tideline/1","name":"live-bench","nodes":[
 {"id":"gen","kind":"source.generator","params":{"count":COUNT,"keys":1000,"seed":1,"rate_per_s":10000,
   "disorder":{"max_delay_ms":200,"late_fraction":0.001,"late_by_ms":5000}},"ui":{"x":0,"y":0}},
 {"id":"wm","kind":"watermark","params":{"time_field":"event_time","max_out_of_orderness_ms":200},"ui":{"x":260,"y":0}},
 WINDOW
 {"id":"out","kind":"sink.discard","params":{},"ui":{"x":780,"y":0}}],
 "edges":[{"from":"gen.out","to":"wm.in"},EDGES]})";
    json.replace("COUNT", QByteArray::number(records));
    if (window) {
        json.replace(
            "WINDOW",
            R"({"id":"per_user","kind":"window","params":{"type":"tumbling","size_ms":1000,"key":["user_id"],
   "aggregates":[{"op":"count","as":"n"}]},"ui":{"x":520,"y":0}},)");
        json.replace(
            "EDGES",
            R"({"from":"wm.out","to":"per_user.in"},{"from":"per_user.out","to":"out.in"})");
    } else {
        json.replace("WINDOW", "");
        json.replace("EDGES", R"({"from":"wm.out","to":"out.in"})");
    }
    return json;
}

double pct(QList<double> v, double p)
{
    if (v.isEmpty())
        return 0;
    std::sort(v.begin(), v.end());
    return v[static_cast<qsizetype>(p * static_cast<double>(v.size() - 1))];
}

} // namespace

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    applyTheme(app);
    QStringList args = app.arguments().mid(1);
    long long records = 2'000'000;
    bool window = !args.contains(QStringLiteral("--no-window"));
    args.removeAll(QStringLiteral("--no-window"));
    const int ri = static_cast<int>(args.indexOf(QStringLiteral("--records")));
    if (ri >= 0 && ri + 1 < args.size()) {
        records = args[ri + 1].toLongLong();
        args.remove(ri, 2);
    }
    QTemporaryDir tmp;
    QString path;
    if (args.isEmpty()) {
        path = tmp.filePath(QStringLiteral("bench.json"));
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly))
            return 1;
        f.write(generatedPipeline(records, window));
    } else
        path = args.first();

    MainWindow w;
    auto *ctl = installLiveViews(w);
    w.resize(1600, 1000);
    w.show();
    if (!w.openPath(path)) {
        std::fprintf(stderr, "cannot open %s\n", qPrintable(path));
        return 1;
    }
    ctl->paceBox()->setCurrentIndex(ctl->paceBox()->findData(QStringLiteral("flat")));

    QList<double> gaps;
    QElapsedTimer tick;
    QTimer probe;
    probe.setInterval(10);
    QObject::connect(&probe, &QTimer::timeout, [&] {
        if (tick.isValid())
            gaps.push_back(static_cast<double>(tick.nsecsElapsed()) / 1e6);
        tick.restart();
    });
    QElapsedTimer wall;
    QString error;
    wall.start();
    if (!ctl->startRun(false, &error)) {
        std::fprintf(stderr, "%s\n", qPrintable(error));
        return 1;
    }
    probe.start();
    QObject::connect(
        ctl->bridge(), &live::EngineBridge::stateChanged, &app, [&](live::EngineBridge::State st) {
            if (st == live::EngineBridge::State::Finished || st == live::EngineBridge::State::Failed
                || st == live::EngineBridge::State::Stopped)
                QTimer::singleShot(50, &app, &QApplication::quit);
        });
    app.exec();
    const double secs = static_cast<double>(wall.elapsed()) / 1000.0;
    const auto &s = ctl->bridge()->snapshot();
    const auto &f = ctl->frameTimes();
    std::printf(
        "pipeline: %s\n",
        qPrintable(args.isEmpty() ? QStringLiteral("generated (window=%1)").arg(window) : path));
    std::printf("run: %s, %lld records read in %.2f s wall (%.0f records/s)\n", qPrintable(s.state),
                static_cast<long long>(s.recordsRead), secs,
                static_cast<double>(s.recordsRead) / secs);
    std::printf("live frames: %lld (%.1f per second)\n", static_cast<long long>(f.size()),
                static_cast<double>(f.size()) / secs);
    std::printf("frame time on the UI thread (ms): median %.2f  p95 %.2f  p99 %.2f  max %.2f\n",
                pct(f, 0.5), pct(f, 0.95), pct(f, 0.99), pct(f, 1.0));
    std::printf("UI event-loop gaps, 10 ms timer (ms): median %.2f  p95 %.2f  p99 %.2f  max %.2f\n",
                pct(gaps, 0.5), pct(gaps, 0.95), pct(gaps, 0.99), pct(gaps, 1.0));
    return 0;
}
