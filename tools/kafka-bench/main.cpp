// tideline-kafka-bench: consume rate of source.kafka against kcat on the same topic.
//
//   tideline-kafka-bench [--events N] [--partitions P] [--runs R] [--side both|engine|kcat]
//                        [--mock PATH] [--workload discard|tumbling|sliding]
//                        [--parallelism N[,N...]]
//
// --workload tumbling|sliding (group_window.cpp) measures a consumer-group member instead: an
// unbounded source.kafka whose partitions run as tasks, a watermark and a keyed window, at each
// --parallelism in turn (alternating the order each round), and prints events/s, CPU and the
// ratio of each parallelism to the first; kcat does not run.
//
// Starts tideline-kafka-mock (its own process), loads N JSON events (~75 bytes) into a topic
// with P partitions, reads back how many the mock kept (its per-partition cap drops old data),
// then runs R rounds. Each round runs both consumers once, alternating which goes first:
//   - kcat: `kcat -C -b B -t T -o beginning -e -q | wc -l` (no consumer group, reads every
//     partition to its end, prints each value; wc counts them);
//   - engine: `source.kafka (bounded, a new group_id each run) -> sink.discard` in-process,
//     the same Job tideline-run executes, timed from Job::create (consumer creation and
//     metadata included, as kcat's process start is) to the end of the run.
// Both are cold: neither has committed offsets or cached data. Each run must read exactly the
// stored count, otherwise it is reported as invalid. Prints every run, then median and best
// for both and the ratios engine / kcat. The engine parses every value as JSON and adds the
// _kafka.* fields; kcat only copies bytes to a pipe.

#include "group_window.hpp"

#include <tideline/engine/job.hpp>
#include <tideline/engine/spec.hpp>
#include <tideline/engine/validate.hpp>

#include <librdkafka/rdkafka.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <spawn.h>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char **environ;

namespace {

/// --engine-prop key=value: extra source.kafka properties (allowlisted); --kcat-prop key=value:
/// the same for kcat (-X key=value). For runs that compare both with the same settings.
tideline::Json g_engineProps = tideline::Json::object();
std::vector<std::string> g_kcatProps;

double now()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

struct Mock
{
    pid_t pid = -1;
    int toChild = -1;
    std::string bootstrap;

