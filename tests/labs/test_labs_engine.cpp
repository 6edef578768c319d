// The labs through the engine API (issue 19, item 5), as the designer's Check runs them:
// expected::prepare → Job::run to the end → readOutputs → compare. For every lab in
// pipelines/labs/: the starting pipeline fails its check and names a difference, the solution
// passes; the solution differs from the start (there is something to fix); the task names its
// concept; and the recording holds the input file's records, in order, for the pipeline's
// one source.

#include "test_support.hpp"

#include <tideline/engine/expected_outputs.hpp>
#include <tideline/engine/job.hpp>
#include <tideline/engine/recording.hpp>
#include <tideline/engine/spec.hpp>

#include <QtTest>

#include <algorithm>
#include <filesystem>
#include <sstream>

using namespace tideline;
namespace fs = std::filesystem;

namespace {

const fs::path kLabs = fs::path(TIDELINE_SOURCE_DIR) / "pipelines" / "labs";

std::vector<fs::path> labs()
{
    std::vector<fs::path> out;
    for (const auto &e : fs::directory_iterator(kLabs))
        if (e.is_directory() && fs::exists(e.path() / "task.md"))
            out.push_back(e.path());
    std::sort(out.begin(), out.end());
    return out;
}

/// Runs `pipeline` and compares its sinks with `expectedDir`; `error` when it cannot run.
expected::Report check(const fs::path &pipeline, const fs::path &expectedDir, std::string &error)
{
    auto loaded = loadSpecFile(pipeline.string());
    if (!loaded.ok()) {
        error = testing::diagnosticsText(loaded.diagnostics);
        return {};
    }
    testing::TempDir temp;
    PipelineSpec spec = *loaded.spec;
    expected::Plan plan;
    if (error = expected::prepare(spec, temp.path.string(), "the lab test", plan); !error.empty())
        return {};
    JobOptions options;
    options.baseDir = pipeline.parent_path().string();
    {
        auto job = Job::create(spec, std::move(options), error);
        if (!job)
            return {};
        if (job->run() != Job::Status::Finished) {
            error = "the run did not finish: " + job->failure();
            return {};
        }
    } // the job is gone: its sinks are closed
    return expected::compare(plan, expected::readOutputs(plan), expectedDir.string());
}

std::vector<std::string> nonBlankLines(const fs::path &file)
{
    std::vector<std::string> out;
    for (auto &line : testing::readLines(file.string()))
        if (line.find_first_not_of(" \t\r") != std::string::npos)
            out.push_back(line);
    return out;
}

} // namespace

class LabsEngineTest : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void thereAreFiveLabs() { QVERIFY(labs().size() >= 5); }

    void startFailsAndSolutionPasses_data()
    {
        QTest::addColumn<QString>("lab");
        for (const auto &l : labs())
            QTest::newRow(l.filename().string().c_str()) << QString::fromStdString(l.string());
    }
    void startFailsAndSolutionPasses()
    {
        QFETCH(QString, lab);
        const fs::path dir = lab.toStdString();
        std::string error;
        const expected::Report start = check(dir / "pipeline.json", dir / "expected", error);
        QVERIFY2(error.empty(), error.c_str());
        QVERIFY2(!start.passed(), "the starting pipeline must fail its check");
        const bool named = std::any_of(start.sinks.begin(), start.sinks.end(), [](const auto &s) {
            return s.status == expected::SinkStatus::Fail && !s.findings.empty();
        });
        QVERIFY2(named, "the check must name what differs");
        QVERIFY(start.staleFiles.empty());

        const expected::Report solution
            = check(dir / "solution" / "pipeline.json", dir / "expected", error);
        QVERIFY2(error.empty(), error.c_str());
        std::ostringstream report;
        expected::printReport(solution, report);
        QVERIFY2(solution.passed(), report.str().c_str());
        QCOMPARE(solution.matching, int(solution.sinks.size()));
    }

    void solutionDiffersAndTaskNamesItsConcept_data() { startFailsAndSolutionPasses_data(); }
    void solutionDiffersAndTaskNamesItsConcept()
    {
        QFETCH(QString, lab);
        const fs::path dir = lab.toStdString();
        auto start = loadSpecFile((dir / "pipeline.json").string());
        auto solution = loadSpecFile((dir / "solution" / "pipeline.json").string());
        QVERIFY(start.ok() && solution.ok());
        // The solution lives one folder deeper: its paths say "../" more. Apart from that, the
        // nodes' params or the edges differ (there is something to fix), with the same node
        // ids (a student edits the pipeline, not a new one).
        std::vector<NodeSpec> fixed = solution.spec->nodes;
        for (auto &n : fixed)
            if (n.params.contains("path"))
                n.params["path"] = n.params["path"].get<std::string>().substr(3);
        QCOMPARE(fixed.size(), start.spec->nodes.size());
        for (std::size_t i = 0; i < fixed.size(); ++i)
            QCOMPARE(fixed[i].id, start.spec->nodes[i].id);
        QVERIFY2(fixed != start.spec->nodes || solution.spec->edges != start.spec->edges,
                 "the solution must change something");
        const std::string task = testing::readFile((dir / "task.md").string());
        QVERIFY2(task.rfind("# Lab ", 0) == 0, "task.md starts with its title");
        QVERIFY(task.find("**Concept:**") != std::string::npos);
        QVERIFY(task.find("## Your task") != std::string::npos);
    }

    void recordingHoldsTheInput_data() { startFailsAndSolutionPasses_data(); }
    void recordingHoldsTheInput()
    {
        QFETCH(QString, lab);
        const fs::path dir = lab.toStdString();
        auto spec = loadSpecFile((dir / "pipeline.json").string());
        QVERIFY(spec.ok());
        std::vector<recording::SourceInfo> sources;
        fs::path input;
        for (const auto &n : spec.spec->nodes)
            if (n.kind == "source.file") {
                sources.push_back({n.id, n.kind, 1, 0});
                input = dir / n.params.at("path").get<std::string>();
            }
        QCOMPARE(sources.size(), std::size_t(1));
        std::string error;
        auto reader = recording::Reader::open((dir / "recording").string(), error);
        QVERIFY2(reader, error.c_str());
        const recording::Manifest &m = reader->info().manifest;
        QVERIFY(m.complete);
        QCOMPARE(m.pipeline, spec.spec->name);
        QVERIFY(recording::sourceMismatches(m, sources).empty());
        const auto lines = nonBlankLines(input);
        QCOMPARE(m.records, std::int64_t(lines.size()));
        recording::Entry e;
        std::size_t i = 0;
        while (reader->next(e)) {
            QVERIFY(i < lines.size());
            QCOMPARE(e.value, lines[i]);
            QCOMPARE(e.source, 0);
            ++i;
        }
        QVERIFY2(reader->error().empty(), reader->error().c_str());
        QCOMPARE(i, lines.size());
    }
};

QTEST_MAIN(LabsEngineTest)
#include "test_labs_engine.moc"
