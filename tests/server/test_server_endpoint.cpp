// tideline-run --metrics-listen / --log-format as a process: scrape /metrics during a paced
// run and check every figure against the --metrics file lines of the same snapshot, /health,
// 404s, and that the runner listens on nothing but the address it was given.

#include "http_client.hpp"

#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QtTest>

#include <climits>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <ifaddrs.h>
#include <net/if.h>
#include <set>

using tideline::testing::httpGet;
using tideline::testing::parsePrometheus;

namespace {

struct TempDir
{
    std::filesystem::path path;
    TempDir()
    {
        std::string t = (std::filesystem::temp_directory_path() / "tideline-srv-XXXXXX").string();
        path = ::mkdtemp(t.data());
    }
    ~TempDir() { std::filesystem::remove_all(path); }
    QString file(const char *name) const { return QString::fromStdString((path / name).string()); }
};

void writeFile(const QString &path, const QByteArray &text)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(text);
}

// Unbounded, paced: a late fraction, duplicates, a dedup and a keyed window so that every
// counter and gauge moves.
const char *kPaced = R"({"format":"tideline/1","name":"paced","nodes":[
  {"id":"gen","kind":"source.generator","params":{"count":0,"keys":20,"pace":{"records_per_s":800},
     "disorder":{"max_delay_ms":300,"late_fraction":0.05,"late_by_ms":5000,"duplicate_fraction":0.1}}},
  {"id":"wm","kind":"watermark","params":{"time_field":"event_time","max_out_of_orderness_ms":500}},
  {"id":"dd","kind":"dedup","params":{"key":["event_id"],"within_ms":10000}},
  {"id":"win","kind":"window","params":{"type":"tumbling","size_ms":1000,"key":["user_id"],
     "aggregates":[{"op":"count","as":"n"}]}},
  {"id":"out","kind":"sink.discard"},
  {"id":"late","kind":"sink.discard"}],
  "edges":[{"from":"gen.out","to":"wm.in"},{"from":"wm.out","to":"dd.in"},
           {"from":"dd.out","to":"win.in"},{"from":"win.out","to":"out.in"},
           {"from":"win.late","to":"late.in"},{"from":"dd.late","to":"late.in"},
           {"from":"wm.errors","to":"late.in"},{"from":"gen.errors","to":"late.in"}]})";

/// A running tideline-run whose stderr we read for the "metrics: serving" line.
struct Runner
{
    QProcess proc;
    QString err;
    int port = 0;
    QString host;

    bool start(const QStringList &args)
    {
        proc.start(TIDELINE_RUN_EXE, args);
        if (!proc.waitForStarted())
            return false;
        QRegularExpression re("metrics: serving http://(\\[?[0-9a-fA-F.:]+\\]?):([0-9]+)/metrics");
        for (int i = 0; i < 200; ++i) {
            proc.waitForReadyRead(100);
            err += QString::fromUtf8(proc.readAllStandardError());
            auto m = re.match(err);
            if (m.hasMatch()) {
                host = m.captured(1).remove('[').remove(']');
                port = m.captured(2).toInt();
                return true;
            }
            if (proc.state() != QProcess::Running)
                return false;
        }
        return false;
    }
    int stop()
    {
        ::kill(static_cast<pid_t>(proc.processId()), SIGTERM);
        proc.waitForFinished(15000);
        err += QString::fromUtf8(proc.readAllStandardError());
        return proc.exitStatus() == QProcess::NormalExit ? proc.exitCode() : -1;
    }
    ~Runner()
    {
        if (proc.state() != QProcess::NotRunning) {
            proc.kill();
            proc.waitForFinished(5000);
        }
    }
};

struct Listener
{
    std::string address; // "127.0.0.1" / "0.0.0.0" / "::1" / "::"
    int port = 0;
};

