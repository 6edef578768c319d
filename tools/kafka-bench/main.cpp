// tideline-kafka-bench: consume rate of source.kafka against kcat on the same topic.
//
//   tideline-kafka-bench [--events N] [--partitions P] [--runs R] [--mock PATH]
//
// Starts tideline-kafka-mock (its own process), loads N JSON events (~90 bytes) into a topic
// with P partitions, then alternates R times: kcat -C reading the topic to its end into
// /dev/null, and the engine running `source.kafka (bounded) -> sink.discard` in-process (the
// same Job tideline-run executes). Prints each run and the medians; ratio = engine / kcat.
// The engine parses every value as JSON and adds the _kafka.* fields; kcat only copies bytes.

#include <tideline/engine/job.hpp>
#include <tideline/engine/spec.hpp>
#include <tideline/engine/validate.hpp>

#include <librdkafka/rdkafka.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <spawn.h>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char **environ;

namespace {

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

bool load(const std::string &bootstrap, const std::string &topic, long long n)
{
    char err[512];
    rd_kafka_conf_t *c = rd_kafka_conf_new();
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
                                 RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                                 RD_KAFKA_V_VALUE(buf, static_cast<size_t>(len)), RD_KAFKA_V_END)
               == RD_KAFKA_RESP_ERR__QUEUE_FULL)
            rd_kafka_poll(rk, 10);
    }
    rd_kafka_flush(rk, 120000);
    bool ok = rd_kafka_outq_len(rk) == 0;
    rd_kafka_destroy(rk);
    return ok;
}

double runKcat(const std::string &bootstrap, const std::string &topic, long long &lines)
{
    std::string cmd = "kcat -C -b " + bootstrap + " -t " + topic + " -o beginning -e -q | wc -l";
    double t0 = now();
    FILE *p = popen(cmd.c_str(), "r");
    char out[64] = {0};
    if (p && fgets(out, sizeof out, p))
        lines = std::atoll(out);
    if (p)
        pclose(p);
    return now() - t0;
}

double
runEngine(const std::string &bootstrap, const std::string &topic, long long &records, int run)
{
    using namespace tideline;
    Json j{{"format", "tideline/1"},
           {"name", "kafka-bench"},
           {"nodes", Json::array({Json{{"id", "src"},
                                       {"kind", "source.kafka"},
                                       {"params",
                                        {{"bootstrap_servers", bootstrap},
                                         {"topic", topic},
                                         {"group_id", "bench-" + std::to_string(run)},
                                         {"bounded", true}}}},
                                  Json{{"id", "out"}, {"kind", "sink.discard"}}})},
           {"edges", Json::array({Json{{"from", "src.out"}, {"to", "out.in"}}})}};
    auto loaded = loadSpec(j.dump());
    std::string error;
    double t0 = now();
    auto job = Job::create(*loaded.spec, JobOptions{}, error);
    if (!job) {
        std::cerr << "engine: " << error << "\n";
        return -1;
    }
    double tc = now();
    Job::Status s = job->run();
    double dt = now() - t0;
    if (std::getenv("TIDELINE_KAFKA_BENCH_VERBOSE"))
        std::fprintf(stderr, "engine: create %.3f s, run %.3f s\n", tc - t0, now() - tc);
    if (s != Job::Status::Finished)
        std::cerr << "engine: " << job->failure() << "\n";
    records = job->snapshot().recordsRead;
    return dt;
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

} // namespace

int main(int argc, char **argv)
{
    long long events = 1000000;
    int partitions = 32, runs = 3;
    std::string mockPath = TIDELINE_KAFKA_MOCK_PATH;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--events" && i + 1 < argc)
            events = std::atoll(argv[++i]);
        else if (a == "--partitions" && i + 1 < argc)
            partitions = std::atoi(argv[++i]);
        else if (a == "--runs" && i + 1 < argc)
            runs = std::atoi(argv[++i]);
        else if (a == "--mock" && i + 1 < argc)
            mockPath = argv[++i];
        else {
            std::cerr << "usage: tideline-kafka-bench [--events N] [--partitions P] [--runs R] "
                         "[--mock PATH]\n";
            return 2;
        }
    }
    // The mock keeps at most 100,000 message sets / 5 MiB per partition: stay below that.
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
    if (!load(mock.bootstrap, topic, events)) {
        std::cerr << "loading failed\n";
        return 1;
    }
    std::cout << "loaded in " << now() - t0 << " s\n";
    std::vector<double> kRates, eRates;
    for (int r = 0; r < runs; ++r) {
        long long lines = 0, records = 0;
        double tk = runKcat(mock.bootstrap, topic, lines);
        double te = runEngine(mock.bootstrap, topic, records, r);
        double rk = static_cast<double>(lines) / tk, re = static_cast<double>(records) / te;
        kRates.push_back(rk);
        eRates.push_back(re);
        std::printf("run %d: kcat %lld msgs in %.3f s = %.0f msg/s; engine %lld records in %.3f s "
                    "= %.0f rec/s\n",
                    r + 1, lines, tk, rk, records, te, re);
        if (lines != events || records != events)
            std::printf("  warning: expected %lld on both sides\n", events);
    }
    double mk = median(kRates), me = median(eRates);
    std::printf("median: kcat %.0f msg/s, engine %.0f rec/s, engine/kcat = %.2f\n", mk, me,
                me / mk);
    return 0;
}