    bool start(const std::string &path, const std::string &topic)
    {
        int in[2], out[2];
        if (pipe(in) || pipe(out))
            return false;
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_adddup2(&fa, in[0], 0);
        posix_spawn_file_actions_adddup2(&fa, out[1], 1);
        posix_spawn_file_actions_addclose(&fa, in[1]);
        posix_spawn_file_actions_addclose(&fa, out[0]);
        std::vector<std::string> args{path, "--brokers", "1", "--topic", topic};
        std::vector<char *> argv;
        for (auto &a : args)
            argv.push_back(a.data());
        argv.push_back(nullptr);
        if (posix_spawn(&pid, path.c_str(), &fa, nullptr, argv.data(), environ) != 0)
            return false;
        posix_spawn_file_actions_destroy(&fa);
        close(in[0]);
        close(out[1]);
        toChild = in[1];
        FILE *f = fdopen(out[0], "r");
        char line[1024];
        if (!fgets(line, sizeof line, f))
            return false;
        std::string l(line);
        if (l.rfind("bootstrap ", 0) != 0)
            return false;
        bootstrap = l.substr(10);
        while (!bootstrap.empty() && (bootstrap.back() == '\n' || bootstrap.back() == '\r'))
            bootstrap.pop_back();
        return true;
    }
    ~Mock()
    {
        if (toChild >= 0)
            close(toChild); // EOF: the mock exits
        if (pid > 0)
            waitpid(pid, nullptr, 0);
    }
};

struct Delivery
{
    long long ok = 0, failed = 0;
    rd_kafka_resp_err_t firstError = RD_KAFKA_RESP_ERR_NO_ERROR;
};

void onDelivery(rd_kafka_t *, const rd_kafka_message_t *m, void *opaque)
{
    auto *d = static_cast<Delivery *>(opaque);
    if (m->err) {
        if (!d->failed)
            d->firstError = m->err;
        ++d->failed;
    } else {
        ++d->ok;
    }
}

/// Loads n events round-robin over the partitions (librdkafka's sticky partitioner would put
/// unkeyed runs on a few partitions, which then overflow the mock's per-partition cap).
bool load(const std::string &bootstrap, const std::string &topic, int partitions, long long n)
{
    char err[512];
    Delivery delivery;
    rd_kafka_conf_t *c = rd_kafka_conf_new();
    rd_kafka_conf_set_dr_msg_cb(c, &onDelivery);
    rd_kafka_conf_set_opaque(c, &delivery);
    rd_kafka_conf_set(c, "bootstrap.servers", bootstrap.c_str(), err, sizeof err);
    rd_kafka_conf_set(c, "linger.ms", "20", err, sizeof err);
    rd_kafka_conf_set(c, "batch.num.messages", "10000", err, sizeof err);
    rd_kafka_conf_set(c, "queue.buffering.max.messages", "1000000", err, sizeof err);
    rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, c, err, sizeof err);
    if (!rk)
        return false;
    char buf[256];
    for (long long i = 0; i < n; ++i) {
        int len = std::snprintf(
            buf, sizeof buf,
            "{\"event_id\":%lld,\"user_id\":%lld,\"value\":%lld,\"event_time\":%lld}", i, i % 1000,
            (i * 7) % 100, 1700000000000LL + i);
        while (rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(topic.c_str()),
                                 RD_KAFKA_V_PARTITION(static_cast<std::int32_t>(i % partitions)),
                                 RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                                 RD_KAFKA_V_VALUE(buf, static_cast<size_t>(len)), RD_KAFKA_V_END)
               == RD_KAFKA_RESP_ERR__QUEUE_FULL)
            rd_kafka_poll(rk, 10);
    }
    rd_kafka_flush(rk, 120000);
    bool ok = rd_kafka_outq_len(rk) == 0;
    rd_kafka_destroy(rk);
    if (delivery.failed)
        std::fprintf(stderr, "loading: %lld of %lld deliveries failed (first: %s)\n",
                     delivery.failed, n, rd_kafka_err2str(delivery.firstError));
    return ok && delivery.ok == n;
}

struct Timing
{
    double wall = 0; ///< seconds
    double cpu = 0;  ///< user + system seconds of the consumer process (all its threads)
};

double cpuSeconds(const rusage &u)
{
    return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec)
           + static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

