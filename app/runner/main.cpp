// tideline-run: validate or execute a pipeline file headless (the contract's runner).

#include "cli_options.hpp"
#include "log.hpp"
#include "metrics_server.hpp"
#include "record_replay.hpp"
#include "compare_command.hpp"
#include "sweep_command.hpp"

#include <tideline/engine/catalog_markdown.hpp>
#include <tideline/engine/client_log.hpp>
#include <tideline/engine/expected_outputs.hpp>
#include <tideline/engine/job.hpp>
#include <tideline/engine/metrics_json.hpp>
#include <tideline/engine/upsert_table.hpp>
#include <tideline/engine/validate.hpp>

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

namespace {

std::atomic<tideline::Job *> g_job{nullptr};
std::atomic<int> g_signals{0}; // lock-free, so safe to touch in a signal handler

extern "C" void onSignal(int)
{
    if (g_signals.fetch_add(1) > 0)
        std::_Exit(130); // a second Ctrl-C means "now"
    if (tideline::Job *job = g_job.load())
        job->requestStop();
}

int printDiagnostics(const std::vector<tideline::Diagnostic> &diags, const std::string &file)
{
    int errors = 0, warnings = 0;
    for (const auto &d : diags) {
        namespace rlog = tideline::runner::log;
        rlog::write(d.isError() ? rlog::Level::Error : rlog::Level::Warning, d.format(),
                    {{"file", file}, {"node", d.nodeId}, {"path", d.path}});
        (d.isError() ? errors : warnings)++;
    }
    if (errors)
        tideline::runner::log::error(std::to_string(errors) + " error(s), "
                                         + std::to_string(warnings)
                                         + " warning(s); the pipeline is invalid",
                                     {{"file", file}});
    return errors;
}

} // namespace

