#include "cli_options.hpp"

#include "metrics_server.hpp"

#include <charconv>
#include <cstdlib>
#include <string_view>

namespace tideline::runner {

const char *usage()
{
    return R"(Usage: tideline-run [OPTIONS] PIPELINE.json

Runs a Tideline pipeline headless. Bounded inputs (files, generators with a count)
end the run by themselves; Ctrl-C, SIGTERM or SIGHUP stops taking input, takes a
final checkpoint where checkpoints are configured, flushes sinks and exits 0.

Options:
  --validate              check only: print every error and pitfall warning, then exit
                          (what validates starts here: params as the run reads them,
                          references, input files; brokers are met only at start)
  --semantics NAME        run with NAME's event-time rules for this run: flink (the
                          default), spark or kafka-streams (overrides settings.semantics;
                          see docs/reference/semantics.md)
  --metrics FILE          append one JSON line per node per interval, and a last line
                          per node when the run ends (plus a "*" line with run figures)
  --metrics-interval MS   metrics interval (default 1000)
  --parallelism N|auto    run keyed nodes (keyed windows, dedup) as N instances on N
                          threads, overriding settings.parallelism; auto = the cores
                          available. Outputs are the same for every N, and a checkpoint
                          taken at one N restores at any other
  --fresh                 discard existing checkpoints and start from the beginning
  --checkpoint-dir DIR    override settings.checkpoint.dir
  --member NAME           this process's name in a Kafka consumer group (default
                          "default"); members share the checkpoint dir, each checkpoints
                          under members/NAME/ and partitions' state moves between them
  --savepoint DIR         when the run stops, write a savepoint to DIR
  --restore DIR           start from the savepoint or checkpoint in DIR
  --reset-state NODE      discard restored state of NODE (repeatable); for a sink whose
                          output holds committed data, also --discard-output NODE
  --discard-output NODE   let --reset-state NODE start sink NODE's output over, deleting
                          what earlier runs committed to it (repeatable)
  --dump-table PATH       print a sink.upsert table as JSON lines and exit
  --expect DIR            run the (bounded) pipeline with its sinks writing into a temp
                          folder, compare each sink's output with DIR/<sink id>.jsonl
                          (.csv for CSV sinks; an upsert table by its rows in key order)
                          and print the difference by window, key and row; exit 0 when
                          all match, 1 when not. The pipeline's own outputs and
                          checkpoints are not touched
  --update-expected       with --expect DIR (default: expected/ beside the pipeline),
                          write those files from this run instead of comparing
  --record DIR            record every source's input as it arrives (a file's lines, a
                          Kafka message with partition, offset, key, timestamp and
                          headers, generated records), in arrival order with its
                          processing times, into the new folder DIR (a recording)
  --record-max-records N  stop the run when the recording holds N records
  --record-max-bytes N    ... when records.tsv would grow beyond N bytes
  --record-max-duration MS  ... when MS of processing time are recorded
  --replay DIR            run the pipeline on the recording in DIR instead of its sources
                          (no Kafka needed), on a virtual clock: the same outputs every
                          time, idleness and other processing-time behaviour included;
                          checkpoints are off for a replay
  --replay-speed N|max    pace of a replay: max (flat out, the default), 1 (as recorded)
                          or N times as fast
  --sweep NODE.PARAM=V1,V2,...
                          what-if sweep (repeatable): run the (bounded) pipeline once per
                          combination of the values, in parallel, each in a temp folder,
                          and print one row per combination: late_dropped, late_accepted,
                          results, completeness, latency_p50_ms, latency_p99_ms,
                          peak_state_entries, peak_state_bytes (pipelines/README.md,
                          "What-if sweeps")
  --sweep-jobs N          combinations run at once (default: the machine's cores)
  --sweep-format text|csv|json
                          the sweep table's format (default text)
  --compare-engines[=E1,E2,...]
                          run the (bounded) pipeline once per semantics mode (flink, spark,
                          kafka-streams; default all three), each in a temp folder, and
                          print the rows only one engine emits, the rows whose values
                          differ and what each engine dropped; exit 0 when all agree, 1
                          when they differ (docs/reference/semantics.md)
  --compare-format text|json
                          how --compare-engines prints (default text)
  --metrics-listen ADDR   serve Prometheus metrics (GET /metrics) and GET /health on ADDR:
                          PORT or 127.0.0.1:PORT bind loopback only; another address
                          (0.0.0.0:PORT, [::]:PORT, a LAN address) only when written out
  --explain EXPR          run the (bounded) pipeline with lineage, its sinks writing into a
                          temp folder, and print for every input record for which EXPR is
                          true (e.g. 'click_id == "clk-0082"') its path: each node it
                          reached and what happened there, and the output rows it made
  --explain-output EXPR   the same for the output rows (as a sink received them) for which
                          EXPR is true: what made each row and from which input records
  --explain-format text|json
                          how --explain prints (default text)
  --lineage-budget RECORDS,MIB
                          input records and MiB lineage keeps (default 200000,256); past
                          it the oldest are forgotten and --explain says how many
  --log-format text|json  format of log lines on stderr (default text); librdkafka's
                          lines too
  --help                  show this help
  --version               print the version
  --describe              print every node kind with its ports and params (Markdown)

Exit status: 0 done; 2 the pipeline is invalid (every problem listed on stderr, each
with the node id and JSON path); 1 a failure while running.
)";
}

