#include "metrics_server.hpp"

#include "log.hpp"

#include <algorithm>
#include <arpa/inet.h>
#include <array>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <climits>
#include <cstring>
#include <netinet/in.h>
#include <poll.h>
#include <string_view>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include <vector>

namespace tideline::runner {

// ---------------------------------------------------------------------------------------------
// Address

std::optional<ListenAddress> parseListenAddress(const std::string &text, std::string &error)
{
    ListenAddress a;
    std::string portText = text;
    if (!text.empty() && text[0] == '[') {
        auto close = text.find(']');
        if (close == std::string::npos || close + 1 >= text.size() || text[close + 1] != ':') {
            error = "--metrics-listen: expected [IPV6]:PORT, got `" + text + "`";
            return std::nullopt;
        }
        a.host = text.substr(1, close - 1);
        a.ipv6 = true;
        portText = text.substr(close + 2);
    } else if (auto colon = text.rfind(':'); colon != std::string::npos) {
        if (text.find(':') != colon) {
            error = "--metrics-listen: write IPv6 addresses in brackets, e.g. [::1]:9464";
            return std::nullopt;
        }
        a.host = text.substr(0, colon);
        portText = text.substr(colon + 1);
        if (a.host.empty()) {
            error = "--metrics-listen: `" + text
                    + "` has no host; give PORT alone for loopback or HOST:PORT";
            return std::nullopt;
        }
    }
    if (a.host == "localhost")
        a.host = "127.0.0.1";
    int port = -1;
    auto r = std::from_chars(portText.data(), portText.data() + portText.size(), port);
    if (portText.empty() || r.ec != std::errc() || r.ptr != portText.data() + portText.size()
        || port < 0 || port > 65535) {
        error = "--metrics-listen: `" + portText + "` is not a port number (0-65535)";
        return std::nullopt;
    }
    a.port = port;
    unsigned char buf[sizeof(in6_addr)];
    if (inet_pton(a.ipv6 ? AF_INET6 : AF_INET, a.host.c_str(), buf) != 1) {
        error = "--metrics-listen: `" + a.host + "` is not a numeric " + (a.ipv6 ? "IPv6" : "IPv4")
                + " address (or localhost)";
        return std::nullopt;
    }
    return a;
}

// ---------------------------------------------------------------------------------------------
// Exposition

namespace {

std::string labelValue(std::string_view v)
{
    std::string out;
    for (char c : v) {
        if (c == '\\')
            out += "\\\\";
        else if (c == '"')
            out += "\\\"";
        else if (c == '\n')
            out += "\\n";
        else
            out += c;
    }
    return out;
}

std::string num(std::int64_t v)
{
    return std::to_string(v);
}

std::string num(double v)
{
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, r.ptr);
}

/// Writes one metric family: HELP, TYPE, then its samples.
class Family
{
public:
    Family(std::string &out, const char *name, const char *type, const char *help)
        : m_out(out)
        , m_name(name)
    {
        m_out += "# HELP ";
        m_out += name;
        m_out += ' ';
        m_out += help;
        m_out += "\n# TYPE ";
        m_out += name;
        m_out += ' ';
        m_out += type;
        m_out += '\n';
    }
    void sample(const std::string &labels, const std::string &value)
    {
        m_out += m_name;
        if (!labels.empty())
            m_out += "{" + labels + "}";
        m_out += ' ';
        m_out += value;
        m_out += '\n';
    }

private:
    std::string &m_out;
    std::string m_name;
};

std::string nodeLabel(const observe::NodeMetrics &n)
{
    return "node=\"" + labelValue(n.node) + "\"";
}

const char *stateName(observe::JobState s)
{
    switch (s) {
    case observe::JobState::Created:
        return "created";
    case observe::JobState::Running:
        return "running";
    case observe::JobState::Paused:
        return "paused";
    case observe::JobState::Finished:
        return "finished";
    case observe::JobState::Failed:
        return "failed";
    case observe::JobState::Stopped:
        return "stopped";
    }
    return "created";
}

bool endedWatermark(std::int64_t w)
{
    return w == INT64_MAX;
}

} // namespace

