#pragma once
// The runner's log: one line per event on stderr, as plain text or as JSON objects
// ({"ts":..,"level":..,"msg":..}) for log shippers. Thread-safe: the job loop, the metrics
// server thread and main() all write through it, and each line goes out in one write().

#include <tideline/engine/client_log.hpp>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tideline::runner::log {

enum class Format { Text, Json };
enum class Level { Info, Warning, Error };

/// Extra key/value pairs for JSON lines (e.g. {"file", path}); text lines ignore the keys and
/// keep the message as it is.
using Fields = std::vector<std::pair<std::string, std::string>>;

void setFormat(Format format);
Format format();

/// Writes one line. Newlines inside `msg` are escaped so an event never spans two lines.
void write(Level level, std::string_view msg, const Fields &fields = {});

inline void info(std::string_view msg, const Fields &f = {})
{
    write(Level::Info, msg, f);
}
inline void warning(std::string_view msg, const Fields &f = {})
{
    write(Level::Warning, msg, f);
}
inline void error(std::string_view msg, const Fields &f = {})
{
    write(Level::Error, msg, f);
}

/// A client library's line (librdkafka) as one log line: level mapped (debug → info), the
/// message prefixed "kafka: " in text, and library/client/facility as JSON fields.
/// Thread-safe (librdkafka calls it from its threads).
void clientLine(const ClientLogLine &line);

/// Formats one line without writing it (the tests and write() share it). `tsMs` is Unix time.
std::string
formatLine(Format format, Level level, std::string_view msg, const Fields &fields, long long tsMs);
/// JSON string escaping (quotes included).
std::string jsonString(std::string_view s);

} // namespace tideline::runner::log
