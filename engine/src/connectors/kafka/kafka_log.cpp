// librdkafka's log lines through the program's own log (client_log.hpp). librdkafka calls the
// log callback from its internal threads, so the handler is read under a mutex; lines are
// rare (connection trouble, warnings), never per record.

#include "connectors/kafka/kafka_config.hpp"

#include <tideline/engine/client_log.hpp>

#include <memory>
#include <mutex>

namespace tideline {

namespace {

std::mutex g_mutex;
std::shared_ptr<const ClientLogHandler> g_handler;

std::shared_ptr<const ClientLogHandler> current()
{
    std::lock_guard lock(g_mutex);
    return g_handler;
}

ClientLogLevel levelOf(int syslogLevel)
{
    // librdkafka uses syslog levels: 0-3 emergency..error, 4 warning, 5-6 notice/info, 7 debug.
    if (syslogLevel <= 3)
        return ClientLogLevel::Error;
    if (syslogLevel == 4)
        return ClientLogLevel::Warning;
    if (syslogLevel <= 6)
        return ClientLogLevel::Info;
    return ClientLogLevel::Debug;
}

void onLog(const rd_kafka_t *rk, int level, const char *fac, const char *buf)
{
    auto handler = current();
    if (!handler || !*handler)
        return; // removed after this client was created: drop rather than print raw
    ClientLogLine line;
    line.level = levelOf(level);
    line.library = "librdkafka";
    line.client = rk ? rd_kafka_name(rk) : "";
    line.facility = fac ? fac : "";
    line.message = buf ? buf : "";
    (*handler)(line);
}

} // namespace

void setClientLogHandler(ClientLogHandler handler)
{
    auto p = handler ? std::make_shared<const ClientLogHandler>(std::move(handler)) : nullptr;
    std::lock_guard lock(g_mutex);
    g_handler = std::move(p);
}

ClientLogHandler clientLogHandler()
{
    auto h = current();
    return h ? *h : ClientLogHandler();
}

namespace kafka {

void installLogCallback(rd_kafka_conf_t *conf)
{
    if (current())
        rd_kafka_conf_set_log_cb(conf, &onLog);
}

} // namespace kafka

} // namespace tideline