std::string prometheusText(const observe::MetricsSnapshot &s, std::int64_t nowMs)
{
    std::string out;
    out.reserve(4096 + s.nodes.size() * 1024);
    using Int = std::int64_t;
    // Counters named after the --metrics file keys, with Prometheus' _total suffix; times stay
    // in milliseconds (suffix _ms) so a scrape and a --metrics line read the same numbers.
    struct Counter
    {
        const char *name, *help;
        Int observe::NodeMetrics::*field;
    };
    const std::array<Counter, 5> counters{{
        {"tideline_node_records_in_total", "Records received by the node.",
         &observe::NodeMetrics::recordsIn},
        {"tideline_node_records_out_total", "Records emitted on the node's data output.",
         &observe::NodeMetrics::recordsOut},
        {"tideline_node_late_total", "Records sent to or dropped at the node's late port.",
         &observe::NodeMetrics::late},
        {"tideline_node_errors_total", "Malformed records sent to or counted at the errors port.",
         &observe::NodeMetrics::errors},
        {"tideline_node_duplicates_dropped_total", "Records dropped as duplicates.",
         &observe::NodeMetrics::duplicatesDropped},
    }};
    for (const auto &c : counters) {
        Family f(out, c.name, "counter", c.help);
        for (const auto &n : s.nodes)
            f.sample(nodeLabel(n), num(n.*(c.field)));
    }
    {
        // Every record accounted for (observe/accounting.hpp): one series per fate and per
        // late/errors reason, only those that occurred.
        Family f(out, "tideline_node_records_accounted_total", "counter",
                 "Records a node consumed, dropped or made, by fate (filter_false, duplicate, "
                 "join_unmatched, windowed, ...).");
        for (const auto &n : s.nodes)
            for (std::size_t i = 0; i < observe::kFateCount; ++i)
                if (n.fates[i] != 0)
                    f.sample(nodeLabel(n) + ",fate=\""
                                 + labelValue(
                                     std::string(observe::fateName(static_cast<observe::Fate>(i))))
                                 + "\"",
                             num(n.fates[i]));
    }
    for (const bool late : {true, false}) {
        Family f(out,
                 late ? "tideline_node_late_by_reason_total"
                      : "tideline_node_errors_by_reason_total",
                 "counter",
                 late ? "Records sent to or dropped at the late port, by reason."
                      : "Records sent to or dropped at the errors port, by reason.");
        for (const auto &n : s.nodes)
            for (const auto &c : late ? n.lateCauses : n.errorCauses)
                f.sample(nodeLabel(n) + ",reason=\"" + labelValue(c.first) + "\"", num(c.second));
    }
    {
        Family f(out, "tideline_node_watermark_ms", "gauge",
                 "Watermark of the node in Unix ms (+Inf once its inputs ended; absent while "
                 "-inf).");
        for (const auto &n : s.nodes)
            if (n.watermark)
                f.sample(nodeLabel(n), endedWatermark(*n.watermark) ? "+Inf" : num(*n.watermark));
    }
    {
        Family f(out, "tideline_node_watermark_lag_ms", "gauge",
                 "Processing time of the snapshot minus the node's watermark, in ms (absent "
                 "while the watermark is -inf or ended).");
        for (const auto &n : s.nodes)
            if (n.watermark && !endedWatermark(*n.watermark))
                f.sample(nodeLabel(n), num(s.takenAtMs - *n.watermark));
    }
    {
        Family f(out, "tideline_node_max_event_time_ms", "gauge",
                 "Largest event time the node has seen, Unix ms (absent before the first).");
        for (const auto &n : s.nodes)
            if (n.maxEventTime)
                f.sample(nodeLabel(n), num(*n.maxEventTime));
    }
    struct Gauge
    {
        const char *name, *help;
        Int observe::NodeMetrics::*field;
    };
    const std::array<Gauge, 5> gauges{{
        {"tideline_node_records_held", "Input records the node holds in state (join).",
         &observe::NodeMetrics::held},
        {"tideline_node_state_entries", "Keyed state entries held by the node.",
         &observe::NodeMetrics::stateEntries},
        {"tideline_node_state_bytes", "Approximate bytes of state held by the node.",
         &observe::NodeMetrics::stateBytes},
        {"tideline_node_open_windows", "Windows open (not yet fired and purged) in the node.",
         &observe::NodeMetrics::openWindows},
        {"tideline_node_state_spilled_entries",
         "Of the state entries, how many are on disk (settings.state \"rocksdb\").",
         &observe::NodeMetrics::stateSpilled},
    }};
    for (const auto &g : gauges) {
        Family f(out, g.name, "gauge", g.help);
        for (const auto &n : s.nodes)
            f.sample(nodeLabel(n), num(n.*(g.field)));
    }
    {
        Family f(out, "tideline_node_info", "gauge", "Node kind per node id (always 1).");
        for (const auto &n : s.nodes)
            f.sample(nodeLabel(n) + ",kind=\"" + labelValue(n.kind) + "\"", "1");
    }

    // --- Per run ---
    {
        Family f(out, "tideline_job_state", "gauge", "1 for the job's current state.");
        for (auto st :
             {observe::JobState::Created, observe::JobState::Running, observe::JobState::Paused,
              observe::JobState::Finished, observe::JobState::Failed, observe::JobState::Stopped})
            f.sample(std::string("state=\"") + stateName(st) + "\"", st == s.state ? "1" : "0");
    }
    Family(out, "tideline_records_read_total", "counter", "Records taken from all sources.")
        .sample("", num(s.recordsRead));
    Family(out, "tideline_events_per_second", "gauge",
           "Source records per second of processing time.")
        .sample("", num(s.eventsPerSecond));
    Family(out, "tideline_processing_ms", "gauge", "Processing time since the run started, ms.")
        .sample("", num(s.takenAtMs - s.startedAtMs));
    Family(out, "tideline_snapshot_time_ms", "gauge",
           "Processing time (Unix ms) at which these figures were taken.")
        .sample("", num(s.takenAtMs));

    if (s.lastCheckpoint) {
        const auto &c = *s.lastCheckpoint;
        Family(out, "tideline_checkpoint_last_id", "gauge", "Id of the last checkpoint.")
            .sample("", num(c.id));
        Family f(out, "tideline_checkpoint_last_status", "gauge",
                 "1 for the status of the last checkpoint.");
        for (const char *st : {"completed", "failed", "in_progress"})
            f.sample(std::string("status=\"") + st + "\"", c.status == st ? "1" : "0");
        Family(out, "tideline_checkpoint_last_duration_ms", "gauge",
               "Duration of the last checkpoint, ms.")
            .sample("", num(c.durationMs));
        Family(out, "tideline_checkpoint_last_bytes", "gauge", "Size of the last checkpoint.")
            .sample("", num(c.bytes));
        Family(out, "tideline_checkpoint_last_time_ms", "gauge",
               "Unix ms at which the last checkpoint finished.")
            .sample("", num(c.timeMs));
        if (c.timeMs > 0)
            Family(out, "tideline_checkpoint_age_ms", "gauge",
                   "Milliseconds since the last checkpoint finished (at scrape time).")
                .sample("", num(nowMs - c.timeMs));
    }
    return out;
}

