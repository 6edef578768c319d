// tideline-bench postgres: rows/s into a PostgreSQL server through sink.postgres, and what
// exactly_once (one transaction per checkpoint epoch, the epoch's rows also kept in the
// checkpoint) costs against at_least_once (one transaction per batch). Each run writes a table
// of its own (bench_<delivery>_<time>_<run>, created by the sink), so runs never upsert over
// each other's rows; drop them afterwards.

#include "bench_commands.hpp"
#include "measure.hpp"
#include "spec_builder.hpp"

#include <chrono>
#include <cstdio>
#include <filesystem>

namespace tideline::bench {

namespace fs = std::filesystem;

namespace {

PipelineSpec postgresSpec(const Options &o,
                          std::int64_t n,
                          const std::string &delivery,
                          const std::string &table)
{
    PipelineSpec s;
    s.name = "bench-postgres-" + delivery;
    if (delivery == "exactly_once")
        s.settings["checkpoint"] = {{"interval_ms", o.checkpointMs}, {"dir", "checkpoints"}};
    addNode(s, "gen", "source.generator",
            {{"count", n}, {"rate_per_s", o.rate}, {"keys", o.keys}, {"seed", 7}});
    Json cols = Json::array();
    for (const char *f : {"event_id", "user_id", "value"})
        cols.push_back({{"field", f}, {"type", "bigint"}});
    cols.push_back({{"field", "event_time"}, {"type", "timestamptz"}});
    addNode(s, "out", "sink.postgres",
            {{"conninfo", o.conninfo},
             {"table", table},
             {"key", Json::array({"event_id"})},
             {"columns", cols},
             {"create_table", true},
             {"delivery", delivery},
             {"writer", table}});
    addEdge(s, "gen.out", "out.in");
    return s;
}

} // namespace

int postgresBench(const Options &o)
{
    if (o.conninfo.empty()) {
        std::fprintf(stderr, "tideline-bench postgres: give --conninfo (a libpq connection "
                             "string; the password as ${env:NAME})\n");
        return 1;
    }
    const std::int64_t n = o.events > 0 ? o.events : 1000000;
    const auto stamp = std::chrono::system_clock::now().time_since_epoch().count();
    double rate[2] = {0, 0};
    const char *deliveries[2] = {"at_least_once", "exactly_once"};
    for (int r = 0; r < o.repeat; ++r)
        for (int d = 0; d < 2; ++d) {
            std::string tmpl = (fs::temp_directory_path() / "tideline-bench-pg-XXXXXX").string();
            const char *dir = mkdtemp(tmpl.data());
            const std::string table = "bench_" + std::string(deliveries[d]) + "_"
                                      + std::to_string(stamp) + "_" + std::to_string(r);
            Measurement m = runPipeline(postgresSpec(o, n, deliveries[d], table), dir ? dir : ".");
            std::error_code ec;
            if (dir)
                fs::remove_all(dir, ec);
            if (!m.failure.empty()) {
                std::fprintf(stderr, "tideline-bench postgres (%s): %s\n", deliveries[d],
                             m.failure.c_str());
                return 1;
            }
            rate[d] = m.eventsPerSecond();
            char desc[300];
            std::snprintf(
                desc, sizeof desc,
                "source.generator(count=%lld) -> sink.postgres(upsert on event_id, "
                "%s%s) into table %s",
                static_cast<long long>(n), deliveries[d],
                d == 1 ? (", checkpoint every " + std::to_string(o.checkpointMs) + " ms").c_str()
                       : "",
                table.c_str());
            print(std::string("postgres-") + deliveries[d], desc, m,
                  "\"rows_per_s\":" + std::to_string(static_cast<long long>(rate[d])));
            std::printf("\n");
        }
    if (rate[0] > 0 && rate[1] > 0)
        std::printf("exactly_once costs %.1f %% of at_least_once's rows/s (%.0f vs %.0f rows/s)\n",
                    100.0 * (1.0 - rate[1] / rate[0]), rate[1], rate[0]);
    return 0;
}

} // namespace tideline::bench
