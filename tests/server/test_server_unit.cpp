// The runner's server pieces in-process: listen-address parsing, the Prometheus text for a
// known snapshot, /health, the HTTP surface (only /metrics and /health), and log lines.

#include "http_client.hpp"
#include "log.hpp"
#include "metrics_server.hpp"

#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <algorithm>
#include <climits>
#include <mutex>
#include <set>

using namespace tideline;
using namespace tideline::runner;
using testing::httpGet;
using testing::httpRaw;
using testing::parsePrometheus;

namespace {

observe::MetricsSnapshot sampleSnapshot()
{
    observe::MetricsSnapshot s;
    s.startedAtMs = 1'700'000'000'000;
    s.takenAtMs = 1'700'000'005'000;
    s.state = observe::JobState::Running;
    s.recordsRead = 1234;
    s.eventsPerSecond = 246.8;
    observe::NodeMetrics a;
    a.node = "clicks";
    a.kind = "source.generator";
    a.recordsOut = 1234;
    a.watermark = INT64_MAX; // ended
    observe::NodeMetrics b;
    b.node = "per\"user"; // a quote must be escaped in the label
    b.kind = "window";
    b.recordsIn = 1200;
    b.recordsOut = 40;
    b.late = 7;
    b.errors = 2;
    b.duplicatesDropped = 3;
    b.watermark = 1'700'000'004'000;
    b.maxEventTime = 1'700'000'004'900;
    b.stateEntries = 12;
    b.stateBytes = 3456;
    b.openWindows = 5;
    observe::NodeMetrics c;
    c.node = "sink";
    c.kind = "sink.discard"; // watermark still -inf: no watermark sample at all
    s.nodes = {a, b, c};
    observe::CheckpointInfo cp;
    cp.id = 9;
    cp.status = "completed";
    cp.durationMs = 42;
    cp.bytes = 2048;
    cp.timeMs = 1'700'000'003'000;
    s.lastCheckpoint = cp;
    return s;
}

/// A connected socket (with 3 s timeouts so a stalled server fails the test, not hangs it).
int connectTo(int port)
{
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    timeval tv{3, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_port = htons(static_cast<uint16_t>(port));
    inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
    if (::connect(fd, reinterpret_cast<sockaddr *>(&sa), sizeof sa) != 0) {
        ::close(fd);
        return -1;
    }
    return fd;
}

/// Everything until the peer closes (or the 3 s timeout).
std::string readAll(int fd)
{
    std::string all;
    char buf[4096];
    for (;;) {
        ssize_t n = ::recv(fd, buf, sizeof buf, 0);
        if (n <= 0)
            break;
        all.append(buf, static_cast<std::size_t>(n));
    }
    return all;
}

} // namespace

class TestServerUnit : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void listenAddressDefaultsToLoopback()
    {
        std::string err;
        auto a = parseListenAddress("9464", err);
        QVERIFY(a);
        QCOMPARE(a->host, std::string("127.0.0.1"));
        QCOMPARE(a->port, 9464);
        QVERIFY(!a->ipv6);
        a = parseListenAddress("127.0.0.1:9100", err);
        QVERIFY(a && a->host == "127.0.0.1" && a->port == 9100);
        a = parseListenAddress("localhost:9100", err);
        QVERIFY(a && a->host == "127.0.0.1");
        a = parseListenAddress("0.0.0.0:80", err); // explicit: allowed
        QVERIFY(a && a->host == "0.0.0.0" && a->port == 80);
        a = parseListenAddress("[::1]:9464", err);
        QVERIFY(a && a->ipv6 && a->host == "::1");
    }

    void listenAddressRejectsGarbage()
    {
        for (const char *bad : {"", "abc", ":9464", "1.2.3.4:", "1.2.3.4:70000", "9464x",
                                "::1:9464", "[::1]", "[::1]9464", "example.com:9464", "-1"}) {
            std::string err;
            QVERIFY2(!parseListenAddress(bad, err), bad);
            QVERIFY2(err.rfind("--metrics-listen", 0) == 0, err.c_str());
        }
    }