HealthAnswer healthOf(const observe::MetricsSnapshot &s)
{
    switch (s.state) {
    case observe::JobState::Created:
    case observe::JobState::Running:
    case observe::JobState::Paused:
        return {200, "ok\n"};
    case observe::JobState::Failed:
        return {503, "failed: " + s.failure + "\n"};
    case observe::JobState::Finished:
    case observe::JobState::Stopped:
        break;
    }
    return {503, std::string(stateName(s.state)) + "\n"};
}

// ---------------------------------------------------------------------------------------------
// Server

MetricsServer::MetricsServer(SnapshotFn snapshot)
    : MetricsServer(std::move(snapshot), Limits{})
{
}

MetricsServer::MetricsServer(SnapshotFn snapshot, Limits limits)
    : m_snapshot(std::move(snapshot))
    , m_limits(limits)
{
}

MetricsServer::~MetricsServer()
{
    stop();
}

bool MetricsServer::start(const ListenAddress &a, std::string &error)
{
    int family = a.ipv6 ? AF_INET6 : AF_INET;
    int fd = ::socket(family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) {
        error = std::string("metrics: socket: ") + std::strerror(errno);
        return false;
    }
    int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_storage ss{};
    socklen_t len = 0;
    if (a.ipv6) {
        // [::] means IPv6 only: an IPv4 wildcard must be asked for on its own.
        ::setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
        auto *s6 = reinterpret_cast<sockaddr_in6 *>(&ss);
        s6->sin6_family = AF_INET6;
        s6->sin6_port = htons(static_cast<std::uint16_t>(a.port));
        inet_pton(AF_INET6, a.host.c_str(), &s6->sin6_addr);
        len = sizeof *s6;
    } else {
        auto *s4 = reinterpret_cast<sockaddr_in *>(&ss);
        s4->sin_family = AF_INET;
        s4->sin_port = htons(static_cast<std::uint16_t>(a.port));
        inet_pton(AF_INET, a.host.c_str(), &s4->sin_addr);
        len = sizeof *s4;
    }
    std::string where = (a.ipv6 ? "[" + a.host + "]" : a.host) + ":" + std::to_string(a.port);
    if (::bind(fd, reinterpret_cast<sockaddr *>(&ss), len) != 0 || ::listen(fd, 128) != 0) {
        error = "metrics: cannot listen on " + where + ": " + std::strerror(errno);
        ::close(fd);
        return false;
    }
    sockaddr_storage bound{};
    socklen_t blen = sizeof bound;
    ::getsockname(fd, reinterpret_cast<sockaddr *>(&bound), &blen);
    m_port = ntohs(a.ipv6 ? reinterpret_cast<sockaddr_in6 *>(&bound)->sin6_port
                          : reinterpret_cast<sockaddr_in *>(&bound)->sin_port);
    m_bound = (a.ipv6 ? "[" + a.host + "]" : a.host) + ":" + std::to_string(m_port);
    m_wakeFd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (m_wakeFd < 0) {
        error = std::string("metrics: eventfd: ") + std::strerror(errno);
        ::close(fd);
        return false;
    }
    m_listenFd = fd;
    m_thread = std::thread([this] { serve(); });
    return true;
}

