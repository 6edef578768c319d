#pragma once
// A minimal blocking HTTP/1.1 client over POSIX sockets, so the server tests see exactly the
// bytes a scraper sees (no Qt Network, no curl).

#include <arpa/inet.h>
#include <cmath>
#include <cstring>
#include <map>
#include <netinet/in.h>
#include <optional>
#include <sstream>
#include <string>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

namespace tideline::testing {

struct HttpReply
{
    int status = 0; ///< 0 = no connection / no valid answer
    std::string headers;
    std::string body;
    int connectErrno = 0;
};

/// Connects to host:port (numeric IPv4 or IPv6) and sends one raw request.
inline HttpReply httpRaw(const std::string &host, int port, const std::string &request)
{
    HttpReply r;
    bool v6 = host.find(':') != std::string::npos;
    int fd = ::socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    timeval tv{5, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    sockaddr_storage ss{};
    socklen_t len;
    if (v6) {
        auto *a = reinterpret_cast<sockaddr_in6 *>(&ss);
        a->sin6_family = AF_INET6;
        a->sin6_port = htons(static_cast<uint16_t>(port));
        inet_pton(AF_INET6, host.c_str(), &a->sin6_addr);
        len = sizeof *a;
    } else {
        auto *a = reinterpret_cast<sockaddr_in *>(&ss);
        a->sin_family = AF_INET;
        a->sin_port = htons(static_cast<uint16_t>(port));
        inet_pton(AF_INET, host.c_str(), &a->sin_addr);
        len = sizeof *a;
    }
    if (::connect(fd, reinterpret_cast<sockaddr *>(&ss), len) != 0) {
        r.connectErrno = errno;
        ::close(fd);
        return r;
    }
    ::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
    std::string all;
    char buf[4096];
    for (;;) {
        ssize_t n = ::recv(fd, buf, sizeof buf, 0);
        if (n <= 0)
            break;
        all.append(buf, static_cast<std::size_t>(n));
    }
    ::close(fd);
    auto end = all.find("\r\n\r\n");
    if (all.rfind("HTTP/1.1 ", 0) != 0 || end == std::string::npos)
        return r;
    r.status = std::atoi(all.c_str() + 9);
    r.headers = all.substr(0, end);
    r.body = all.substr(end + 4);
    return r;
}

inline HttpReply httpGet(const std::string &host,
                         int port,
                         const std::string &path,
                         const std::string &method = "GET")
{
    return httpRaw(host, port,
                   method + " " + path + " HTTP/1.1\r\nHost: " + host
                       + "\r\nUser-Agent: test\r\n\r\n");
}

/// Prometheus text → {"name{labels}": value}. Comments (# HELP / # TYPE) are skipped.
inline std::map<std::string, double> parsePrometheus(const std::string &text)
{
    std::map<std::string, double> m;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        if (line.empty() || line[0] == '#')
            continue;
        auto sp = line.rfind(' ');
        std::string value = line.substr(sp + 1);
        m[line.substr(0, sp)] = value == "+Inf" ? HUGE_VAL : std::stod(value);
    }
    return m;
}

} // namespace tideline::testing