/// The TCP sockets in LISTEN state that belong to `pid`, from /proc (no ss/netstat needed).
std::vector<Listener> listeningSockets(qint64 pid)
{
    std::set<std::string> inodes;
    std::string fdDir = "/proc/" + std::to_string(pid) + "/fd";
    for (const auto &e : std::filesystem::directory_iterator(fdDir)) {
        std::error_code ec;
        auto target = std::filesystem::read_symlink(e.path(), ec).string();
        if (target.rfind("socket:[", 0) == 0)
            inodes.insert(target.substr(8, target.size() - 9));
    }
    std::vector<Listener> out;
    for (const char *table : {"tcp", "tcp6"}) {
        std::ifstream in("/proc/" + std::to_string(pid) + "/net/" + table);
        std::string line;
        std::getline(in, line); // header
        while (std::getline(in, line)) {
            std::istringstream ls(line);
            std::string sl, local, remote, st, txrx, tr, retr, uid, timeout, inode;
            ls >> sl >> local >> remote >> st >> txrx >> tr >> retr >> uid >> timeout >> inode;
            if (st != "0A" || !inodes.count(inode))
                continue;
            auto colon = local.find(':');
            std::string hex = local.substr(0, colon);
            Listener l;
            l.port = std::stoi(local.substr(colon + 1), nullptr, 16);
            unsigned char bytes[16];
            for (std::size_t w = 0; w < hex.size() / 8; ++w) {
                // /proc prints each 32-bit word in host (little-endian) order.
                uint32_t word
                    = static_cast<uint32_t>(std::stoul(hex.substr(w * 8, 8), nullptr, 16));
                std::memcpy(bytes + w * 4, &word, 4);
            }
            char buf[INET6_ADDRSTRLEN];
            inet_ntop(hex.size() == 8 ? AF_INET : AF_INET6, bytes, buf, sizeof buf);
            l.address = buf;
            out.push_back(l);
        }
    }
    return out;
}

/// A non-loopback IPv4 address of this machine, or "" when it has none.
std::string externalIPv4()
{
    ifaddrs *list = nullptr;
    if (getifaddrs(&list) != 0)
        return {};
    std::string found;
    for (ifaddrs *i = list; i && found.empty(); i = i->ifa_next) {
        if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || (i->ifa_flags & IFF_LOOPBACK)
            || !(i->ifa_flags & IFF_UP))
            continue;
        char buf[INET_ADDRSTRLEN];
        inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in *>(i->ifa_addr)->sin_addr, buf,
                  sizeof buf);
        found = buf;
    }
    freeifaddrs(list);
    return found;
}

struct FileLine
{
    qint64 t = 0;
    QJsonObject o;
};

/// --metrics file → node id → lines in time order.
std::map<QString, std::vector<FileLine>> readMetricsFile(const QString &path)
{
    std::map<QString, std::vector<FileLine>> m;
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return m;
    for (const QByteArray &line : f.readAll().split('\n')) {
        if (line.trimmed().isEmpty())
            continue;
        auto o = QJsonDocument::fromJson(line).object();
        m[o["node"].toString()].push_back({o["t_ms"].toInteger(), o});
    }
    return m;
}

// --metrics file key → metric name on /metrics (same figure, same unit).
const std::vector<std::pair<const char *, std::string>> kCounters = {
    {"records_in", "tideline_node_records_in_total"},
    {"records_out", "tideline_node_records_out_total"},
    {"late", "tideline_node_late_total"},
    {"errors", "tideline_node_errors_total"},
    {"duplicates_dropped", "tideline_node_duplicates_dropped_total"},
};
const std::vector<std::pair<const char *, std::string>> kGauges = {
    {"state_entries", "tideline_node_state_entries"},
    {"state_bytes", "tideline_node_state_bytes"},
    {"open_windows", "tideline_node_open_windows"},
    {"watermark", "tideline_node_watermark_ms"},
    {"max_event_time", "tideline_node_max_event_time_ms"},
};

} // namespace

