// tideline-kafka-bench --workload tumbling|sliding: a consumer group's partition tasks with a
// keyed window, the shape a member runs on a server (docs/operations.md "Consumer groups").
// The run is unbounded, as a member's is, so it is stopped from here once the source has read
// every stored record and the window's results stop growing.

#include "group_window.hpp"

#include <tideline/engine/job.hpp>
#include <tideline/engine/validate.hpp>

#include <chrono>
#include <sys/resource.h>
#include <thread>

namespace kafkabench {

namespace {

double seconds()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

double cpuSeconds()
{
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec)
           + static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

tideline::Json windowParams(const std::string &window)
{
    using tideline::Json;
    // The loaded events are 1 ms apart, user_id = i % 1000: a 10 s window holds 10 events of
    // each user (100,000 results per million events), a 60 s window every 10 s 60 of them
    // in 6 panes (600,000).
    Json p{{"type", window},
           {"size_ms", window == "sliding" ? 60000 : 10000},
           {"key", Json::array({"user_id"})},
           {"aggregates", Json::array({Json{{"op", "count"}, {"as", "n"}},
                                       Json{{"op", "sum"}, {"field", "value"}, {"as", "s"}}})}};
    if (window == "sliding")
        p["slide_ms"] = 10000;
    return p;
}

} // namespace

GroupRun runGroupWindow(const std::string &bootstrap,
                        const std::string &topic,
                        const tideline::Json &properties,
                        const std::string &window,
                        int parallelism,
                        long long expected,
                        const std::string &groupId)
{
    using namespace tideline;
    GroupRun r;
    Json j{{"format", "tideline/1"},
           {"name", "kafka-bench-group"},
           {"nodes",
            Json::array(
                {Json{{"id", "src"},
                      {"kind", "source.kafka"},
                      {"params",
                       {{"bootstrap_servers", bootstrap},
                        {"topic", topic},
                        {"group_id", groupId},
                        {"properties", properties}}}},
                 Json{{"id", "wm"},
                      {"kind", "watermark"},
                      {"params", {{"time_field", "event_time"}, {"max_out_of_orderness_ms", 100}}}},
                 Json{{"id", "w"}, {"kind", "window"}, {"params", windowParams(window)}},
                 Json{{"id", "out"}, {"kind", "sink.discard"}}})},
           {"edges", Json::array({Json{{"from", "src.out"}, {"to", "wm.in"}},
                                  Json{{"from", "wm.out"}, {"to", "w.in"}},
                                  Json{{"from", "w.out"}, {"to", "out.in"}}})}};
    auto loaded = loadSpec(j.dump());
    if (!loaded.spec) {
        r.error = "the bench's own pipeline does not load";
        return r;
    }
    JobOptions o;
    o.parallelism = parallelism;
    const double c0 = cpuSeconds();
    const double t0 = seconds();
    std::string error;
    auto job = Job::create(*loaded.spec, o, error);
    if (!job) {
        r.error = error;
        return r;
    }
    std::thread loop([&job] { (void)job->run(); });
    // Done when every record is read and the results stop growing for 50 ms (their last
    // rounds are back from the workers). The wait is part of the time, as a member's is.
    long long lastResults = -1;
    double stableSince = 0;
    const double deadline = t0 + 600;
    while (seconds() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        auto s = job->snapshot();
        const auto *src = s.node("src");
        const auto *out = s.node("out");
        if (!src || !out || src->recordsOut < expected)
            continue;
        if (out->recordsIn != lastResults) {
            lastResults = out->recordsIn;
            stableSince = seconds();
        } else if (seconds() - stableSince >= 0.05) {
            break;
        }
    }
    job->requestStop();
    loop.join();
    auto s = job->snapshot();
    r.records = s.recordsRead;
    r.results = s.node("out") ? s.node("out")->recordsIn : 0;
    if (!job->failure().empty())
        r.error = job->failure();
    else if (r.records != expected)
        r.error = "read " + std::to_string(r.records) + " of " + std::to_string(expected);
    job.reset();                    // closing the consumer (leaving the group) is part of the run
    r.wall = seconds() - t0 - 0.05; // not the 50 ms the results were watched standing still
    r.cpu = cpuSeconds() - c0;
    return r;
}

} // namespace kafkabench
