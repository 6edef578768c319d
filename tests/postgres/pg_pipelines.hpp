#pragma once
// Pipelines and tideline-run helpers shared by the sink.postgres tests.

#include "../support/cli_process.hpp"
#include "../support/test_support.hpp"
#include "pg_server.hpp"

#include <QtCore/QProcess>
#include <QtCore/QProcessEnvironment>

#include <functional>
#include <string>

namespace tideline::pgtest {

inline const QString kRunner = QStringLiteral(TIDELINE_BINARY_DIR "/app/runner/tideline-run");

struct WindowPipeline
{
    std::string conninfo;
    std::string table = "windows";
    std::string mode = "append";
    std::string delivery = "exactly_once";
    std::int64_t count = 16000;
    std::int64_t recordsPerSecond = 0; ///< 0 = flat out
    std::int64_t checkpointMs = 0;     ///< 0 = no checkpoints
};

/// generator (disordered, late events) -> watermark -> tumbling window with allowed lateness
/// (final + update emits) -> sink.postgres.
inline std::string windowPipeline(const WindowPipeline &o)
{
    std::string settings = o.checkpointMs > 0
                               ? R"("settings":{"checkpoint":{"interval_ms":)"
                                     + std::to_string(o.checkpointMs) + R"(,"dir":"checkpoints"}},)"
                               : std::string();
    std::string pace = o.recordsPerSecond > 0 ? R"(,"pace":{"records_per_s":)"
                                                    + std::to_string(o.recordsPerSecond) + "}"
                                              : std::string();
    return R"({"format":"tideline/1","name":"pg-windows",)" + settings + R"("nodes":[
  {"id":"gen","kind":"source.generator","params":{"count":)"
           + std::to_string(o.count) + R"(,"rate_per_s":200,"keys":20,"seed":7,
    "disorder":{"max_delay_ms":3000,"late_fraction":0.05,"late_by_ms":4000})"
           + pace + R"(}},
  {"id":"wm","kind":"watermark","params":{"time_field":"event_time","max_out_of_orderness_ms":2000}},
  {"id":"win","kind":"window","params":{"type":"tumbling","size_ms":2000,"key":["user_id"],
    "allowed_lateness_ms":3000,
    "aggregates":[{"op":"count","as":"n"},{"op":"sum","field":"value","as":"total"}]}},
  {"id":"out","kind":"sink.postgres","params":{"conninfo":")"
           + o.conninfo + R"(","table":")" + o.table + R"(","mode":")" + o.mode
           + R"(","delivery":")" + o.delivery + R"(","key":["user_id","window_start"],
    "create_table":true,"columns":[
      {"field":"user_id","type":"bigint"},{"field":"window_start","type":"bigint"},
      {"field":"window_end","type":"bigint"},{"field":"n","type":"bigint"},
      {"field":"total","type":"double precision"},{"field":"emit","type":"text"}]}}],
 "edges":[{"from":"gen.out","to":"wm.in"},{"from":"wm.out","to":"win.in"},
          {"from":"win.out","to":"out.in"}]})";
}

/// Every row of a window table, in one canonical order.
inline std::string windowRows(const Server &s, const std::string &table)
{
    return s.sql("SELECT user_id, window_start, window_end, n, total, emit FROM " + table
                 + " ORDER BY 1, 2, 3, 4, 5, 6");
}

struct RunOutcome
{
    bool finished = false; ///< exited by itself (not killed)
    int exitCode = -1;
    std::string out, err;
};

/// Runs tideline-run on dir/pipeline.json; SIGKILL after killAfterMs (0 = wait for the end);
/// `crashAt` sets TIDELINE_CRASH_AT (the checkpoint protocol's crash points).
inline RunOutcome runRunner(const std::string &dir,
                            int killAfterMs = 0,
                            const QStringList &extra = {},
                            const std::function<void()> &whileRunning = {},
                            const QString &crashAt = {})
{
    const testing::KilledOrFinished k = testing::runOrKill(
        kRunner, extra + QStringList{QString::fromStdString(dir + "/pipeline.json")}, dir,
        killAfterMs, crashAt, whileRunning);
    RunOutcome r;
    r.finished = k.finished;
    r.exitCode = k.exitCode;
    r.out = k.out.toStdString();
    r.err = k.err.toStdString();
    return r;
}

} // namespace tideline::pgtest