/// kcat as its own process; its stdout is counted here (the job `| wc -l` would do), and
/// wait4() gives kcat's own CPU time.
Timing runKcat(const std::string &bootstrap, const std::string &topic, long long &lines)
{
    Timing t;
    int out[2];
    if (pipe(out))
        return t;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    posix_spawn_file_actions_addclose(&fa, out[0]);
    std::vector<std::string> args{"kcat", "-C", "-b",        bootstrap, "-t",
                                  topic,  "-o", "beginning", "-e",      "-q"};
    for (const auto &kv : g_kcatProps) {
        args.push_back("-X");
        args.push_back(kv);
    }
    std::vector<char *> argv;
    for (auto &a : args)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    double t0 = now();
    pid_t pid = -1;
    int rc = posix_spawnp(&pid, "kcat", &fa, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    close(out[1]);
    if (rc != 0) {
        close(out[0]);
        std::cerr << "cannot run kcat\n";
        return t;
    }
    static char buf[1 << 16];
    lines = 0;
    ssize_t n;
    while ((n = read(out[0], buf, sizeof buf)) > 0)
        lines += std::count(buf, buf + n, '\n');
    close(out[0]);
    int status = 0;
    rusage ru{};
    wait4(pid, &status, 0, &ru);
    t.wall = now() - t0;
    t.cpu = cpuSeconds(ru);
    return t;
}

Timing
runEngine(const std::string &bootstrap, const std::string &topic, long long &records, int run)
{
    Timing t;
    using namespace tideline;
    Json j{{"format", "tideline/1"},
           {"name", "kafka-bench"},
           {"nodes", Json::array({Json{{"id", "src"},
                                       {"kind", "source.kafka"},
                                       {"params",
                                        {{"bootstrap_servers", bootstrap},
                                         {"topic", topic},
                                         {"group_id", "bench-" + std::to_string(run)},
                                         {"bounded", true},
                                         {"properties", g_engineProps}}}},
                                  Json{{"id", "out"}, {"kind", "sink.discard"}}})},
           {"edges", Json::array({Json{{"from", "src.out"}, {"to", "out.in"}}})}};
    auto loaded = loadSpec(j.dump());
    std::string error;
    rusage u0{}, u1{};
    getrusage(RUSAGE_SELF, &u0);
    double t0 = now();
    auto job = Job::create(*loaded.spec, JobOptions{}, error);
    if (!job) {
        std::cerr << "engine: " << error << "\n";
        return t;
    }
    double tc = now();
    Job::Status s = job->run();
    double tr = now();
    records = job->snapshot().recordsRead;
    std::string failure = job->failure();
    job.reset(); // closing the consumer is part of the run, as kcat's exit is
    t.wall = now() - t0;
    if (std::getenv("TIDELINE_KAFKA_BENCH_VERBOSE"))
        std::fprintf(stderr, "engine: create %.3f s, run %.3f s, close %.3f s\n", tc - t0, tr - tc,
                     now() - tr);
    getrusage(RUSAGE_SELF, &u1);
    t.cpu = cpuSeconds(u1) - cpuSeconds(u0);
    if (s != Job::Status::Finished)
        std::cerr << "engine: run did not finish: " << failure << "\n";
    return t;
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    if (v.empty())
        return 0;
    return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

double best(const std::vector<double> &v)
{
    return v.empty() ? 0 : *std::max_element(v.begin(), v.end());
}

/// How many messages the topic holds now (sum of high - low watermarks over its partitions).
long long storedCount(const std::string &bootstrap, const std::string &topic, int partitions)
{
    char err[512];
    rd_kafka_conf_t *c = rd_kafka_conf_new();
    rd_kafka_conf_set(c, "bootstrap.servers", bootstrap.c_str(), err, sizeof err);
    rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_CONSUMER, c, err, sizeof err);
    if (!rk)
        return -1;
    long long total = 0;
    for (int p = 0; p < partitions; ++p) {
        std::int64_t lo = 0, hi = 0;
        if (rd_kafka_query_watermark_offsets(rk, topic.c_str(), p, &lo, &hi, 10000)) {
            total = -1;
            break;
        }
        total += hi - lo;
        if (std::getenv("TIDELINE_KAFKA_BENCH_VERBOSE"))
            std::fprintf(stderr, "partition %d: %lld..%lld\n", p, static_cast<long long>(lo),
                         static_cast<long long>(hi));
    }
    rd_kafka_destroy(rk);
    return total;
}

/// --workload tumbling|sliding: every parallelism once per round (the order turned each round),
/// then the medians. Every run of a round must read every record and emit as many results.
int benchGroupWindow(const std::string &bootstrap,
                     const std::string &topic,
                     const std::string &window,
                     const std::vector<int> &parallelisms,
                     int runs,
                     long long stored)
{
    std::vector<std::vector<double>> rates(parallelisms.size()), cpuRates(parallelisms.size());
    bool valid = true;
    for (int r = 0; r < runs; ++r) {
        long long results = -1;
        for (std::size_t k = 0; k < parallelisms.size(); ++k) {
            const std::size_t i = r % 2 == 0 ? k : parallelisms.size() - 1 - k;
            const int p = parallelisms[i];
            auto g = kafkabench::runGroupWindow(bootstrap, topic, g_engineProps, window, p, stored,
                                                "bench-" + window + "-" + std::to_string(r) + "-p"
                                                    + std::to_string(p));
            const double rate = g.wall > 0 ? static_cast<double>(g.records) / g.wall : 0;
            std::printf("run %d parallelism %d: %lld records in %.3f s = %.0f events/s (cpu %.3f "
                        "s), %lld results",
                        r + 1, p, g.records, g.wall, rate, g.cpu, g.results);
            if (results < 0)
                results = g.results;
            if (!g.error.empty() || g.results != results) {
                std::printf(" INVALID (%s)", g.error.empty()
                                                 ? "results differ from the round's first run"
                                                 : g.error.c_str());
                valid = false;
            } else {
                rates[i].push_back(rate);
                cpuRates[i].push_back(g.cpu > 0 ? static_cast<double>(g.records) / g.cpu : 0);
            }
            std::printf("\n");
            std::fflush(stdout);
        }
    }
    for (std::size_t i = 0; i < parallelisms.size(); ++i)
        std::printf("parallelism %d: median %.0f events/s, best %.0f; per CPU second median %.0f "
                    "(%zu valid runs); vs parallelism %d: %.2f\n",
                    parallelisms[i], median(rates[i]), best(rates[i]), median(cpuRates[i]),
                    rates[i].size(), parallelisms[0],
                    median(rates[0]) > 0 ? median(rates[i]) / median(rates[0]) : 0);
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    std::printf("peak RSS of the bench process: %.1f MiB\n",
                static_cast<double>(u.ru_maxrss) / 1024);
    return valid ? 0 : 1;
}

} // namespace