void MetricsServer::stop()
{
    if (m_thread.joinable()) {
        std::uint64_t v = 1;
        [[maybe_unused]] auto n = ::write(m_wakeFd, &v, sizeof v);
        m_thread.join();
    }
    if (m_listenFd >= 0)
        ::close(m_listenFd);
    if (m_wakeFd >= 0)
        ::close(m_wakeFd);
    m_listenFd = m_wakeFd = -1;
}

namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kMaxHeader = 16 * 1024;

std::string response(int status,
                     const char *reason,
                     const std::string &contentType,
                     const std::string &body,
                     bool withBody,
                     const char *extraHeaders = "")
{
    std::string head = "HTTP/1.1 " + std::to_string(status) + " " + reason + "\r\n"
                       + "Content-Type: " + contentType + "\r\n"
                       + "Content-Length: " + std::to_string(body.size()) + "\r\n"
                       + "Cache-Control: no-store\r\n" + extraHeaders + "Connection: close\r\n\r\n";
    return withBody ? head + body : head;
}

bool complete(const std::string &req)
{
    return req.find("\r\n\r\n") != std::string::npos || req.find("\n\n") != std::string::npos;
}

} // namespace

struct MetricsServer::Client
{
    enum class Phase { Reading, Writing, Draining };
    int fd = -1;
    Phase phase = Phase::Reading;
    std::string in;
    std::string out;
    std::size_t sent = 0;
    Clock::time_point accepted;
    Clock::time_point deadline;
};