    void prometheusTextCarriesEveryFigure()
    {
        auto s = sampleSnapshot();
        std::string text = prometheusText(s, 1'700'000'010'000);
        auto m = parsePrometheus(text);
        const std::string w = "{node=\"per\\\"user\"}";
        QCOMPARE(m.at("tideline_node_records_in_total" + w), 1200.0);
        QCOMPARE(m.at("tideline_node_records_out_total" + w), 40.0);
        QCOMPARE(m.at("tideline_node_late_total" + w), 7.0);
        QCOMPARE(m.at("tideline_node_errors_total" + w), 2.0);
        QCOMPARE(m.at("tideline_node_duplicates_dropped_total" + w), 3.0);
        QCOMPARE(m.at("tideline_node_watermark_ms" + w), 1'700'000'004'000.0);
        QCOMPARE(m.at("tideline_node_watermark_lag_ms" + w), 1000.0);
        QCOMPARE(m.at("tideline_node_max_event_time_ms" + w), 1'700'000'004'900.0);
        QCOMPARE(m.at("tideline_node_state_entries" + w), 12.0);
        QCOMPARE(m.at("tideline_node_state_bytes" + w), 3456.0);
        QCOMPARE(m.at("tideline_node_open_windows" + w), 5.0);
        QCOMPARE(m.at("tideline_node_info{node=\"per\\\"user\",kind=\"window\"}"), 1.0);
        // Ended watermark is +Inf and has no lag; -inf has no sample.
        QVERIFY(std::isinf(m.at("tideline_node_watermark_ms{node=\"clicks\"}")));
        QVERIFY(!m.count("tideline_node_watermark_lag_ms{node=\"clicks\"}"));
        QVERIFY(!m.count("tideline_node_watermark_ms{node=\"sink\"}"));
        QCOMPARE(m.at("tideline_node_records_in_total{node=\"sink\"}"), 0.0);
        // Run figures and the last checkpoint.
        QCOMPARE(m.at("tideline_records_read_total"), 1234.0);
        QCOMPARE(m.at("tideline_events_per_second"), 246.8);
        QCOMPARE(m.at("tideline_processing_ms"), 5000.0);
        QCOMPARE(m.at("tideline_snapshot_time_ms"), 1'700'000'005'000.0);
        QCOMPARE(m.at("tideline_job_state{state=\"running\"}"), 1.0);
        QCOMPARE(m.at("tideline_job_state{state=\"failed\"}"), 0.0);
        QCOMPARE(m.at("tideline_checkpoint_last_id"), 9.0);
        QCOMPARE(m.at("tideline_checkpoint_last_status{status=\"completed\"}"), 1.0);
        QCOMPARE(m.at("tideline_checkpoint_last_status{status=\"failed\"}"), 0.0);
        QCOMPARE(m.at("tideline_checkpoint_last_duration_ms"), 42.0);
        QCOMPARE(m.at("tideline_checkpoint_last_bytes"), 2048.0);
        QCOMPARE(m.at("tideline_checkpoint_age_ms"), 7000.0);
        // Exposition format: every family announced once with HELP and TYPE before samples.
        QVERIFY(text.find("# TYPE tideline_node_records_in_total counter\n") != std::string::npos);
        QVERIFY(text.find("# TYPE tideline_node_watermark_ms gauge\n") != std::string::npos);
        QCOMPARE(text.back(), '\n');
        std::istringstream in(text);
        std::set<std::string> typed;
        for (std::string line; std::getline(in, line);) {
            if (line.rfind("# TYPE ", 0) == 0) {
                std::string fam = line.substr(7, line.find(' ', 7) - 7);
                QVERIFY2(typed.insert(fam).second, line.c_str());
            } else if (line[0] != '#') {
                std::string name = line.substr(0, line.find_first_of("{ "));
                QVERIFY2(typed.count(name), line.c_str());
            }
        }
    }

    void noCheckpointNoCheckpointFamilies()
    {
        auto s = sampleSnapshot();
        s.lastCheckpoint.reset();
        auto m = parsePrometheus(prometheusText(s, 0));
        for (const auto &[k, v] : m)
            QVERIFY2(k.rfind("tideline_checkpoint", 0) != 0, k.c_str());
    }

