// Golden pipeline tests: each folder under tests/golden/ is one case (README.md). The case is
// copied into a temp folder, loaded, validated (no errors) and run to the end with a
// ManualClock; then every sink.file's output must equal expected/<sink id>.jsonl byte for byte,
// every file under expected/ must be some sink's output (or metrics.json), and the figures in
// expected/metrics.json must equal the run's final metrics.
//
// TIDELINE_GOLDEN_UPDATE=1 writes the sinks' outputs into expected/ instead of comparing
// (for a new case: read every line it wrote before committing it).

#include "test_support.hpp"

#include <tideline/engine/job.hpp>
#include <tideline/engine/spec.hpp>

#include <QtTest>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>

namespace fs = std::filesystem;
using namespace tideline;

namespace {

/// The metrics a case may pin, by the name `--metrics` lines use.
std::int64_t figure(const observe::NodeMetrics &m, const std::string &name, bool &known)
{
    known = true;
    if (name == "records_in")
        return m.recordsIn;
    if (name == "records_out")
        return m.recordsOut;
    if (name == "late")
        return m.late;
    if (name == "errors")
        return m.errors;
    if (name == "duplicates_dropped")
        return m.duplicatesDropped;
    if (name == "state_entries")
        return m.stateEntries;
    if (name == "open_windows")
        return m.openWindows;
    known = false;
    return 0;
}

/// "line N differs: expected ... got ..." (or which one is longer).
std::string firstDifference(const std::string &expected, const std::string &actual)
{
    std::size_t line = 1, a = 0, b = 0;
    while (a < expected.size() || b < actual.size()) {
        const std::size_t ea = expected.find('\n', a), eb = actual.find('\n', b);
        const std::string le = a < expected.size() ? expected.substr(a, ea - a) : "<end>";
        const std::string lb = b < actual.size() ? actual.substr(b, eb - b) : "<end>";
        if (le != lb || (ea == std::string::npos) != (eb == std::string::npos))
            return "line " + std::to_string(line) + ":\n  expected " + le + "\n  got      " + lb;
        a = ea == std::string::npos ? expected.size() : ea + 1;
        b = eb == std::string::npos ? actual.size() : eb + 1;
        ++line;
    }
    return "same lines, different bytes";
}

} // namespace

class GoldenTest : public QObject
{
    Q_OBJECT

private slots:
    void cases_data()
    {
        QTest::addColumn<QString>("dir");
        std::vector<fs::path> dirs;
        for (const auto &e : fs::directory_iterator(TIDELINE_GOLDEN_DIR))
            if (e.is_directory())
                dirs.push_back(e.path());
        std::sort(dirs.begin(), dirs.end());
        QVERIFY2(!dirs.empty(), "no golden cases");
        for (const auto &d : dirs)
            QTest::newRow(d.filename().string().c_str()) << QString::fromStdString(d.string());
    }

    void cases()
    {
        QFETCH(QString, dir);
        const fs::path caseDir = dir.toStdString();
        const bool update = std::getenv("TIDELINE_GOLDEN_UPDATE") != nullptr;
        testing::TempDir tmp;
        for (const auto &e : fs::directory_iterator(caseDir))
            if (e.path().filename() != "expected")
                fs::copy(e.path(), tmp.path / e.path().filename(), fs::copy_options::recursive);

        LoadResult loaded = loadSpecFile(tmp.file("pipeline.json"));
        QVERIFY2(loaded.ok() && loaded.spec, testing::diagnosticsText(loaded.diagnostics).c_str());
        ManualClock clock;
        JobOptions o;
        o.baseDir = tmp.path.string();
        o.clock = &clock;
        std::string error;
        auto job = Job::create(*loaded.spec, o, error);
        QVERIFY2(job, error.c_str());
        QCOMPARE(job->run(), Job::Status::Finished);
        const observe::MetricsSnapshot metrics = job->snapshot();
        job.reset(); // sinks closed

        const fs::path expectedDir = caseDir / "expected";
        std::set<std::string> compared;
        for (const auto &n : loaded.spec->nodes) {
            if (n.kind != "sink.file")
                continue;
            const std::string rel = n.params.at("path").get<std::string>();
            // Named like `tideline-run --expect DIR` names them: <sink id>.jsonl.
            const std::string name = n.id + ".jsonl";
            const std::string actual = testing::readFile(tmp.file(rel));
            compared.insert(name);
            if (update) {
                testing::writeFile((expectedDir / name).string(), actual);
                continue;
            }
            QVERIFY2(fs::exists(expectedDir / name),
                     ("no expected/" + name + " for sink `" + n.id + "`").c_str());
            const std::string expected = testing::readFile((expectedDir / name).string());
            QVERIFY2(actual == expected, ("sink `" + n.id + "` (" + name + ") differs at "
                                          + firstDifference(expected, actual))
                                             .c_str());
        }
        QVERIFY2(!compared.empty(), "the case has no sink.file to compare");
        if (!fs::exists(expectedDir))
            return;
        for (const auto &e : fs::directory_iterator(expectedDir)) {
            const std::string name = e.path().filename().string();
            QVERIFY2(name == "metrics.json" || compared.count(name),
                     ("expected/" + name + " is no sink's output").c_str());
        }
        if (!fs::exists(expectedDir / "metrics.json"))
            return;
        const Json want = Json::parse(testing::readFile((expectedDir / "metrics.json").string()));
        for (const auto &[node, figures] : want.items()) {
            const observe::NodeMetrics *m = metrics.node(node);
            QVERIFY2(m, ("metrics.json names no node `" + node + "`").c_str());
            for (const auto &[name, value] : figures.items()) {
                bool known = false;
                const std::int64_t got = figure(*m, name, known);
                QVERIFY2(known, ("metrics.json: unknown figure `" + name + "`").c_str());
                QVERIFY2(got == value.get<std::int64_t>(),
                         (node + "." + name + ": expected " + value.dump() + ", got "
                          + std::to_string(got))
                             .c_str());
            }
        }
    }
};

QTEST_GUILESS_MAIN(GoldenTest)
#include "test_golden.moc"