class TestServerEndpoint : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void scrapesMatchTheMetricsFile()
    {
        TempDir dir;
        writeFile(dir.file("p.json"), kPaced);
        Runner r;
        QVERIFY2(r.start({dir.file("p.json"), "--metrics", dir.file("m.jsonl"),
                          "--metrics-interval", "100", "--metrics-listen", "0"}),
                 qPrintable(r.err));
        QCOMPARE(r.host, QString("127.0.0.1"));

        struct Scrape
        {
            std::map<std::string, double> m;
        };
        std::vector<Scrape> scrapes;
        QElapsedTimer t;
        t.start();
        while (t.elapsed() < 3000) {
            auto reply = httpGet("127.0.0.1", r.port, "/metrics");
            QCOMPARE(reply.status, 200);
            scrapes.push_back({parsePrometheus(reply.body)});
            QTest::qWait(40);
        }
        auto health = httpGet("127.0.0.1", r.port, "/health");
        QCOMPARE(health.status, 200);
        QCOMPARE(health.body, std::string("ok\n"));
        QCOMPARE(httpGet("127.0.0.1", r.port, "/").status, 404);
        QCOMPARE(httpGet("127.0.0.1", r.port, "/metrics.json").status, 404);
        QCOMPARE(r.stop(), 0);

        auto file = readMetricsFile(dir.file("m.jsonl"));
        QVERIFY(file.count("win") && file.count("dd") && file.count("*"));
        const auto last = scrapes.back().m;
        QVERIFY2(last.at("tideline_node_records_in_total{node=\"win\"}") > 500,
                 "the paced run produced too little to compare");
        // Late records: dedup sees them first (it needs event time too) and routes them to late.
        QVERIFY(last.at("tideline_node_late_total{node=\"dd\"}")
                    + last.at("tideline_node_late_total{node=\"win\"}")
                > 0);
        QVERIFY(last.at("tideline_node_duplicates_dropped_total{node=\"dd\"}") > 0);
        QVERIFY(last.at("tideline_node_open_windows{node=\"win\"}") > 0);
        QVERIFY(last.at("tideline_node_watermark_lag_ms{node=\"wm\"}") > 0);
        QVERIFY(last.at("tideline_events_per_second") > 0);

        int exactMatches = 0;
        for (const auto &s : scrapes) {
            const qint64 T = static_cast<qint64>(s.m.at("tideline_snapshot_time_ms"));
            for (const auto &[node, lines] : file) {
                if (node == "*")
                    continue;
                const std::string label = "{node=\"" + node.toStdString() + "\"}";
                // The file lines just before and after this snapshot bracket every counter;
                // a file line taken at the very same snapshot must agree on every figure.
                const FileLine *before = nullptr, *after = nullptr, *same = nullptr;
                for (const auto &l : lines) {
                    if (l.t <= T)
                        before = &l;
                    if (l.t >= T && !after)
                        after = &l;
                    if (l.t == T)
                        same = &l;
                }
                for (const auto &[key, name] : kCounters) {
                    QVERIFY2(s.m.count(name + label), (name + label).c_str());
                    double v = s.m.at(name + label);
                    if (before)
                        QVERIFY2(before->o[key].toDouble() <= v, (name + label).c_str());
                    if (after)
                        QVERIFY2(v <= after->o[key].toDouble(), (name + label).c_str());
                    if (same)
                        QCOMPARE(v, same->o[key].toDouble());
                }
                if (!same)
                    continue;
                ++exactMatches;
                for (const auto &[key, name] : kGauges) {
                    auto fv = same->o[key];
                    if (fv.isNull()) { // -inf watermark / no event yet: no sample either
                        QVERIFY2(!s.m.count(name + label), (name + label).c_str());
                        continue;
                    }
                    QVERIFY2(s.m.count(name + label), (name + label).c_str());
                    double v = s.m.at(name + label);
                    if (std::isinf(v)) // ended watermark
                        QCOMPARE(fv.toInteger(), qint64(INT64_MAX));
                    else
                        QCOMPARE(v, fv.toDouble());
                }
            }
            // Run figures ("*" line) for the same snapshot.
            for (const auto &l : file["*"]) {
                if (l.t != T)
                    continue;
                QCOMPARE(s.m.at("tideline_records_read_total"), l.o["records_read"].toDouble());
                QCOMPARE(s.m.at("tideline_processing_ms"), l.o["processing_ms"].toDouble());
                QCOMPARE(s.m.at("tideline_events_per_second"), l.o["events_per_s"].toDouble());
            }
        }
        QVERIFY2(exactMatches > 0, "no scrape hit a snapshot that was also written to the file");
        qInfo("%d scrapes, %d node figures compared exactly", int(scrapes.size()), exactMatches);
    }

    void checkpointFiguresMatchTheRunLine()
    {
        TempDir dir;
        QByteArray pipeline = kPaced;
        pipeline.replace(
            R"("name":"paced",)",
            R"("name":"paced","settings":{"checkpoint":{"interval_ms":300,"dir":"ckpt"}},)");
        writeFile(dir.file("p.json"), pipeline);
        Runner r;
        QVERIFY2(r.start({dir.file("p.json"), "--metrics", dir.file("m.jsonl"),
                          "--metrics-interval", "100", "--metrics-listen", "0"}),
                 qPrintable(r.err));
        std::vector<std::map<std::string, double>> scrapes;
        QElapsedTimer t;
        t.start();
        while (t.elapsed() < 2500) {
            auto reply = httpGet("127.0.0.1", r.port, "/metrics");
            QCOMPARE(reply.status, 200);
            scrapes.push_back(parsePrometheus(reply.body));
            QTest::qWait(40);
        }
        QCOMPARE(r.stop(), 0);
        auto runLines = readMetricsFile(dir.file("m.jsonl"))["*"];
        // A checkpoint completes between two publishes and updates the published snapshot at
        // once, so a scrape may know a newer checkpoint than the --metrics line written at the
        // same snapshot, never an older one, and never a newer one than the next line. The
        // same checkpoint (id and status) must carry the same figures in both.
        std::map<std::pair<qint64, QString>, QJsonObject> fileCheckpoints;
        for (const auto &l : runLines) {
            QJsonObject c = l.o["checkpoint"].toObject();
            if (!c.isEmpty())
                fileCheckpoints[{c["id"].toInteger(), c["status"].toString()}] = c;
        }
        QVERIFY2(!fileCheckpoints.empty(), "the run wrote no checkpoint");
        int compared = 0;
        for (const auto &m : scrapes) {
            if (!m.count("tideline_checkpoint_last_id"))
                continue;
            const qint64 T = static_cast<qint64>(m.at("tideline_snapshot_time_ms"));
            const qint64 id = static_cast<qint64>(m.at("tideline_checkpoint_last_id"));
            for (const auto &l : runLines) {
                QJsonObject c = l.o["checkpoint"].toObject();
                if (l.t <= T && !c.isEmpty())
                    QVERIFY(c["id"].toInteger() <= id);
                if (l.t > T) {
                    QVERIFY(!c.isEmpty() && id <= c["id"].toInteger());
                    break;
                }
            }
            QString status;
            for (const char *st : {"completed", "failed", "in_progress"})
                if (m.at(std::string("tideline_checkpoint_last_status{status=\"") + st + "\"}")
                    == 1.0)
                    status = st;
            auto it = fileCheckpoints.find({id, status});
            if (it == fileCheckpoints.end())
                continue;
            const QJsonObject &c = it->second;
            QCOMPARE(m.at("tideline_checkpoint_last_duration_ms"), c["duration_ms"].toDouble());
            QCOMPARE(m.at("tideline_checkpoint_last_bytes"), c["bytes"].toDouble());
            QCOMPARE(m.at("tideline_checkpoint_last_time_ms"), c["time"].toDouble());
            // Age is taken at scrape time, which is never before the checkpoint finished.
            QVERIFY(m.at("tideline_checkpoint_age_ms") >= 0);
            QVERIFY(m.at("tideline_checkpoint_age_ms") < 60000);
            ++compared;
        }
        QVERIFY2(compared > 0, "no scrape with a checkpoint matched a --metrics line");
        QVERIFY(scrapes.back().at("tideline_checkpoint_last_status{status=\"completed\"}") == 1.0);
    }

    void listensOnlyOnLoopbackByDefault()
    {
        TempDir dir;
        writeFile(dir.file("p.json"), kPaced);
        for (const QString &listen : {QString("0"), QString("127.0.0.1:0")}) {
            Runner r;
            QVERIFY2(r.start({dir.file("p.json"), "--metrics-listen", listen}), qPrintable(r.err));
            auto socks = listeningSockets(r.proc.processId());
            QCOMPARE(socks.size(), std::size_t(1));
            QCOMPARE(socks[0].address, std::string("127.0.0.1"));
            QCOMPARE(socks[0].port, r.port);
            QCOMPARE(httpGet("127.0.0.1", r.port, "/health").status, 200);
            std::string ext = externalIPv4();
            if (!ext.empty()) {
                auto reply = httpGet(ext, r.port, "/metrics");
                QCOMPARE(reply.status, 0);
                QVERIFY2(reply.connectErrno != 0, ext.c_str());
            } else {
                qInfo("no non-loopback IPv4 address on this machine; /proc check only");
            }
            QCOMPARE(r.stop(), 0);
        }
    }

    void otherAddressesOnlyWhenAskedFor()
    {
        TempDir dir;
        writeFile(dir.file("p.json"), kPaced);
        Runner r;
        QVERIFY2(r.start({dir.file("p.json"), "--metrics-listen", "0.0.0.0:0"}), qPrintable(r.err));
        auto socks = listeningSockets(r.proc.processId());
        QCOMPARE(socks.size(), std::size_t(1));
        QCOMPARE(socks[0].address, std::string("0.0.0.0"));
        QCOMPARE(httpGet("127.0.0.1", r.port, "/health").status, 200);
        std::string ext = externalIPv4();
        if (!ext.empty())
            QCOMPARE(httpGet(ext, r.port, "/health").status, 200);
        QCOMPARE(r.stop(), 0);

        Runner v6;
        if (!v6.start({dir.file("p.json"), "--metrics-listen", "[::1]:0"})) {
            if (v6.err.contains("cannot listen"))
                QSKIP("no IPv6 loopback on this machine");
            QFAIL(qPrintable(v6.err));
        }
        socks = listeningSockets(v6.proc.processId());
        QCOMPARE(socks.size(), std::size_t(1));
        QCOMPARE(socks[0].address, std::string("::1"));
        QCOMPARE(httpGet("::1", v6.port, "/health").status, 200);
        QCOMPARE(v6.stop(), 0);
    }

    void badListenAddressesAreUsageErrors()
    {
        TempDir dir;
        writeFile(dir.file("p.json"), kPaced);
        for (const char *bad : {"abc", "host.example:9464", "::1:9464", "1.2.3.4:99999"}) {
            QProcess p;
            p.start(TIDELINE_RUN_EXE, {dir.file("p.json"), "--metrics-listen", bad});
            QVERIFY(p.waitForFinished(10000));
            QCOMPARE(p.exitCode(), 2);
            QVERIFY(QString::fromUtf8(p.readAllStandardError()).contains("--metrics-listen"));
        }
        // Address in use: a clear error and exit 1 before anything runs.
        Runner first;
        QVERIFY2(first.start({dir.file("p.json"), "--metrics-listen", "0"}), qPrintable(first.err));
        QProcess p;
        p.start(TIDELINE_RUN_EXE,
                {dir.file("p.json"), "--metrics-listen", QString::number(first.port)});
        QVERIFY(p.waitForFinished(10000));
        QCOMPARE(p.exitCode(), 1);
        QVERIFY(QString::fromUtf8(p.readAllStandardError()).contains("cannot listen on 127.0.0.1"));
        QCOMPARE(first.stop(), 0);
    }

    void jsonLogsAreOneObjectPerLine()
    {
        TempDir dir;
        writeFile(dir.file("p.json"), kPaced);
        Runner r;
        QVERIFY2(r.start({dir.file("p.json"), "--log-format", "json", "--metrics-listen", "0"}),
                 qPrintable(r.err));
        QCOMPARE(r.stop(), 0);
        writeFile(dir.file("bad.json"), R"({"format":"tideline/1","nodes":[
          {"id":"g","kind":"source.generator","params":{"count":-1}}],"edges":[]})");
        QProcess bad;
        bad.start(TIDELINE_RUN_EXE, {"--log-format", "json", dir.file("bad.json")});
        QVERIFY(bad.waitForFinished(10000));
        QCOMPARE(bad.exitCode(), 2);
        QString all = r.err + QString::fromUtf8(bad.readAllStandardError());
        int lines = 0;
        bool sawServing = false, sawStopped = false, sawDiagnostic = false;
        for (const QString &line : all.split('\n', Qt::SkipEmptyParts)) {
            QJsonParseError pe;
            auto o = QJsonDocument::fromJson(line.toUtf8(), &pe).object();
            QVERIFY2(pe.error == QJsonParseError::NoError, qPrintable(line));
            QVERIFY2(o.contains("ts") && o.contains("level") && o.contains("msg"),
                     qPrintable(line));
            QVERIFY(QDateTime::fromString(o["ts"].toString(), Qt::ISODateWithMs).isValid());
            sawServing |= o["msg"].toString().startsWith("metrics: serving");
            sawStopped |= o["msg"].toString().startsWith("stopped:");
            sawDiagnostic |= o["level"] == "error" && o["node"] == "g"
                             && o["msg"].toString().contains("params.count");
            ++lines;
        }
        QVERIFY(lines >= 3);
        QVERIFY(sawServing && sawStopped && sawDiagnostic);
    }

    // Issue 23 #18: with --log-format json, librdkafka's own lines still went to stderr as
    // its raw text ("%3|1700000000.123|FAIL|rdkafka#consumer-1| ..."). A broker that refuses
    // connections makes librdkafka log; every line must be one of the runner's JSON objects.
    void librdkafkaLinesAreJsonLogLinesToo()
    {
        TempDir dir;
        writeFile(dir.file("k.json"), R"({"format":"tideline/1","nodes":[
          {"id":"src","kind":"source.kafka","params":{"bootstrap_servers":"127.0.0.1:1",
             "topic":"t","bounded":true}},
          {"id":"out","kind":"sink.discard"}],
          "edges":[{"from":"src.out","to":"out.in"},{"from":"src.errors","to":"out.in"}]})");
        QProcess p;
        p.start(TIDELINE_RUN_EXE, {"--log-format", "json", dir.file("k.json")});
        QVERIFY(p.waitForStarted());
        QString err;
        QElapsedTimer t;
        t.start();
        while (!err.contains("librdkafka") && t.elapsed() < 20000
               && p.state() == QProcess::Running) {
            p.waitForReadyRead(100);
            err += QString::fromUtf8(p.readAllStandardError());
        }
        p.kill();
        p.waitForFinished(5000);
        err += QString::fromUtf8(p.readAllStandardError());
        bool sawLibrary = false;
        for (const QString &line : err.split('\n', Qt::SkipEmptyParts)) {
            QJsonParseError pe;
            auto o = QJsonDocument::fromJson(line.toUtf8(), &pe).object();
            QVERIFY2(pe.error == QJsonParseError::NoError, qPrintable(line));
            QVERIFY2(o.contains("ts") && o.contains("level") && o.contains("msg"),
                     qPrintable(line));
            if (o["library"] == "librdkafka") {
                sawLibrary = true;
                QVERIFY2(o["client"].toString().startsWith("tideline-src#consumer"),
                         qPrintable(line));
                QVERIFY2(!o["facility"].toString().isEmpty(), qPrintable(line));
            }
        }
        QVERIFY2(sawLibrary, qPrintable(err));
    }

    // Issue 23 #17: idle connections delayed /health and SIGTERM (3.4 s).
    void idleClientsDelayNeitherHealthNorShutdown()
    {
        TempDir dir;
        writeFile(dir.file("p.json"), kPaced);
        Runner r;
        QVERIFY2(r.start({dir.file("p.json"), "--metrics-listen", "0"}), qPrintable(r.err));
        std::vector<int> idle;
        for (int i = 0; i < 70; ++i) { // more than the server holds
            int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
            timeval tv{2, 0};
            ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
            sockaddr_in sa{};
            sa.sin_family = AF_INET;
            sa.sin_port = htons(static_cast<uint16_t>(r.port));
            inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
            QCOMPARE(::connect(fd, reinterpret_cast<sockaddr *>(&sa), sizeof sa), 0);
            idle.push_back(fd);
        }
        int partial = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        {
            sockaddr_in sa{};
            sa.sin_family = AF_INET;
            sa.sin_port = htons(static_cast<uint16_t>(r.port));
            inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
            QCOMPARE(::connect(partial, reinterpret_cast<sockaddr *>(&sa), sizeof sa), 0);
            ::send(partial, "GET /metrics HTTP/1.1\r\n", 23, MSG_NOSIGNAL);
        }
        QElapsedTimer t;
        for (int i = 0; i < 5; ++i) {
            t.start();
            QCOMPARE(httpGet("127.0.0.1", r.port, "/health").status, 200);
            QVERIFY2(t.elapsed() < 1000, qPrintable(QString::number(t.elapsed())));
        }
        t.start();
        QCOMPARE(r.stop(), 0);
        QVERIFY2(t.elapsed() < 1500, qPrintable(QString::number(t.elapsed())));
        for (int fd : idle)
            ::close(fd);
        ::close(partial);
    }
};

QTEST_GUILESS_MAIN(TestServerEndpoint)
#include "test_server_endpoint.moc"
