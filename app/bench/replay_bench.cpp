// tideline-bench replay: is a replay at least as fast as source.file on the same records
// (issue 19)? The same JSONL lines, once read by source.file and once replayed from a
// recording of a run over them; both through watermark -> tumbling count -> discard.

#include "bench_commands.hpp"
#include "measure.hpp"
#include "spec_builder.hpp"

#include <tideline/engine/job.hpp>
#include <tideline/engine/record_replay.hpp>
#include <tideline/engine/validate.hpp>

#include <cstdio>
#include <filesystem>
#include <stdlib.h>

namespace tideline::bench {

namespace fs = std::filesystem;

namespace {

PipelineSpec filePipeline(const std::string &file, std::int64_t sizeMs)
{
    PipelineSpec s;
    s.name = "bench-replay";
    addNode(s, "src", "source.file", {{"path", file}});
    addNode(s, "wm", "watermark", {{"time_field", "event_time"}, {"max_out_of_orderness_ms", 0}});
    addNode(s, "win", "window",
            {{"type", "tumbling"},
             {"size_ms", sizeMs},
             {"key", Json::array({"user_id"})},
             {"aggregates", Json::array({{{"op", "count"}, {"as", "n"}}})}});
    addNode(s, "out", "sink.discard", Json::object());
    addEdge(s, "src.out", "wm.in");
    addEdge(s, "wm.out", "win.in");
    addEdge(s, "win.out", "out.in");
    return s;
}

bool runUntimed(const PipelineSpec &spec, JobOptions opts, const char *what)
{
    std::string error;
    auto job = Job::create(spec, opts, error);
    if (!job || job->run() != Job::Status::Finished) {
        std::fprintf(stderr, "tideline-bench replay: %s failed: %s\n", what,
                     job ? job->failure().c_str() : error.c_str());
        return false;
    }
    return true;
}

} // namespace

int replayBench(const Options &o)
{
    std::string tmpl = (fs::temp_directory_path() / "tideline-bench-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) {
        std::fprintf(stderr, "tideline-bench: cannot create a temp folder\n");
        return 1;
    }
    struct Remove
    {
        std::string dir;
        ~Remove()
        {
            std::error_code ec;
            fs::remove_all(dir, ec);
        }
    } remove{tmpl};
    const std::string file = tmpl + "/events.jsonl", rec = tmpl + "/rec";
    {
        PipelineSpec w;
        addNode(w, "gen", "source.generator",
                {{"count", o.lines}, {"rate_per_s", o.rate}, {"keys", o.keys}, {"seed", 7}});
        addNode(w, "file", "sink.file", {{"path", file}});
        addEdge(w, "gen.out", "file.in");
        if (!runUntimed(w, {}, "writing the input"))
            return 1;
    }
    const PipelineSpec spec = filePipeline(file, o.sizeMs);
    for (const auto &d : validate(spec))
        if (d.isError()) {
            std::fprintf(stderr, "tideline-bench replay: %s\n", d.format().c_str());
            return 1;
        }
    {
        std::string error;
        auto recorder
            = recording::Recorder::create(rec, spec, "bench", {}, SystemClock::instance(), error);
        JobOptions jo;
        jo.capture = recorder.get();
        std::string begin;
        if (!recorder) {
            std::fprintf(stderr, "tideline-bench replay: %s\n", error.c_str());
            return 1;
        }
        auto job = Job::create(spec, jo, error);
        if (!job || !(begin = recorder->begin()).empty() || job->run() != Job::Status::Finished
            || !recorder->finish("end of input").empty()) {
            std::fprintf(stderr, "tideline-bench replay: recording failed: %s\n",
                         job ? (begin + job->failure()).c_str() : error.c_str());
            return 1;
        }
    }
    std::printf("wrote %lld lines (%.1f MiB) and their recording (%.1f MiB) (not timed)\n",
                static_cast<long long>(o.lines), double(fs::file_size(file)) / 1048576.0,
                double(fs::file_size(rec + "/records.tsv")) / 1048576.0);
    // r = -1: one untimed run of each first. The process's first run pays its warm-up (fresh
    // heap pages, the workers' arenas, the page cache's first reads of both files), which the
    // alternation would otherwise charge to the replay, whose pair goes first.
    for (int r = -1; r < o.repeat; ++r) {
        // Peak RSS is the process's maximum so far: the second run's figure includes the first's.
        std::string error;
        auto replayer = recording::Replayer::open(rec, spec, "bench", 0, error);
        if (!replayer) {
            std::fprintf(stderr, "tideline-bench replay: %s\n", error.c_str());
            return 1;
        }
        JobOptions replayOpts, fileOpts;
        replayOpts.feed = replayer.get();
        replayOpts.clock = &replayer->clock();
        replayOpts.parallelism = fileOpts.parallelism = o.parallelism; // both at the same N
        if (r < 0) {
            if (!runUntimed(spec, replayOpts, "the warm-up replay")
                || !runUntimed(spec, fileOpts, "the warm-up run"))
                return 1;
            continue;
        }
        // The order alternates run by run: on a shared machine the second run of a pair is not
        // measured under the same conditions as the first.
        Measurement replay, direct;
        if (r % 2 == 0) {
            replay = runPipeline(spec, ".", {}, replayOpts);
            direct = runPipeline(spec, ".", {}, fileOpts);
        } else {
            direct = runPipeline(spec, ".", {}, fileOpts);
            replay = runPipeline(spec, ".", {}, replayOpts);
        }
        if (!replay.failure.empty() || !direct.failure.empty()) {
            std::fprintf(stderr, "tideline-bench replay: %s%s\n", replay.failure.c_str(),
                         direct.failure.c_str());
            return 1;
        }
        const std::string desc
            = " -> watermark(event_time) -> window(tumbling " + std::to_string(o.sizeMs)
              + " ms, count by user_id) -> discard"
              + (o.parallelism > 1 ? ", parallelism " + std::to_string(o.parallelism)
                                   : std::string());
        print("replay", "--replay of " + std::to_string(o.lines) + " recorded lines" + desc,
              replay);
        std::printf("\n");
        print("replay-file", "source.file(jsonl, " + std::to_string(o.lines) + " lines)" + desc,
              direct);
        std::printf("replay_vs_file %.2f (events/s of the replay / of source.file)%s\n",
                    direct.eventsPerSecond() > 0
                        ? replay.eventsPerSecond() / direct.eventsPerSecond()
                        : 0.0,
                    replay.checksum == direct.checksum ? "" : "  CHECKSUMS DIFFER");
        // CPU-normalised: what a loaded machine's wall clock does not distort.
        std::printf("replay_vs_file_cpu %.2f (events per CPU second of the replay / of "
                    "source.file; %s first)\n",
                    direct.eventsPerCpuSecond() > 0
                        ? replay.eventsPerCpuSecond() / direct.eventsPerCpuSecond()
                        : 0.0,
                    r % 2 == 0 ? "replay" : "source.file");
        if (r + 1 < o.repeat)
            std::printf("\n");
    }
    return 0;
}

} // namespace tideline::bench