    void healthFollowsTheJobState()
    {
        auto s = sampleSnapshot();
        QCOMPARE(healthOf(s).status, 200);
        QCOMPARE(healthOf(s).body, std::string("ok\n"));
        s.state = observe::JobState::Failed;
        s.failure = "node `out`: disk full";
        QCOMPARE(healthOf(s).status, 503);
        QVERIFY(healthOf(s).body.find("disk full") != std::string::npos);
        s.state = observe::JobState::Stopped;
        QCOMPARE(healthOf(s).status, 503);
    }

    void servesOnlyMetricsAndHealth()
    {
        std::mutex mu;
        auto snap = sampleSnapshot();
        MetricsServer server([&] {
            std::lock_guard lock(mu);
            return snap;
        });
        std::string err;
        auto addr = parseListenAddress("0", err); // loopback, kernel-chosen port
        QVERIFY(server.start(*addr, err));
        int port = server.port();
        QVERIFY(port > 0);
        QCOMPARE(server.boundAddress(), "127.0.0.1:" + std::to_string(port));

        auto r = httpGet("127.0.0.1", port, "/metrics");
        QCOMPARE(r.status, 200);
        QVERIFY(r.headers.find("Content-Type: text/plain; version=0.0.4") != std::string::npos);
        QCOMPARE(parsePrometheus(r.body).at("tideline_records_read_total"), 1234.0);
        QCOMPARE(httpGet("127.0.0.1", port, "/metrics?x=1").status, 200);
        r = httpGet("127.0.0.1", port, "/health");
        QCOMPARE(r.status, 200);
        QCOMPARE(r.body, std::string("ok\n"));
        auto head = httpGet("127.0.0.1", port, "/metrics", "HEAD");
        QCOMPARE(head.status, 200);
        QVERIFY(head.body.empty());

        for (const char *path :
             {"/", "/metrics/", "/healthz", "/index.html", "/../etc/passwd", "/debug/pprof"})
            QCOMPARE(httpGet("127.0.0.1", port, path).status, 404);
        QCOMPARE(httpGet("127.0.0.1", port, "/metrics", "POST").status, 405);
        QCOMPARE(httpGet("127.0.0.1", port, "/health", "DELETE").status, 405);
        QCOMPARE(httpRaw("127.0.0.1", port, "garbage\r\n\r\n").status, 400);
        QCOMPARE(httpRaw("127.0.0.1", port, "GET /metrics\r\n\r\n").status, 400);
        QCOMPARE(httpRaw("127.0.0.1", port,
                         "GET /x HTTP/1.1\r\nX: " + std::string(20000, 'a') + "\r\n\r\n")
                     .status,
                 431);

        {
            std::lock_guard lock(mu);
            snap.state = observe::JobState::Failed;
            snap.failure = "node `out`: boom";
        }
        r = httpGet("127.0.0.1", port, "/health");
        QCOMPARE(r.status, 503);
        QVERIFY(r.body.find("boom") != std::string::npos);

        // A client that connects and says nothing does not block the next one for long.
        int idle = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in sa{};
        sa.sin_family = AF_INET;
        sa.sin_port = htons(static_cast<uint16_t>(port));
        inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
        QCOMPARE(::connect(idle, reinterpret_cast<sockaddr *>(&sa), sizeof sa), 0);
        QElapsedTimer t;
        t.start();
        QCOMPARE(httpGet("127.0.0.1", port, "/metrics").status, 200);
        QVERIFY(t.elapsed() < 4000);
        ::close(idle);

        server.stop();
        QVERIFY(httpGet("127.0.0.1", port, "/metrics").connectErrno != 0);
    }

