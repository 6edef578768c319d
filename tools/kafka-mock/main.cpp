// tideline-kafka-mock: runs a librdkafka mock cluster in its own process.
//
// Why a process of its own: tests kill the engine with SIGKILL, and the mock's data lives in
// memory of the process that hosts it (see shared/reference/kafka-and-reliability.md). Here it
// survives the engine, and kcat / the engine / benchmarks reach it over 127.0.0.1.
//
//   tideline-kafka-mock [--brokers N] [--topic NAME:PARTITIONS]... [--keep-alive]
//
// Prints `bootstrap <host:port,...>` as its first stdout line, then reads one command per
// line on stdin and answers each with `ok` or `error <why>` (so a caller can wait for it):
//
//   down <broker|-1>              broker stops accepting connections (leaders do not move)
//   up <broker|-1>
//   topic <name> <partitions>     create a topic (the mock has no CreateTopics request)
//   err <apikey> <code>...        the next requests of that ApiKey fail with these codes
//   broker_err <broker> <apikey> <code> <rtt_ms>   one error (0 = success) delayed by rtt
//   clear <apikey>                drop pending injected errors
//   leader <topic> <partition> <broker>
//   rtt <broker> <ms>
//   coordinator <transaction|group> <key> <broker>
//   quit
//
// Error codes are numbers or librdkafka names (`_TRANSPORT`, `NOT_LEADER_FOR_PARTITION`,
// `PRODUCER_FENCED`...). On stdin EOF the process exits, unless --keep-alive is given (then it
// runs until SIGTERM/SIGINT), so a test that dies takes its mock with it.

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

std::atomic<bool> g_stop{false};
extern "C" void onSignal(int)
{
    g_stop.store(true);
}

bool parseErr(const std::string &text, rd_kafka_resp_err_t &err)
{
    char *end = nullptr;
    long v = std::strtol(text.c_str(), &end, 10);
    if (end && *end == '\0' && !text.empty()) {
        err = static_cast<rd_kafka_resp_err_t>(v);
        return true;
    }
    const rd_kafka_err_desc *descs = nullptr;
    size_t cnt = 0;
    rd_kafka_get_err_descs(&descs, &cnt);
    for (size_t i = 0; i < cnt; ++i) {
        if (descs[i].name && text == descs[i].name) {
            err = descs[i].code;
            return true;
        }
    }
    return false;
}

std::string run(rd_kafka_mock_cluster_t *mc, const std::string &line)
{
    std::istringstream in(line);
    std::string cmd;
    in >> cmd;
    if (cmd == "down" || cmd == "up") {
        int id = 0;
        if (!(in >> id))
            return "error usage: " + cmd + " <broker|-1>";
        rd_kafka_resp_err_t e = cmd == "down" ? rd_kafka_mock_broker_set_down(mc, id)
                                              : rd_kafka_mock_broker_set_up(mc, id);
        return e ? std::string("error ") + rd_kafka_err2str(e) : "ok";
    }
    if (cmd == "topic") {
        std::string name;
        int parts = 0;
        if (!(in >> name >> parts) || parts < 1)
            return "error usage: topic <name> <partitions>";
        rd_kafka_resp_err_t e = rd_kafka_mock_topic_create(mc, name.c_str(), parts, 1);
        return e ? std::string("error ") + rd_kafka_err2str(e) : "ok";
    }
    if (cmd == "err") {
        int api = -1;
        if (!(in >> api))
            return "error usage: err <apikey> <code>...";
        std::vector<rd_kafka_resp_err_t> errs;
        std::string tok;
        while (in >> tok) {
            rd_kafka_resp_err_t e;
            if (!parseErr(tok, e))
                return "error unknown error code " + tok;
            errs.push_back(e);
        }
        if (errs.empty())
            return "error usage: err <apikey> <code>...";
        rd_kafka_mock_push_request_errors_array(mc, static_cast<int16_t>(api), errs.size(),
                                                errs.data());
        return "ok";
    }
    if (cmd == "broker_err") {
        int broker = 0, api = 0, rtt = 0;
        std::string code;
        if (!(in >> broker >> api >> code >> rtt))
            return "error usage: broker_err <broker> <apikey> <code> <rtt_ms>";
        rd_kafka_resp_err_t e;
        if (!parseErr(code, e))
            return "error unknown error code " + code;
        rd_kafka_resp_err_t r = rd_kafka_mock_broker_push_request_error_rtts(
            mc, broker, static_cast<int16_t>(api), 1, e, rtt);
        return r ? std::string("error ") + rd_kafka_err2str(r) : "ok";
    }
    if (cmd == "clear") {
        int api = 0;
        if (!(in >> api))
            return "error usage: clear <apikey>";
        rd_kafka_mock_clear_request_errors(mc, static_cast<int16_t>(api));
        return "ok";
    }
    if (cmd == "leader") {
        std::string topic;
        int part = 0, broker = 0;
        if (!(in >> topic >> part >> broker))
            return "error usage: leader <topic> <partition> <broker>";
        rd_kafka_resp_err_t e = rd_kafka_mock_partition_set_leader(mc, topic.c_str(), part, broker);
        return e ? std::string("error ") + rd_kafka_err2str(e) : "ok";
    }
    if (cmd == "rtt") {
        int broker = 0, ms = 0;
        if (!(in >> broker >> ms))
            return "error usage: rtt <broker> <ms>";
        rd_kafka_resp_err_t e = rd_kafka_mock_broker_set_rtt(mc, broker, ms);
        return e ? std::string("error ") + rd_kafka_err2str(e) : "ok";
    }
    if (cmd == "coordinator") {
        std::string type, key;
        int broker = 0;
        if (!(in >> type >> key >> broker))
            return "error usage: coordinator <transaction|group> <key> <broker>";
        rd_kafka_resp_err_t e
            = rd_kafka_mock_coordinator_set(mc, type.c_str(), key.c_str(), broker);
        return e ? std::string("error ") + rd_kafka_err2str(e) : "ok";
    }
    return "error unknown command `" + cmd + "`";
}

} // namespace

