#include "log.hpp"

#include <tideline/engine/record_json.hpp>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <mutex>
#include <unistd.h>

namespace tideline::runner::log {

namespace {

std::atomic<Format> g_format{Format::Text};
std::mutex g_writeMutex;

const char *levelName(Level l)
{
    switch (l) {
    case Level::Info:
        return "info";
    case Level::Warning:
        return "warning";
    case Level::Error:
        return "error";
    }
    return "info";
}

// RFC 3339 in UTC with milliseconds: what log shippers (Loki, Vector, Fluent Bit) parse
// without configuration.
std::string isoTime(long long tsMs)
{
    std::time_t secs = static_cast<std::time_t>(tsMs / 1000);
    std::tm tm{};
    gmtime_r(&secs, &tm);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                  tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                  static_cast<int>(tsMs % 1000));
    return buf;
}

// Text lines keep one event per line: a newline inside a message would split it.
std::string oneLine(std::string_view s)
{
    std::string out;
    out.reserve(s.size());
    for (char c : s) {
        if (c == '\n')
            out += "\\n";
        else if (c == '\r')
            out += "\\r";
        else
            out += c;
    }
    return out;
}

} // namespace

void setFormat(Format f)
{
    g_format.store(f);
}
Format format()
{
    return g_format.load();
}

std::string jsonString(std::string_view s)
{
    // The engine's JSON string writer: one escaping routine for records and log lines.
    std::string out;
    appendJsonString(s, out);
    return out;
}

std::string
formatLine(Format f, Level level, std::string_view msg, const Fields &fields, long long tsMs)
{
    if (f == Format::Json) {
        std::string line = "{\"ts\":" + jsonString(isoTime(tsMs)) + ",\"level\":"
                           + jsonString(levelName(level)) + ",\"msg\":" + jsonString(msg);
        for (const auto &[k, v] : fields)
            if (!v.empty()) // e.g. a diagnostic about the whole file has no node
                line += "," + jsonString(k) + ":" + jsonString(v);
        return line + "}\n";
    }
    // Text keeps the runner's historical shape: "tideline-run: message", or "FILE: problem"
    // for diagnostics about a pipeline file (the same lines --validate always printed).
    std::string prefix = "tideline-run";
    for (const auto &[k, v] : fields)
        if (k == "file")
            prefix = v;
    return oneLine(prefix) + ": " + oneLine(msg) + "\n";
}

void write(Level level, std::string_view msg, const Fields &fields)
{
    using namespace std::chrono;
    long long now = duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
    std::string line = formatLine(format(), level, msg, fields, now);
    std::lock_guard lock(g_writeMutex);
    // One write() per line so lines from several threads (and processes sharing the journal
    // pipe) never interleave mid-line.
    const char *p = line.data();
    std::size_t left = line.size();
    while (left > 0) {
        ssize_t n = ::write(STDERR_FILENO, p, left);
        if (n <= 0)
            break;
        p += n;
        left -= static_cast<std::size_t>(n);
    }
}

void clientLine(const ClientLogLine &line)
{
    Level level = line.level == ClientLogLevel::Error     ? Level::Error
                  : line.level == ClientLogLevel::Warning ? Level::Warning
                                                          : Level::Info;
    // Text keeps what librdkafka printed (facility and client), after the runner's prefix.
    std::string msg = format() == Format::Json
                          ? line.message
                          : "kafka " + line.facility + " " + line.client + ": " + line.message;
    write(level, msg,
          {{"library", line.library}, {"client", line.client}, {"facility", line.facility}});
}

} // namespace tideline::runner::log