    // Issue 23 #17: one idle connection delayed /health by 2 s, 51 idle connections or one
    // partial request made it time out while they were held, and stop() waited for them.
    void idleAndPartialClientsDelayNoOne()
    {
        MetricsServer server([] { return sampleSnapshot(); },
                             MetricsServer::Limits{16, 1500, 10000});
        std::string err;
        QVERIFY(server.start(*parseListenAddress("0", err), err));
        const int port = server.port();
        // More idle connections than the cap, and one that sends half a request.
        std::vector<int> idle;
        for (int i = 0; i < 40; ++i) {
            int fd = connectTo(port);
            QVERIFY(fd >= 0);
            idle.push_back(fd);
        }
        int partial = connectTo(port);
        QVERIFY(partial >= 0);
        const std::string head = "GET /health HTTP/1.1\r\nHost: x\r\n";
        QCOMPARE(::send(partial, head.data(), head.size(), MSG_NOSIGNAL), ssize_t(head.size()));
        QElapsedTimer t;
        for (int i = 0; i < 10; ++i) {
            t.start();
            auto r = httpGet("127.0.0.1", port, i % 2 ? "/metrics" : "/health");
            QCOMPARE(r.status, 200);
            QVERIFY2(t.elapsed() < 500, qPrintable(QString::number(t.elapsed())));
        }
        // The partial request is still being served (the idle ones made room at the cap):
        // its end comes, its answer follows.
        QCOMPARE(::send(partial, "\r\n", 2, MSG_NOSIGNAL), ssize_t(2));
        QCOMPARE(readAll(partial).substr(0, 15), std::string("HTTP/1.1 200 OK"));
        ::close(partial);
        // A client that never finishes its request is dropped after the request timeout.
        int slow = connectTo(port);
        QCOMPARE(::send(slow, "GET /he", 7, MSG_NOSIGNAL), ssize_t(7));
        t.start();
        QCOMPARE(readAll(slow), std::string()); // closed without an answer
        QVERIFY2(t.elapsed() >= 1000 && t.elapsed() < 4000,
                 qPrintable(QString::number(t.elapsed())));
        ::close(slow);
        // stop() does not wait for the clients it holds.
        for (int i = 0; i < 8; ++i)
            idle.push_back(connectTo(port));
        QTest::qWait(50);
        t.start();
        server.stop();
        QVERIFY2(t.elapsed() < 300, qPrintable(QString::number(t.elapsed())));
        for (int fd : idle)
            ::close(fd);
    }

    void portInUseIsAClearError()
    {
        MetricsServer first([] { return observe::MetricsSnapshot{}; });
        std::string err;
        QVERIFY(first.start(*parseListenAddress("0", err), err));
        MetricsServer second([] { return observe::MetricsSnapshot{}; });
        QVERIFY(!second.start(*parseListenAddress(std::to_string(first.port()), err), err));
        QVERIFY2(err.find("cannot listen on 127.0.0.1:" + std::to_string(first.port()))
                     != std::string::npos,
                 err.c_str());
    }

    void jsonLogLinesAreOneObjectEach()
    {
        std::string line = log::formatLine(log::Format::Json, log::Level::Warning,
                                           "two\nlines \"quoted\" \x01 tab\t",
                                           {{"file", "p.json"}, {"node", ""}}, 1'700'000'000'123);
        QCOMPARE(line.back(), '\n');
        QCOMPARE(std::count(line.begin(), line.end(), '\n'), 1);
        QJsonParseError pe;
        auto doc = QJsonDocument::fromJson(QByteArray::fromStdString(line), &pe);
        QVERIFY2(pe.error == QJsonParseError::NoError, line.c_str());
        auto o = doc.object();
        QCOMPARE(o["ts"].toString(), QString("2023-11-14T22:13:20.123Z"));
        QCOMPARE(o["level"].toString(), QString("warning"));
        QCOMPARE(o["msg"].toString(), QString("two\nlines \"quoted\" \x01 tab\t"));
        QCOMPARE(o["file"].toString(), QString("p.json"));
        QVERIFY(!o.contains("node")); // empty fields are left out
    }

    void textLogLinesKeepTheRunnerShape()
    {
        QCOMPARE(
            log::formatLine(log::Format::Text, log::Level::Error, "node `x`: boom\nmore", {}, 0),
            std::string("tideline-run: node `x`: boom\\nmore\n"));
        QCOMPARE(log::formatLine(log::Format::Text, log::Level::Warning, "warning: nodes[1] ...",
                                 {{"file", "p.json"}}, 0),
                 std::string("p.json: warning: nodes[1] ...\n"));
    }
};

QTEST_GUILESS_MAIN(TestServerUnit)
#include "test_server_unit.moc"
