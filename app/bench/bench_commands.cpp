#include "bench_commands.hpp"

#include "measure.hpp"
#include "spec_builder.hpp"

#include <tideline/engine/job.hpp>
#include <tideline/engine/validate.hpp>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <functional>

#ifndef TIDELINE_PIPELINES_DIR
#define TIDELINE_PIPELINES_DIR "pipelines"
#endif

namespace tideline::bench {

namespace fs = std::filesystem;

namespace {

bool parseInt(const char *s, std::int64_t &v)
{
    std::string_view t(s);
    auto r = std::from_chars(t.data(), t.data() + t.size(), v);
    return r.ec == std::errc() && r.ptr == t.data() + t.size();
}

Json generatorParams(
    std::int64_t count, std::int64_t keys, double rate, std::int64_t seed, double dupFraction = 0)
{
    Json p = {{"count", count}, {"rate_per_s", rate}, {"keys", keys}, {"seed", seed}};
    if (dupFraction > 0)
        p["disorder"] = {{"duplicate_fraction", dupFraction}};
    return p;
}

Json watermarkParams(const std::string &field, std::int64_t delay)
{
    return {{"time_field", field}, {"max_out_of_orderness_ms", delay}};
}

/// The window of the window benchmarks: tumbling (or sliding, --slide-ms) count per user_id,
/// and sum(value) with --sum.
Json windowParams(const Options &o)
{
    Json aggs = Json::array({{{"op", "count"}, {"as", "n"}}});
    if (o.withSum)
        aggs.push_back({{"op", "sum"}, {"field", "value"}, {"as", "total"}});
    Json p = {{"type", o.slideMs > 0 ? "sliding" : "tumbling"},
              {"size_ms", o.sizeMs},
              {"key", Json::array({"user_id"})},
              {"aggregates", aggs}};
    if (o.slideMs > 0)
        p["slide_ms"] = o.slideMs;
    return p;
}

std::string windowDescription(const Options &o)
{
    std::string d = o.slideMs > 0 ? "sliding " + std::to_string(o.sizeMs) + " ms every "
                                        + std::to_string(o.slideMs) + " ms"
                                  : "tumbling " + std::to_string(o.sizeMs) + " ms";
    return d + (o.withSum ? ", count+sum(value)" : ", count") + " by user_id";
}

/// The measured tail of the window benchmarks: `from` -> watermark -> window -> discard.
void addWindowTail(PipelineSpec &s, const std::string &from, const Options &o)
{
    addNode(s, "wm", "watermark", watermarkParams("event_time", 0));
    addNode(s, "win", "window", windowParams(o));
    addNode(s, "out", "sink.discard", Json::object());
    addEdge(s, from, "wm.in");
    addEdge(s, "wm.out", "win.in");
    addEdge(s, "win.out", "out.in");
}

int runRepeated(const Options &o,
                const std::string &name,
                const std::string &description,
                const std::function<PipelineSpec()> &build,
                const std::string &baseDir,
                const std::string &extraJson,
                const std::vector<std::string> &stateNodes = {})
{
    for (int r = 0; r < o.repeat; ++r) {
        PipelineSpec spec = build();
        if (!o.semantics.empty()) // as tideline-run --semantics: the mode for this run
            spec.settings["semantics"] = o.semantics;
        JobOptions jo;
        jo.parallelism = o.parallelism;
        if (o.lineage > 0) { // what tracing costs: every record's path kept, up to N records
            jo.lineage.enabled = true;
            jo.lineage.maxRecords = static_cast<std::size_t>(o.lineage);
            jo.lineage.maxBytes = std::size_t{64} << 30;
        }
        Measurement m = runPipeline(spec, baseDir, stateNodes, jo);
        if (!m.failure.empty()) {
            std::fprintf(stderr, "tideline-bench %s: %s\n", name.c_str(), m.failure.c_str());
            return 1;
        }
        print(name, o.semantics.empty() ? description : description + "; semantics " + o.semantics,
              m, extraJson);
        if (r + 1 < o.repeat)
            std::printf("\n");
    }
    return 0;
}

/// Runs a pipeline once, untimed, to write a data file (generator -> sink.file).
bool writeFile(PipelineSpec spec, const std::string &what)
{
    for (const auto &d : validate(spec))
        if (d.isError()) {
            std::fprintf(stderr, "tideline-bench: %s\n", d.format().c_str());
            return false;
        }
    std::string error;
    auto job = Job::create(spec, JobOptions{}, error);
    if (!job || job->run() != Job::Status::Finished) {
        std::fprintf(stderr, "tideline-bench: writing %s failed: %s\n", what.c_str(),
                     job ? job->failure().c_str() : error.c_str());
        return false;
    }
    return true;
}

struct TempDir
{
    fs::path path;
    TempDir()
    {
        std::string tmpl = (fs::temp_directory_path() / "tideline-bench-XXXXXX").string();
        if (char *p = mkdtemp(tmpl.data()))
            path = p;
    }
    ~TempDir()
    {
        std::error_code ec;
        if (!path.empty())
            fs::remove_all(path, ec);
    }
};

std::string densityJson(double rate)
{
    return "\"rate_per_s\":" + std::to_string(int64_t(rate));
}

int generatorWindow(const Options &o)
{
    std::int64_t n = o.events > 0 ? o.events : 10000000;
    auto build = [&] {
        PipelineSpec s;
        s.name = "bench-generator-window";
        addNode(s, "gen", "source.generator", generatorParams(n, o.keys, o.rate, 7));
        addWindowTail(s, "gen.out", o);
        return s;
    };
    char desc[400];
    std::snprintf(
        desc, sizeof desc,
        "source.generator(count=%lld, keys=%lld, rate_per_s=%.0f) -> watermark(event_time, "
        "0 ms) -> window(%s) -> sink.discard",
        static_cast<long long>(n), static_cast<long long>(o.keys), o.rate,
        windowDescription(o).c_str());
    return runRepeated(o, "generator-window", desc, build, ".", densityJson(o.rate));
}

int fileWindow(const Options &o)
{
    std::int64_t n = o.lines;
    TempDir tmp;
    if (tmp.path.empty()) {
        std::fprintf(stderr, "tideline-bench: cannot create a temp folder\n");
        return 1;
    }
    std::string file = (tmp.path / "events.jsonl").string();
    {
        PipelineSpec w;
        addNode(w, "gen", "source.generator", generatorParams(n, o.keys, o.rate, 7));
        addNode(w, "file", "sink.file", {{"path", file}});
        addEdge(w, "gen.out", "file.in");
        if (!writeFile(w, file))
            return 1;
    }
    std::printf("wrote %lld lines (%.1f MiB) to %s (not timed)\n", static_cast<long long>(n),
                double(fs::file_size(file)) / 1048576.0, file.c_str());
    auto build = [&] {
        PipelineSpec s;
        s.name = "bench-file-window";
        addNode(s, "src", "source.file", {{"path", file}, {"format", "jsonl"}});
        addWindowTail(s, "src.out", o);
        return s;
    };
    std::string desc = "source.file(jsonl, " + std::to_string(n)
                       + " lines) -> watermark(event_time) -> window(" + windowDescription(o)
                       + ") -> sink.discard";
    return runRepeated(o, "file-window", desc, build, ".", densityJson(o.rate));
}

int generatorDedup(const Options &o)
{
    // Every one of `ids` distinct event ids is sent once, and a fraction of them a second time
    // (1..1000 ms of event time later) so that the stream has --events records in all.
    std::int64_t n = o.events > 0 ? o.events : 2000000;
    std::int64_t ids = std::min(o.ids, n);
    if (n > 2 * ids) {
        std::fprintf(stderr,
                     "tideline-bench generator-dedup: --events %lld needs --ids >= %lld (each id "
                     "is sent at most twice)\n",
                     static_cast<long long>(n), static_cast<long long>((n + 1) / 2));
        return 1;
    }
    const double dup = double(n - ids) / double(ids);
    auto build = [&] {
        PipelineSpec s;
        addNode(s, "gen", "source.generator", generatorParams(ids, o.keys, o.rate, 7, dup));
        addNode(s, "wm", "watermark", watermarkParams("event_time", 1000));
        if (o.withOperator)
            addNode(s, "dd", "dedup", {{"key", Json::array({"event_id"})}, {"within_ms", 2000}});
        addNode(s, "out", "sink.discard", Json::object());
        addEdge(s, "gen.out", "wm.in");
        addEdge(s, "wm.out", o.withOperator ? "dd.in" : "out.in");
        if (o.withOperator)
            addEdge(s, "dd.out", "out.in");
        return s;
    };
    char dupText[32];
    std::snprintf(dupText, sizeof dupText, "%.4g", dup);
    std::string desc = "source.generator(count=" + std::to_string(ids)
                       + " distinct event_ids, duplicate_fraction=" + dupText + ", rate_per_s="
                       + std::to_string(std::int64_t(o.rate)) + ") -> watermark(1000 ms) -> "
                       + (o.withOperator ? "dedup(event_id, within 2000 ms)"
                                         : std::string("[no dedup: --operator off]"))
                       + " -> sink.discard";
    return runRepeated(o, o.withOperator ? "generator-dedup" : "generator-dedup-baseline", desc,
                       build, ".", densityJson(o.rate) + ",\"ids\":" + std::to_string(ids),
                       o.withOperator ? std::vector<std::string>{"dd"}
                                      : std::vector<std::string>{});
}

int generatorJoin(const Options &o)
{
    // Two independent streams (different seeds) over the same user_id space, each at half the
    // rate: a record meets about (rate/2) * (upper - lower)/1000 / keys partners, i.e. 5 with
    // the defaults, so the join emits ~2.5 pairs per input record.
    std::int64_t n = o.events > 0 ? o.events : 10000000;
    auto build = [&] {
        PipelineSpec s;
        addNode(s, "left", "source.generator", generatorParams(n / 2, o.keys, o.rate / 2, 1));
        addNode(s, "right", "source.generator", generatorParams(n - n / 2, o.keys, o.rate / 2, 2));
        addNode(s, "wml", "watermark", watermarkParams("event_time", 0));
        addNode(s, "wmr", "watermark", watermarkParams("event_time", 0));
        if (o.withOperator)
            addNode(s, "j", "join",
                    {{"left_key", Json::array({"user_id"})},
                     {"right_key", Json::array({"user_id"})},
                     {"lower_ms", -500},
                     {"upper_ms", 500}});
        addNode(s, "out", "sink.discard", Json::object());
        addEdge(s, "left.out", "wml.in");
        addEdge(s, "right.out", "wmr.in");
        if (o.withOperator) {
            addEdge(s, "wml.out", "j.left");
            addEdge(s, "wmr.out", "j.right");
            addEdge(s, "j.out", "out.in");
        } else {
            addEdge(s, "wml.out", "out.in");
            addEdge(s, "wmr.out", "out.in");
        }
        return s;
    };
    std::string desc = "2 x source.generator(" + std::to_string(n / 2) + " events, keys "
                       + std::to_string(o.keys) + ", " + std::to_string(std::int64_t(o.rate / 2))
                       + " events/s of event time each) -> watermarks(0 ms) -> "
                       + (o.withOperator ? "join(inner, user_id, -500..500 ms)"
                                         : std::string("[no join: --operator off]"))
                       + " -> sink.discard";
    return runRepeated(o, o.withOperator ? "generator-join" : "generator-join-baseline", desc,
                       build, ".", densityJson(o.rate) + ",\"keys\":" + std::to_string(o.keys),
                       o.withOperator ? std::vector<std::string>{"j"} : std::vector<std::string>{});
}

std::string queryFile(const Options &o)
{
    std::string dir = o.pipelinesDir.empty() ? std::string(TIDELINE_PIPELINES_DIR) + "/nexmark"
                                             : o.pipelinesDir;
    return dir + "/" + o.query + ".json";
}

/// Loads the query pipeline, sets the generator's size and density, swaps sinks for discard.
bool loadQuery(const Options &o, std::int64_t n, PipelineSpec &spec, std::string &baseDir)
{
    std::string path = queryFile(o);
    LoadResult r = loadSpecFile(path);
    if (!r.spec) {
        std::fprintf(stderr, "tideline-bench: cannot load %s\n", path.c_str());
        for (const auto &d : r.diagnostics)
            std::fprintf(stderr, "  %s\n", d.format().c_str());
        return false;
    }
    spec = *r.spec;
    baseDir = fs::path(path).parent_path().string();
    bool found = false;
    for (auto &node : spec.nodes) {
        if (node.kind == "source.nexmark") {
            node.params["count"] = n;
            node.params["rate_per_s"] = o.rate;
            node.params["generators"] = o.generators;
            found = true;
        }
    }
    if (!found) {
        std::fprintf(stderr, "tideline-bench: %s has no source.nexmark node\n", path.c_str());
        return false;
    }
    discardSinks(spec);
    return true;
}

std::string nexmarkJson(const Options &o)
{
    return "\"query\":\"" + o.query + "\"," + densityJson(o.rate)
           + ",\"generators\":" + std::to_string(o.generators);
}

int nexmark(const Options &o)
{
    std::int64_t n = o.events > 0 ? o.events : 50000000;
    PipelineSpec spec;
    std::string baseDir;
    if (!loadQuery(o, n, spec, baseDir))
        return 1;
    std::string desc
        = "pipelines/nexmark/" + o.query + ".json with source.nexmark(count=" + std::to_string(n)
          + ", rate_per_s=" + std::to_string(int64_t(o.rate))
          + ", generators=" + std::to_string(o.generators) + "), sinks -> sink.discard";
    return runRepeated(
        o, "nexmark-" + o.query, desc, [&] { return spec; }, baseDir, nexmarkJson(o));
}

int nexmarkFile(const Options &o)
{
    std::int64_t n = o.events > 0 ? o.events : 10000000;
    PipelineSpec spec;
    std::string baseDir;
    if (!loadQuery(o, n, spec, baseDir))
        return 1;
    TempDir tmp;
    std::string file = (tmp.path / "nexmark.jsonl").string();
    Json genParams;
    for (auto &node : spec.nodes)
        if (node.kind == "source.nexmark") {
            genParams = node.params;
            node.kind = "source.file";
            node.params = {{"path", file}, {"format", "jsonl"}};
        }
    {
        PipelineSpec w;
        addNode(w, "gen", "source.nexmark", genParams);
        addNode(w, "file", "sink.file", {{"path", file}});
        addEdge(w, "gen.out", "file.in");
        if (!writeFile(w, file))
            return 1;
    }
    std::printf("wrote %lld Nexmark events (%.1f MiB) to %s (not timed)\n",
                static_cast<long long>(n), double(fs::file_size(file)) / 1048576.0, file.c_str());
    std::string desc = "pipelines/nexmark/" + o.query + ".json with source.file(jsonl of "
                       + std::to_string(n) + " source.nexmark events, rate_per_s="
                       + std::to_string(int64_t(o.rate)) + "), sinks -> sink.discard";
    return runRepeated(
        o, "nexmark-file-" + o.query, desc, [&] { return spec; }, baseDir, nexmarkJson(o));
}

} // namespace

std::string parseOptions(int argc, char **argv, int first, Options &out)
{
    for (int i = first; i < argc; ++i) {
        std::string a = argv[i];
        if (i + 1 >= argc)
            return "option " + a + " needs a value";
        const char *v = argv[++i];
        std::int64_t x = 0;
        auto needInt = [&](std::int64_t &dst, std::int64_t min) -> std::string {
            if (!parseInt(v, x) || x < min)
                return a + ": expected an integer >= " + std::to_string(min) + ", got `" + v + "`";
            dst = x;
            return {};
        };
        std::string err;
        if (a == "--events")
            err = needInt(out.events, 1);
        else if (a == "--lines")
            err = needInt(out.lines, 1);
        else if (a == "--keys")
            err = needInt(out.keys, 1);
        else if (a == "--ids")
            err = needInt(out.ids, 1);
        else if (a == "--operator") {
            if (std::string_view(v) != "on" && std::string_view(v) != "off")
                return a + ": expected on or off, got `" + v + "`";
            out.withOperator = std::string_view(v) == "on";
        } else if (a == "--size-ms")
            err = needInt(out.sizeMs, 1);
        else if (a == "--slide-ms")
            err = needInt(out.slideMs, 1);
        else if (a == "--sum") {
            if (std::string_view(v) != "on" && std::string_view(v) != "off")
                return a + ": expected on or off, got `" + v + "`";
            out.withSum = std::string_view(v) == "on";
        } else if (a == "--rate") {
            err = needInt(x, 1);
            out.rate = double(x);
        } else if (a == "--generators") {
            std::int64_t g = 1;
            err = needInt(g, 1);
            out.generators = int(g);
        } else if (a == "--parallelism") {
            std::int64_t p = 1;
            err = needInt(p, 1);
            if (err.empty() && p > 128)
                err = "--parallelism must be from 1 to 128";
            out.parallelism = int(p);
        } else if (a == "--repeat") {
            std::int64_t r = 1;
            err = needInt(r, 1);
            out.repeat = int(r);
        } else if (a == "--query")
            out.query = v;
        else if (a == "--pipelines")
            out.pipelinesDir = v;
        else if (a == "--conninfo")
            out.conninfo = v;
        else if (a == "--checkpoint-ms")
            err = needInt(out.checkpointMs, 1);
        else if (a == "--lineage")
            err = needInt(out.lineage, 1);
        else if (a == "--semantics") {
            if (std::string_view(v) != "flink" && std::string_view(v) != "spark"
                && std::string_view(v) != "kafka-streams")
                return a + ": expected flink, spark or kafka-streams, got `" + v + "`";
            out.semantics = v;
        } else
            return "unknown option " + a;
        if (!err.empty())
            return err;
    }
    return {};
}

int runCommand(const std::string &command, const Options &opts)
{
    if (command == "generator-window")
        return generatorWindow(opts);
    if (command == "file-window")
        return fileWindow(opts);
    if (command == "generator-dedup")
        return generatorDedup(opts);
    if (command == "generator-join")
        return generatorJoin(opts);
    if (command == "nexmark")
        return nexmark(opts);
    if (command == "nexmark-file")
        return nexmarkFile(opts);
    if (command == "postgres")
        return postgresBench(opts);
    if (command == "replay")
        return replayBench(opts);
    return 2;
}

} // namespace tideline::bench