std::string parseCli(int argc, char **argv, CliOptions &out)
{
    for (int i = 1; i < argc; ++i) {
        std::string_view a = argv[i];
        auto value = [&](std::string &dst) -> bool {
            if (i + 1 >= argc)
                return false;
            dst = argv[++i];
            return true;
        };
        std::string tmp;
        if (a == "--help" || a == "-h")
            out.help = true;
        else if (a == "--version")
            out.version = true;
        else if (a == "--describe")
            out.describe = true;
        else if (a == "--validate")
            out.validateOnly = true;
        else if (a == "--semantics") {
            if (!value(out.semantics))
                return "--semantics needs flink, spark or kafka-streams";
            if (out.semantics != "flink" && out.semantics != "spark"
                && out.semantics != "kafka-streams")
                return "--semantics must be flink, spark or kafka-streams, not `" + out.semantics
                       + "`";
        } else if (a == "--fresh")
            out.fresh = true;
        else if (a == "--metrics") {
            if (!value(out.metricsFile))
                return "--metrics needs a file";
        } else if (a == "--metrics-interval") {
            if (!value(tmp))
                return "--metrics-interval needs milliseconds";
            auto r = std::from_chars(tmp.data(), tmp.data() + tmp.size(), out.metricsIntervalMs);
            if (r.ec != std::errc() || out.metricsIntervalMs <= 0)
                return "--metrics-interval must be a positive number of milliseconds";
        } else if (a == "--parallelism") {
            if (!value(tmp))
                return "--parallelism needs a number of threads or auto";
            if (tmp == "auto")
                out.parallelism = -1;
            else {
                auto r = std::from_chars(tmp.data(), tmp.data() + tmp.size(), out.parallelism);
                if (r.ec != std::errc() || r.ptr != tmp.data() + tmp.size() || out.parallelism < 1
                    || out.parallelism > 128)
                    return "--parallelism must be a number from 1 to 128 or auto, got `" + tmp
                           + "`";
            }
        } else if (a == "--checkpoint-dir") {
            if (!value(out.checkpointDir))
                return "--checkpoint-dir needs a folder";
        } else if (a == "--member") {
            if (!value(out.member))
                return "--member needs a name";
        } else if (a == "--savepoint") {
            if (!value(out.savepointDir))
                return "--savepoint needs a folder";
        } else if (a == "--restore") {
            if (!value(out.restoreFrom))
                return "--restore needs a folder";
        } else if (a == "--reset-state") {
            if (!value(tmp))
                return "--reset-state needs a node id";
            out.resetState.push_back(tmp);
        } else if (a == "--discard-output") {
            if (!value(tmp))
                return "--discard-output needs a sink node id";
            out.discardOutput.push_back(tmp);
        } else if (a == "--dump-table") {
            if (!value(out.dumpTable))
                return "--dump-table needs a table folder";
        } else if (a == "--expect") {
            if (!value(out.expectDir))
                return "--expect needs a folder of expected outputs";
        } else if (a == "--update-expected") {
            out.updateExpected = true;
        } else if (a == "--record") {
            if (!value(out.recordDir))
                return "--record needs a folder";
        } else if (a == "--record-max-records" || a == "--record-max-bytes"
                   || a == "--record-max-duration") {
            std::int64_t &dst = a == "--record-max-records" ? out.recordMaxRecords
                                : a == "--record-max-bytes" ? out.recordMaxBytes
                                                            : out.recordMaxDurationMs;
            if (!value(tmp))
                return std::string(a) + " needs a number";
            auto r = std::from_chars(tmp.data(), tmp.data() + tmp.size(), dst);
            if (r.ec != std::errc() || r.ptr != tmp.data() + tmp.size() || dst <= 0)
                return std::string(a) + " must be a positive whole number";
        } else if (a == "--replay") {
            if (!value(out.replayDir))
                return "--replay needs a recording folder";
        } else if (a == "--replay-speed") {
            if (!value(tmp))
                return "--replay-speed needs max or a factor";
            if (tmp == "max") {
                out.replaySpeed = 0;
            } else {
                char *end = nullptr;
                out.replaySpeed = std::strtod(tmp.c_str(), &end);
                if (end != tmp.c_str() + tmp.size() || !(out.replaySpeed > 0)
                    || out.replaySpeed > 1e6)
                    return "--replay-speed must be max or a factor above 0 (1 = as recorded)";
            }
        } else if (a == "--sweep") {
            if (!value(tmp) || tmp.empty())
                return "--sweep needs NODE.PARAM=V1,V2,...";
            out.sweeps.push_back(tmp);
        } else if (a == "--sweep-jobs") {
            if (!value(tmp))
                return "--sweep-jobs needs a number";
            auto r = std::from_chars(tmp.data(), tmp.data() + tmp.size(), out.sweepJobs);
            if (r.ec != std::errc() || r.ptr != tmp.data() + tmp.size() || out.sweepJobs <= 0)
                return "--sweep-jobs must be a positive number of combinations run at once";
        } else if (a == "--sweep-format") {
            if (!value(out.sweepFormat)
                || (out.sweepFormat != "text" && out.sweepFormat != "csv"
                    && out.sweepFormat != "json"))
                return "--sweep-format must be text, csv or json";
        } else if (a == "--metrics-listen") {
            if (!value(out.metricsListen))
                return "--metrics-listen needs PORT or HOST:PORT";
            std::string error; // checked here so a typo is a usage error (exit 2), not a late one
            if (!parseListenAddress(out.metricsListen, error))
                return error;
        } else if (a == "--explain") {
            if (!value(out.explain) || out.explain.empty())
                return "--explain needs an expression, e.g. 'click_id == \"clk-0082\"'";
        } else if (a == "--explain-output") {
            if (!value(out.explainOutput) || out.explainOutput.empty())
                return "--explain-output needs an expression, e.g. 'user == \"u7\"'";
        } else if (a == "--explain-format") {
            if (!value(out.explainFormat)
                || (out.explainFormat != "text" && out.explainFormat != "json"))
                return "--explain-format must be text or json";
        } else if (a == "--lineage-budget") {
            if (!value(tmp))
                return "--lineage-budget needs RECORDS,MIB";
            const auto comma = tmp.find(',');
            std::size_t records = 0, mib = 0;
            const char *end = tmp.data() + tmp.size();
            const char *mid = comma == std::string::npos ? end : tmp.data() + comma;
            auto r1 = std::from_chars(tmp.data(), mid, records);
            auto r2 = comma == std::string::npos ? r1 : std::from_chars(mid + 1, end, mib);
            if (r1.ec != std::errc() || r1.ptr != mid || r2.ec != std::errc()
                || (comma != std::string::npos && r2.ptr != end) || records == 0
                || (comma != std::string::npos && mib == 0))
                return "--lineage-budget must be RECORDS or RECORDS,MIB (positive numbers)";
            out.lineageRecords = records;
            out.lineageMiB = mib;
        } else if (a == "--compare-engines" || a.rfind("--compare-engines=", 0) == 0) {
            out.compareEngines = true;
            if (a != "--compare-engines") {
                std::string list(a.substr(std::string_view("--compare-engines=").size()));
                for (std::size_t start = 0; start <= list.size();) {
                    const auto comma = std::min(list.find(',', start), list.size());
                    const std::string name = list.substr(start, comma - start);
                    if (name != "flink" && name != "spark" && name != "kafka-streams")
                        return "--compare-engines=" + list + ": `" + name
                               + "` is not an engine; use flink, spark, kafka-streams";
                    for (const auto &seen : out.compareEngineNames)
                        if (seen == name)
                            return "--compare-engines=" + list + ": `" + name
                                   + "` is named twice";
                    out.compareEngineNames.push_back(name);
                    start = comma + 1;
                }
            }
        } else if (a == "--compare-format") {
            if (!value(out.compareFormat)
                || (out.compareFormat != "text" && out.compareFormat != "json"))
                return "--compare-format must be text or json";
        } else if (a == "--log-format") {
            if (!value(out.logFormat) || (out.logFormat != "text" && out.logFormat != "json"))
                return "--log-format must be text or json";
        } else if (!a.empty() && a[0] == '-') {
            return "unknown option " + std::string(a) + " (see --help)";
        } else if (out.pipeline.empty()) {
            out.pipeline = a;
        } else {
            return "more than one pipeline given: " + out.pipeline + " and " + std::string(a);
        }
    }
    if (!out.help && !out.version && !out.describe && out.pipeline.empty() && out.dumpTable.empty())
        return "no pipeline given (see --help)";
    if (out.updateExpected && out.expectDir.empty() && !out.pipeline.empty()) {
        const auto slash = out.pipeline.find_last_of('/');
        out.expectDir
            = (slash == std::string::npos ? std::string() : out.pipeline.substr(0, slash + 1))
              + "expected";
    }
    if (out.explaining() && !out.expectDir.empty())
        return "--explain and --expect each run the pipeline in a temporary folder: give one";
    if (!out.explain.empty() && !out.explainOutput.empty())
        return "give --explain or --explain-output, not both";
    if ((!out.expectDir.empty() || out.explaining())
        && (out.validateOnly || !out.restoreFrom.empty() || !out.savepointDir.empty()
            || !out.checkpointDir.empty() || out.member != "default"))
        return std::string(out.explaining() ? "--explain" : "--expect")
               + " runs the pipeline from the beginning in a temporary folder: it cannot be "
                 "combined with --validate, --restore, --savepoint, --checkpoint-dir or --member";
    if (!out.recordDir.empty() && !out.replayDir.empty())
        return "--record and --replay cannot be combined (a recording is of live input)";
    if (out.recordDir.empty()
        && (out.recordMaxRecords || out.recordMaxBytes || out.recordMaxDurationMs))
        return "--record-max-* limit a recording: give --record DIR too";
    if (!out.replayDir.empty()
        && (!out.restoreFrom.empty() || !out.savepointDir.empty() || !out.checkpointDir.empty()
            || out.member != "default" || !out.resetState.empty()))
        return "--replay runs the pipeline from the start on the recording, without "
               "checkpoints: it cannot be combined with --restore, --savepoint, "
               "--checkpoint-dir, --member or --reset-state";
    if (out.sweeps.empty() && (out.sweepJobs != 0 || out.sweepFormat != "text"))
        return "--sweep-jobs and --sweep-format go with --sweep NODE.PARAM=V1,V2,...";
    // Each combination runs from the beginning in its own temp folder (--replay may feed it).
    if (!out.sweeps.empty()
        && (out.validateOnly || !out.expectDir.empty() || !out.restoreFrom.empty()
            || !out.savepointDir.empty() || !out.checkpointDir.empty() || out.member != "default"
            || !out.metricsFile.empty() || !out.metricsListen.empty() || !out.dumpTable.empty()))
        return "--sweep runs every combination from the beginning in a temporary folder: it "
               "cannot be combined with --validate, --expect, --restore, --savepoint, "
               "--checkpoint-dir, --member, --metrics, --metrics-listen or --dump-table";
    if (!out.compareEngines && out.compareFormat != "text")
        return "--compare-format goes with --compare-engines";
    if (out.compareEngines
        && (out.validateOnly || !out.expectDir.empty() || !out.sweeps.empty() || out.explaining()
            || !out.restoreFrom.empty() || !out.savepointDir.empty() || !out.checkpointDir.empty()
            || out.member != "default" || !out.recordDir.empty() || !out.metricsFile.empty()
            || !out.metricsListen.empty() || !out.dumpTable.empty()))
        return "--compare-engines runs the pipeline once per engine from the beginning in a "
               "temporary folder: it cannot be combined with --validate, --expect, --sweep, "
               "--explain, --restore, --savepoint, --checkpoint-dir, --member, --record, "
               "--metrics, --metrics-listen or --dump-table (--replay DIR is fine)";
    return {};
}

} // namespace tideline::runner
