#pragma once
// Log lines of the client libraries the engine embeds (librdkafka). By default librdkafka
// prints its own lines to stderr in its own format; a program with a log format of its own
// (tideline-run --log-format json) installs a handler so that those lines come out in that
// format too, one event per line.

#include <functional>
#include <string>

namespace tideline {

enum class ClientLogLevel { Error, Warning, Info, Debug };

struct ClientLogLine
{
    ClientLogLevel level = ClientLogLevel::Info;
    std::string library;  ///< "librdkafka"
    std::string client;   ///< the client instance, e.g. "tideline-orders#consumer-1"
    std::string facility; ///< librdkafka's facility, e.g. "FAIL", "REQTMOUT"
    std::string message;
};

/// Called from the libraries' own threads: must be thread-safe and must not block for long.
using ClientLogHandler = std::function<void(const ClientLogLine &)>;

/// Installs the handler for clients created from now on (an empty one restores the libraries'
/// default output). Process-wide; set it before creating jobs.
void setClientLogHandler(ClientLogHandler handler);

/// The handler installed, or an empty function.
ClientLogHandler clientLogHandler();

} // namespace tideline