int main(int argc, char **argv)
{
    long long events = 1000000;
    int partitions = 32, runs = 5;
    std::string side = "both";
    std::string mockPath = TIDELINE_KAFKA_MOCK_PATH;
    std::string workload = "discard";
    std::vector<int> parallelisms{1};
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--events" && i + 1 < argc)
            events = std::atoll(argv[++i]);
        else if (a == "--partitions" && i + 1 < argc)
            partitions = std::atoi(argv[++i]);
        else if (a == "--runs" && i + 1 < argc)
            runs = std::atoi(argv[++i]);
        else if (a == "--side" && i + 1 < argc)
            side = argv[++i];
        else if (a == "--mock" && i + 1 < argc)
            mockPath = argv[++i];
        else if (a == "--workload" && i + 1 < argc)
            workload = argv[++i];
        else if (a == "--parallelism" && i + 1 < argc) {
            parallelisms.clear();
            for (std::string list = argv[++i]; !list.empty();) {
                const auto comma = list.find(',');
                const int p = std::atoi(list.substr(0, comma).c_str());
                if (p < 1) {
                    std::cerr << "--parallelism takes numbers from 1, separated by commas\n";
                    return 2;
                }
                parallelisms.push_back(p);
                list = comma == std::string::npos ? "" : list.substr(comma + 1);
            }
        } else if (a == "--engine-prop" && i + 1 < argc) {
            std::string kv = argv[++i];
            auto eq = kv.find('=');
            if (eq == std::string::npos) {
                std::cerr << "--engine-prop needs key=value\n";
                return 2;
            }
            g_engineProps[kv.substr(0, eq)] = kv.substr(eq + 1);
        } else if (a == "--kcat-prop" && i + 1 < argc)
            g_kcatProps.push_back(argv[++i]);
        else {
            std::cerr << "usage: tideline-kafka-bench [--events N] [--partitions P] [--runs R] "
                         "[--side both|engine|kcat] [--engine-prop key=value]... [--kcat-prop "
                         "key=value]... [--mock PATH] [--workload discard|tumbling|sliding] "
                         "[--parallelism N[,N...]]\n";
            return 2;
        }
    }
    if (workload != "discard" && workload != "tumbling" && workload != "sliding") {
        std::cerr << "--workload must be discard, tumbling or sliding\n";
        return 2;
    }
    if (side != "both" && side != "engine" && side != "kcat") {
        std::cerr << "--side must be both, engine or kcat\n";
        return 2;
    }
    // The mock keeps at most 5 MiB / 100,000 message sets per partition (about 60,000 of these
    // events): stay below that or the topic holds fewer than were loaded.
    if (events / partitions > 50000)
        std::cerr << "warning: " << events / partitions
                  << " events per partition may exceed the mock's per-partition cap\n";
    std::signal(SIGPIPE, SIG_IGN);
    Mock mock;
    std::string topic = "bench";
    if (!mock.start(mockPath, topic + ":" + std::to_string(partitions))) {
        std::cerr << "cannot start " << mockPath << "\n";
        return 1;
    }
    std::cout << "mock " << mock.bootstrap << ", loading " << events << " events into "
              << partitions << " partitions\n";
    double t0 = now();
    if (!load(mock.bootstrap, topic, partitions, events)) {
        std::cerr << "loading failed\n";
        return 1;
    }
    long long stored = storedCount(mock.bootstrap, topic, partitions);
    std::printf("loaded in %.2f s; the topic holds %lld messages\n", now() - t0, stored);
    if (stored <= 0)
        return 1;
    if (workload != "discard")
        return benchGroupWindow(mock.bootstrap, topic, workload, parallelisms, runs, stored);
    // Wall-clock rates are what the target is about; rates per CPU second of the consumer's
    // process show the cost independent of what else the (shared) machine is doing.
    std::vector<double> kRates, eRates, kCpuRates, eCpuRates;
    bool valid = true;
    auto rate = [](long long n, double s) {
        return s > 0 ? static_cast<double>(n) / s : 0;
    };
    for (int r = 0; r < runs; ++r) {
        long long lines = 0, records = 0;
        Timing tk, te;
        auto doKcat = [&] {
            tk = runKcat(mock.bootstrap, topic, lines);
        };
        auto doEngine = [&] {
            te = runEngine(mock.bootstrap, topic, records, r);
        };
        // Alternate the order so neither side always runs on a machine warmed by the other.
        bool kcatFirst = r % 2 == 0;
        if (side != "engine" && kcatFirst)
            doKcat();
        if (side != "kcat")
            doEngine();
        if (side != "engine" && !kcatFirst)
            doKcat();
        std::printf("run %d (%s first):", r + 1, kcatFirst ? "kcat" : "engine");
        if (side != "engine") {
            std::printf(" kcat %lld msgs in %.3f s = %.0f msg/s (cpu %.3f s);", lines, tk.wall,
                        rate(lines, tk.wall), tk.cpu);
            if (lines == stored) {
                kRates.push_back(rate(lines, tk.wall));
                kCpuRates.push_back(rate(lines, tk.cpu));
            } else {
                std::printf(" INVALID (expected %lld);", stored);
                valid = false;
            }
        }
        if (side != "kcat") {
            std::printf(" engine %lld records in %.3f s = %.0f rec/s (cpu %.3f s)", records,
                        te.wall, rate(records, te.wall), te.cpu);
            if (records == stored) {
                eRates.push_back(rate(records, te.wall));
                eCpuRates.push_back(rate(records, te.cpu));
            } else {
                std::printf(" INVALID (expected %lld)", stored);
                valid = false;
            }
        }
        std::printf("\n");
        std::fflush(stdout);
    }
    if (side != "engine")
        std::printf("kcat:   median %.0f msg/s, best %.0f msg/s; per CPU second: median %.0f "
                    "(%zu valid runs)\n",
                    median(kRates), best(kRates), median(kCpuRates), kRates.size());
    if (side != "kcat")
        std::printf("engine: median %.0f rec/s, best %.0f rec/s; per CPU second: median %.0f "
                    "(%zu valid runs)\n",
                    median(eRates), best(eRates), median(eCpuRates), eRates.size());
    if (side == "both" && !kRates.empty() && !eRates.empty())
        std::printf("engine/kcat: median %.2f, best %.2f; per CPU second %.2f\n",
                    median(eRates) / median(kRates), best(eRates) / best(kRates),
                    median(eCpuRates) / median(kCpuRates));
    return valid ? 0 : 1;
}