int main(int argc, char **argv)
{
    using namespace tideline;
    runner::CliOptions opt;
    std::string usageError = runner::parseCli(argc, argv, opt);
    runner::log::setFormat(opt.logFormat == "json" ? runner::log::Format::Json
                                                   : runner::log::Format::Text);
    // librdkafka's own lines (connection failures, ...) in the runner's log format, one
    // write per line, instead of its raw text on stderr.
    setClientLogHandler(runner::log::clientLine);
    if (opt.help) {
        std::cout << runner::usage();
        return 0;
    }
    if (opt.version) {
        std::cout << "tideline-run " << TIDELINE_VERSION << " (pipeline format tideline/1)\n";
        return 0;
    }
    if (opt.describe) {
        std::cout << catalogMarkdown();
        return 0;
    }
    if (!usageError.empty()) {
        runner::log::error(usageError);
        return 2;
    }
    if (!opt.dumpTable.empty()) {
        // Inspect a sink.upsert table: one JSON line per key, in key order.
        std::string error;
        if (!dumpUpsertTable(opt.dumpTable, std::cout, error)) {
            runner::log::error(error);
            return 1;
        }
        return 0;
    }

    LoadResult loaded = loadSpecFile(opt.pipeline);
    const std::string baseDir = std::filesystem::absolute(opt.pipeline).parent_path().string();
    if (!opt.semantics.empty() && loaded.spec) {
        // --semantics overrides the file's choice for this run: validated as if written there.
        loaded.spec->settings["semantics"] = opt.semantics;
        loaded.diagnostics = validate(*loaded.spec, baseDir);
    }
    if (opt.validateOnly && loaded.spec) {
        // "valid" means "starts here": also what depends on this machine (references, input
        // files), which the designer's validation leaves out.
        auto env = validateEnvironment(*loaded.spec, baseDir);
        loaded.diagnostics.insert(loaded.diagnostics.end(), env.begin(), env.end());
    }
    int errors = printDiagnostics(loaded.diagnostics, opt.pipeline);
    if (errors || !loaded.spec)
        return 2;
    if (opt.validateOnly) {
        std::size_t warnings = loaded.diagnostics.size();
        runner::log::info(warnings ? "valid (" + std::to_string(warnings) + " warning(s))"
                                   : std::string("valid"),
                          {{"file", opt.pipeline}});
        return 0;
    }

    if (!opt.sweeps.empty()) // what-if sweep: every combination in its own temp folder
        return runner::runSweepCommand(opt, *loaded.spec, baseDir);
    if (opt.compareEngines) // every engine in its own temp folder
        return runner::runCompareCommand(opt, *loaded.spec, baseDir);

    std::ofstream metricsOut;
    if (!opt.metricsFile.empty()) {
        metricsOut.open(opt.metricsFile, std::ios::app);
        if (!metricsOut) {
            runner::log::error("cannot open metrics file " + opt.metricsFile);
            return 1;
        }
    }

    // --expect: the sinks write into a temporary folder, compared (or saved) after the run.
    std::string expectTemp;
    expected::Plan expectPlan;
    if (!opt.expectDir.empty() || opt.explaining()) {
        const std::string caller = opt.explaining() ? "--explain" : "--expect";
        std::string pattern
            = (std::filesystem::temp_directory_path() / "tideline-expect-XXXXXX").string();
        if (!::mkdtemp(pattern.data())) {
            runner::log::error(caller + ": cannot create a temporary folder: " + pattern);
            return 1;
        }
        expectTemp = pattern;
        if (std::string e = expected::prepare(*loaded.spec, expectTemp, caller, expectPlan);
            !e.empty()) {
            std::filesystem::remove_all(expectTemp);
            runner::log::error(e, {{"file", opt.pipeline}});
            return 2;
        }
    }
    struct RemoveTemp
    {
        const std::string &dir;
        ~RemoveTemp()
        {
            std::error_code ec;
            if (!dir.empty())
                std::filesystem::remove_all(dir, ec);
        }
    } removeTemp{expectTemp};

    JobOptions jo;
    jo.baseDir = baseDir;
    jo.metricsIntervalMs = opt.metricsIntervalMs;
    jo.fresh = opt.fresh;
    jo.parallelism = opt.parallelism >= 0
                         ? opt.parallelism
                         : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    jo.checkpointDirOverride = opt.checkpointDir;
    jo.member = opt.member;
    jo.resetState = opt.resetState;
    jo.discardOutput = opt.discardOutput;
    jo.restoreFrom = opt.restoreFrom;
    jo.savepointOnStop = opt.savepointDir;
    jo.lineage.enabled = opt.explaining();
    if (opt.lineageRecords > 0)
        jo.lineage.maxRecords = opt.lineageRecords;
    if (opt.lineageMiB > 0)
        jo.lineage.maxBytes = opt.lineageMiB << 20;
    jo.log = [](const std::string &line) {
        bool warn = line.rfind("warning", 0) == 0;
        runner::log::write(warn ? runner::log::Level::Warning : runner::log::Level::Info, line);
    };
    // --record / --replay (record_replay.cpp): the recorder flushes each metrics interval.
    runner::RecordReplay recordReplay;
    if (std::string e = recordReplay.prepare(opt, *loaded.spec, jo); !e.empty()) {
        runner::log::error(e, {{"file", opt.pipeline}});
        return 1;
    }
    jo.onMetrics = [&metricsOut, &recordReplay](const observe::MetricsSnapshot &s) {
        recordReplay.checkpoint();
        if (!metricsOut.is_open())
            return;
        for (const auto &n : s.nodes)
            metricsOut << nodeMetricsLine(n, s.takenAtMs) << "\n";
        metricsOut << runMetricsLine(s) << "\n";
        metricsOut.flush();
    };

    std::string error;
    auto job = Job::create(*loaded.spec, jo, error);
    if (!job) {
        runner::log::error(error);
        return 1;
    }
    if (std::string e = recordReplay.start(*job); !e.empty()) {
        runner::log::error(e);
        return 1;
    }
    // Declared after the job so it stops (and joins) before the job goes away.
    std::unique_ptr<runner::MetricsServer> metricsServer;
    if (!opt.metricsListen.empty()) {
        auto address = runner::parseListenAddress(opt.metricsListen, error); // checked by parseCli
        metricsServer = std::make_unique<runner::MetricsServer>([&job] { return job->snapshot(); });
        if (!address || !metricsServer->start(*address, error)) {
            runner::log::error(error);
            return 1;
        }
        runner::log::info("metrics: serving http://" + metricsServer->boundAddress()
                          + "/metrics and /health");
    }
    g_job.store(job.get());
    std::signal(SIGINT, onSignal);
    std::signal(SIGTERM, onSignal);
    // SIGHUP (the terminal went away, or an operator's "reload") is a graceful stop too: by
    // default it would end the process without the final checkpoint and flush. Nothing is
    // reloaded: restart the runner to pick up a changed pipeline.
    std::signal(SIGHUP, onSignal);

    Job::Status status = job->run();
    g_job.store(nullptr);
    if (std::string e = recordReplay.finish(status); !e.empty()) {
        runner::log::error(e);
        return 1;
    }
    if (status == Job::Status::Failed) {
        runner::log::error(job->failure());
        return 1;
    }
    auto snap = job->snapshot();
    runner::log::info(std::string(status == Job::Status::Stopped ? "stopped" : "done") + ": "
                      + std::to_string(snap.recordsRead) + " records read in "
                      + std::to_string(snap.takenAtMs - snap.startedAtMs) + " ms");
    if (opt.explaining() && job->lineage()) {
        const lineage::Explanation e
            = opt.explain.empty() ? lineage::explainOutputs(*job->lineage(), opt.explainOutput)
                                  : lineage::explainInputs(*job->lineage(), opt.explain);
        if (!e.error.empty()) {
            runner::log::error("--explain: " + e.error);
            return 2;
        }
        if (opt.explainFormat == "json")
            lineage::printJson(e, std::cout);
        else
            lineage::printText(e, std::cout);
        return 0;
    }
    if (!opt.expectDir.empty()) {
        if (status == Job::Status::Stopped) {
            runner::log::error("--expect: the run was stopped before its inputs ended; nothing "
                               "was compared");
            return 1;
        }
        metricsServer.reset();
        job.reset(); // sinks closed: their files and tables are complete and readable
        const auto outputs = expected::readOutputs(expectPlan);
        const expected::Report report = opt.updateExpected
                                            ? expected::write(expectPlan, outputs, opt.expectDir)
                                            : expected::compare(expectPlan, outputs, opt.expectDir);
        expected::printReport(report, std::cout);
        return report.passed() ? 0 : 1;
    }
    return 0;
}