void MetricsServer::serve()
{
    std::vector<Client> clients;
    std::vector<pollfd> fds;
    char buf[4096];
    auto closeClient = [&](std::size_t i) {
        ::close(clients[i].fd);
        clients.erase(clients.begin() + static_cast<std::ptrdiff_t>(i));
    };
    auto ms = [](int v) {
        return std::chrono::milliseconds(v);
    };
    for (;;) {
        const auto now = Clock::now();
        // Deadlines first: a client past its time is dropped without an answer (it said too
        // little in time, or does not read what it asked for).
        for (std::size_t i = clients.size(); i-- > 0;)
            if (now >= clients[i].deadline)
                closeClient(i);
        fds.clear();
        fds.push_back({m_wakeFd, POLLIN, 0});
        fds.push_back({m_listenFd, POLLIN, 0});
        int timeoutMs = -1;
        for (const auto &c : clients) {
            fds.push_back({c.fd,
                           static_cast<short>(c.phase == Client::Phase::Writing ? POLLOUT : POLLIN),
                           0});
            auto left = std::chrono::duration_cast<std::chrono::milliseconds>(c.deadline - now);
            int l = static_cast<int>(std::max<std::int64_t>(1, left.count() + 1));
            timeoutMs = timeoutMs < 0 ? l : std::min(timeoutMs, l);
        }
        int r = ::poll(fds.data(), static_cast<nfds_t>(fds.size()), timeoutMs);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            log::error(std::string("metrics: poll: ") + std::strerror(errno));
            break;
        }
        if (fds[0].revents)
            break; // stop()
        // Clients, from the back so that closing one keeps the others' indexes.
        for (std::size_t i = clients.size(); i-- > 0;) {
            const short ev = fds[i + 2].revents;
            if (!ev)
                continue;
            Client &c = clients[i];
            if (c.phase == Client::Phase::Writing) {
                if (ev & (POLLERR | POLLNVAL)) {
                    closeClient(i);
                    continue;
                }
                ssize_t n
                    = ::send(c.fd, c.out.data() + c.sent, c.out.size() - c.sent, MSG_NOSIGNAL);
                if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
                    continue;
                if (n <= 0) {
                    closeClient(i);
                    continue;
                }
                c.sent += static_cast<std::size_t>(n);
                if (c.sent < c.out.size())
                    continue;
                if (c.in.size() > kMaxHeader) {
                    // Lingering close: closing with unread bytes would reset the connection
                    // and could destroy the answer before the client reads it.
                    ::shutdown(c.fd, SHUT_WR);
                    c.phase = Client::Phase::Draining;
                    c.in.clear();
                    c.sent = 0; // counts drained bytes from here
                    c.deadline = Clock::now() + ms(300);
                    continue;
                }
                closeClient(i);
                continue;
            }
            ssize_t n = ::recv(c.fd, buf, sizeof buf, 0);
            if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
                continue;
            if (n <= 0) {
                closeClient(i); // closed (or reset) before a full request: nothing to answer
                continue;
            }
            if (c.phase == Client::Phase::Draining) {
                c.sent += static_cast<std::size_t>(n);
                if (c.sent > 1024 * 1024)
                    closeClient(i);
                continue;
            }
            c.in.append(buf, static_cast<std::size_t>(n));
            if (c.in.size() > kMaxHeader || complete(c.in)) {
                c.out = c.in.size() > kMaxHeader ? response(431, "Request Header Fields Too Large",
                                                            "text/plain; charset=utf-8",
                                                            "request header too large\n", true)
                                                 : answer(c.in);
                c.phase = Client::Phase::Writing;
                c.sent = 0;
                c.deadline = Clock::now() + ms(m_limits.writeTimeoutMs);
            }
        }
        if (fds[1].revents & POLLIN) {
            // Everything waiting in the backlog, a slot each.
            for (;;) {
                int fd = ::accept4(m_listenFd, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
                if (fd < 0)
                    break; // EAGAIN: none left; ECONNABORTED and friends: the next is unaffected
                if (static_cast<int>(clients.size()) >= std::max(1, m_limits.maxClients)) {
                    // At the cap: the client that has waited longest without sending its
                    // request makes room (a scraper sends at once; an idle holder does not).
                    std::size_t oldest = clients.size();
                    for (std::size_t i = 0; i < clients.size(); ++i)
                        if (clients[i].phase == Client::Phase::Reading
                            && (oldest == clients.size()
                                || clients[i].accepted < clients[oldest].accepted))
                            oldest = i;
                    if (oldest == clients.size()) {
                        ::close(fd); // every slot is busy answering: try again shortly
                        continue;
                    }
                    closeClient(oldest);
                }
                Client c;
                c.fd = fd;
                c.accepted = Clock::now();
                c.deadline = c.accepted + ms(m_limits.requestTimeoutMs);
                clients.push_back(std::move(c));
            }
        }
    }
    for (auto &c : clients)
        ::close(c.fd);
}

std::string MetricsServer::answer(const std::string &req)
{
    std::string_view line(req);
    line = line.substr(0, line.find_first_of("\r\n"));
    auto sp1 = line.find(' ');
    auto sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
    if (sp1 == std::string_view::npos || sp2 == std::string_view::npos
        || line.substr(sp2 + 1).rfind("HTTP/1.", 0) != 0)
        return response(400, "Bad Request", "text/plain; charset=utf-8", "bad request\n", true);
    std::string_view method = line.substr(0, sp1);
    std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
    target = target.substr(0, target.find('?')); // Prometheus may add ?params; none are used
    const bool known = target == "/metrics" || target == "/health";
    if (!known)
        return response(404, "Not Found", "text/plain; charset=utf-8",
                        "not found: only /metrics and /health are served\n", method != "HEAD");
    if (method != "GET" && method != "HEAD")
        return response(405, "Method Not Allowed", "text/plain; charset=utf-8",
                        "method not allowed\n", true, "Allow: GET, HEAD\r\n");
    const bool withBody = method == "GET";
    observe::MetricsSnapshot snap = m_snapshot();
    if (target == "/health") {
        HealthAnswer h = healthOf(snap);
        return response(h.status, h.status == 200 ? "OK" : "Service Unavailable",
                        "text/plain; charset=utf-8", h.body, withBody);
    }
    using namespace std::chrono;
    std::int64_t now = duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
    return response(200, "OK", "text/plain; version=0.0.4; charset=utf-8",
                    prometheusText(snap, now), withBody);
}

} // namespace tideline::runner