int main(int argc, char **argv)
{
    int brokers = 3;
    bool keepAlive = false;
    std::vector<std::pair<std::string, int>> topics;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--brokers" && i + 1 < argc) {
            brokers = std::atoi(argv[++i]);
        } else if (a == "--topic" && i + 1 < argc) {
            std::string t = argv[++i];
            auto colon = t.rfind(':');
            int parts = colon == std::string::npos ? 1 : std::atoi(t.c_str() + colon + 1);
            topics.emplace_back(t.substr(0, colon), parts < 1 ? 1 : parts);
        } else if (a == "--keep-alive") {
            keepAlive = true;
        } else {
            std::cerr << "usage: tideline-kafka-mock [--brokers N] [--topic NAME:PARTITIONS]... "
                         "[--keep-alive]\n";
            return 2;
        }
    }
    if (brokers < 1) {
        std::cerr << "tideline-kafka-mock: --brokers must be >= 1\n";
        return 2;
    }

    char errstr[512];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    // The handle only hosts the cluster; it never connects anywhere.
    rd_kafka_conf_set(conf, "client.id", "tideline-kafka-mock", errstr, sizeof errstr);
    // No bootstrap.servers on purpose; hide librdkafka's notice about it.
    rd_kafka_conf_set(conf, "log_level", "4", errstr, sizeof errstr);
    rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof errstr);
    if (!rk) {
        std::cerr << "tideline-kafka-mock: " << errstr << "\n";
        return 1;
    }
    rd_kafka_mock_cluster_t *mc = rd_kafka_mock_cluster_new(rk, brokers);
    if (!mc) {
        std::cerr << "tideline-kafka-mock: cannot create the mock cluster\n";
        return 1;
    }
    for (const auto &[name, parts] : topics) {
        rd_kafka_resp_err_t e
            = rd_kafka_mock_topic_create(mc, name.c_str(), parts, brokers < 3 ? brokers : 3);
        if (e) {
            std::cerr << "tideline-kafka-mock: topic " << name << ": " << rd_kafka_err2str(e)
                      << "\n";
            return 1;
        }
    }
    std::signal(SIGTERM, onSignal);
    std::signal(SIGINT, onSignal);
    std::signal(SIGPIPE, SIG_IGN);
    std::cout << "bootstrap " << rd_kafka_mock_cluster_bootstraps(mc) << std::endl;

    std::string line;
    while (!g_stop.load()) {
        if (!std::getline(std::cin, line)) {
            if (!keepAlive)
                break;
            while (!g_stop.load())
                std::this_thread::sleep_for(std::chrono::milliseconds(100));
            break;
        }
        if (line.empty())
            continue;
        if (line == "quit")
            break;
        std::cout << run(mc, line) << std::endl;
    }
    rd_kafka_mock_cluster_destroy(mc);
    rd_kafka_destroy(rk);
    return 0;
}
