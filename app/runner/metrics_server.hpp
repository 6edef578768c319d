#pragma once
// `--metrics-listen`: a deliberately tiny HTTP/1.1 server for Prometheus. It serves exactly two
// resources — GET /metrics (text exposition format 0.0.4) and GET /health — on one listening
// socket, from one background thread, reading Job::snapshot() (thread-safe) per request.
// Everything else is 404 (unknown path) or 405 (a method other than GET/HEAD).
// Plain POSIX sockets: the runner never links Qt or an HTTP library.
//
// Clients are served concurrently by one poll() loop over non-blocking sockets, so a client
// that connects and says nothing (or sends half a request) delays no other: each must send its
// request within Limits::requestTimeoutMs and take the answer within writeTimeoutMs, and at
// most maxClients are held; at the cap the client that has been waiting longest for its
// request is dropped for the newcomer. stop() wakes the loop at once.

#include <tideline/observe/metrics.hpp>

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <thread>

namespace tideline::runner {

/// Where to listen. `--metrics-listen 9464` and `--metrics-listen 127.0.0.1:9464` bind the
/// loopback interface; any other address (0.0.0.0, [::], a LAN address) must be written out.
struct ListenAddress
{
    std::string host = "127.0.0.1"; ///< numeric IPv4 or IPv6 ("localhost" maps to 127.0.0.1)
    int port = 0;                   ///< 0 = let the kernel pick (the log line names it)
    bool ipv6 = false;
};

/// Parses PORT, HOST:PORT or [IPV6]:PORT. Returns nullopt and sets `error` when malformed.
std::optional<ListenAddress> parseListenAddress(const std::string &text, std::string &error);

/// The Prometheus text for one snapshot. `nowMs` (Unix time) is used only for ages
/// (checkpoint age); everything else comes from the snapshot.
std::string prometheusText(const observe::MetricsSnapshot &s, std::int64_t nowMs);

/// 200 "ok" while the job is created/running/paused; 503 with the state (and failure) after.
struct HealthAnswer
{
    int status = 200;
    std::string body;
};
HealthAnswer healthOf(const observe::MetricsSnapshot &s);

class MetricsServer
{
public:
    using SnapshotFn = std::function<observe::MetricsSnapshot()>;
    struct Limits
    {
        int maxClients = 64;         ///< connections held at once
        int requestTimeoutMs = 5000; ///< from accept to the end of the request header
        int writeTimeoutMs = 10000;  ///< to send the answer
    };
    explicit MetricsServer(SnapshotFn snapshot);
    MetricsServer(SnapshotFn snapshot, Limits limits);
    ~MetricsServer(); ///< stops and joins
    MetricsServer(const MetricsServer &) = delete;
    MetricsServer &operator=(const MetricsServer &) = delete;

    /// Binds, listens and starts the thread. False with `error` set (e.g. address in use).
    bool start(const ListenAddress &address, std::string &error);
    void stop();
    /// "127.0.0.1:9464" or "[::1]:9464", with the port actually bound.
    std::string boundAddress() const { return m_bound; }
    int port() const { return m_port; }

private:
    struct Client;
    void serve();
    /// The whole answer to one complete request header (also 400/404/405/431).
    std::string answer(const std::string &request);

    SnapshotFn m_snapshot;
    Limits m_limits;
    int m_listenFd = -1;
    int m_wakeFd = -1; ///< eventfd: stop() wakes the poll() with it
    int m_port = 0;
    std::string m_bound;
    std::thread m_thread;
};

} // namespace tideline::runner
