// tideline-bench: throughput of whole pipelines on this machine, per core.
//
// Each subcommand builds (or loads) a pipeline ending in sink.discard, runs it in-process to
// the end of its bounded input, and prints events/s, CPU seconds (user + sys of the whole
// process, generator included), events per CPU second (= per core), peak RSS, and the rows
// and checksum that reached the sink, so two runs can be compared for equal results.
// This is a benchmark, not a test: nothing here asserts a speed.

#include "bench_commands.hpp"

#include <cstdio>
#include <cstring>
#include <string>

using namespace tideline::bench;

namespace {

const char *kUsage = R"(Usage: tideline-bench COMMAND [OPTIONS]

Commands (every pipeline ends in sink.discard; inputs are bounded):
  generator-window   source.generator -> watermark -> tumbling count per user_id -> discard
                     --events N (10000000)  --keys K (10000)  --rate R (100000 events/s of
                     event time)  --size-ms S (10000)  --slide-ms P (sliding every P ms)
                     --sum on|off (off: sum(value) beside count, as issue 22's workloads)
  file-window        writes a JSONL file of --lines N (1000000) generator events to a temp
                     folder (not timed), then source.file -> watermark -> tumbling count
                     --keys K (10000)  --rate R (100000)  --size-ms S (10000)  --slide-ms P
                     --sum on|off
  generator-dedup    generator of --ids D (1000000) distinct event_ids, some sent twice so the
                     stream has --events N (2000000, at most 2*D) records -> watermark(1 s)
                     -> dedup(event_id, within 2 s) -> discard   --rate R
  generator-join     two generators (N/2 events each, --events N (10000000)) -> watermarks
                     -> interval join on user_id (-500 ms .. +500 ms) -> discard
                     --keys K (10000: ~5 partners per record at the default rate)  --rate R
                     Both print the stateful node's records in/out, peak_state_entries (max of
                     state_entries sampled every 4096 source records) and final_state_entries.
                     --operator off runs the same sources and sink without the dedup/join
                     stage (what the generators and watermarks cost on their own).
  nexmark            a Nexmark query from pipelines/nexmark with the in-process generator
                     --query q0|q1|q2|q5|q7|q8|q11 (q5)  --events N (50000000)
                     --rate R (100000: Nexmark V2 event-time density)  --generators G (1)
                     --pipelines DIR (the source tree's pipelines/nexmark)
  nexmark-file       writes --events N Nexmark events as JSONL (not timed), then runs the
                     query with source.file in place of source.nexmark
  postgres           source.generator (--events N, 1000000) -> sink.postgres (mode upsert on
                     event_id, batch_rows 1000) into --conninfo C (a local server; password as
                     ${env:NAME}), once at_least_once and once exactly_once (checkpoints every
                     --checkpoint-ms M, 1000), each into a fresh table; prints rows/s of each
                     and what exactly_once costs against at_least_once
  replay             writes --lines N (1000000) generator events as JSONL and records a run of
                     source.file over them (--record, not timed), then runs source.file ->
                     watermark -> tumbling count -> discard on the file and on the recording
                     (--replay, flat out); prints both and replay's events/s against the file's
                     (--parallelism N: both runs at N; the replay then parses on the workers);
                     one untimed run of each first (the process's warm-up)

Common options:
  --repeat R         run R times and print every run (default 1)
  --parallelism N    run keyed stages as N instances on N threads (default 1)
  --lineage N        with lineage on (JobOptions::lineage, as tideline-run --explain), keeping
                     the newest N input records traceable (what tracing costs; docs/lineage.md)
  --semantics NAME   settings.semantics of the measured pipeline: flink (the file's default),
                     spark or kafka-streams (docs/reference/semantics.md)
  --help

Figures: events_per_s = events / wall seconds of the run loop; cpu_s = user + sys CPU of the
whole process during the run (getrusage); events_per_cpu_s = events / cpu_s, i.e. per core;
peak_rss_mib = ru_maxrss. The 1-minute load average is printed because the machine is shared.
)";

} // namespace

int main(int argc, char **argv)
{
    if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
        std::fputs(kUsage, argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    Options opts;
    std::string error = parseOptions(argc, argv, 2, opts);
    if (!error.empty()) {
        std::fprintf(stderr, "tideline-bench: %s\n(see tideline-bench --help)\n", error.c_str());
        return 2;
    }
    std::string cmd = argv[1];
    int rc = runCommand(cmd, opts);
    if (rc == 2)
        std::fprintf(stderr, "tideline-bench: unknown command `%s` (see --help)\n", cmd.c_str());
    return rc;
}
