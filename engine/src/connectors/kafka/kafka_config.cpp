#include "connectors/kafka/kafka_config.hpp"

#include <tideline/engine/catalog.hpp>
#include <tideline/engine/operator.hpp>

#include <algorithm>
#include <array>

namespace tideline::kafka {

namespace {

// Settings both clients may take from a pipeline file: security and connection tuning.
constexpr std::array kCommon = {
    "api.version.fallback.ms",
    "api.version.request",
    "broker.address.family",
    "client.dns.lookup",
    "client.id",
    "client.rack",
    "connections.max.idle.ms",
    "enable.ssl.certificate.verification",
    "message.max.bytes",
    "metadata.max.age.ms",
    "receive.message.max.bytes",
    "reconnect.backoff.max.ms",
    "reconnect.backoff.ms",
    "retry.backoff.ms",
    "sasl.kerberos.keytab",
    "sasl.kerberos.min.time.before.relogin",
    "sasl.kerberos.principal",
    "sasl.kerberos.service.name",
    "sasl.mechanism",
    "sasl.mechanisms",
    "sasl.oauthbearer.config",
    "sasl.password",
    "sasl.username",
    "security.protocol",
    "socket.connection.setup.timeout.ms",
    "socket.keepalive.enable",
    "socket.nagle.disable",
    "socket.receive.buffer.bytes",
    "socket.send.buffer.bytes",
    "socket.timeout.ms",
    "ssl.ca.location",
    "ssl.ca.pem",
    "ssl.certificate.location",
    "ssl.certificate.pem",
    "ssl.cipher.suites",
    "ssl.crl.location",
    "ssl.curves.list",
    "ssl.endpoint.identification.algorithm",
    "ssl.key.location",
    "ssl.key.password",
    "ssl.key.pem",
    "ssl.keystore.location",
    "ssl.keystore.password",
    "ssl.sigalgs.list",
    "statistics.interval.ms",
    "topic.metadata.refresh.interval.ms",
};
constexpr std::array kConsumer = {
    "check.crcs",
    "fetch.error.backoff.ms",
    "fetch.max.bytes",
    "fetch.message.max.bytes",
    "fetch.min.bytes",
    "fetch.wait.max.ms",
    "group.instance.id",
    "heartbeat.interval.ms",
    "isolation.level",
    "max.partition.fetch.bytes",
    "max.poll.interval.ms",
    "partition.assignment.strategy",
    "queued.max.messages.kbytes",
    "queued.min.messages",
    "session.timeout.ms",
};
constexpr std::array kProducer = {
    "batch.num.messages",
    "batch.size",
    "compression.codec",
    "compression.level",
    "compression.type",
    "delivery.timeout.ms",
    "linger.ms",
    "message.send.max.retries",
    "message.timeout.ms",
    "partitioner",
    "queue.buffering.backpressure.threshold",
    "queue.buffering.max.kbytes",
    "queue.buffering.max.messages",
    "queue.buffering.max.ms",
    "request.timeout.ms",
    "retries",
    "sticky.partitioning.linger.ms",
    "transaction.timeout.ms",
};
// Set by the node from its params or its delivery guarantee; a property must not override.
constexpr std::array kEngineOwned = {
    "acks",
    "auto.offset.reset",
    "bootstrap.servers",
    "enable.auto.commit",
    "enable.auto.offset.store",
    "enable.idempotence",
    "enable.partition.eof",
    "group.id",
    "metadata.broker.list",
    "request.required.acks",
    "transactional.id",
    "max.in.flight",
    "max.in.flight.requests.per.connection",
};
// Never from a pipeline file: they run code, or exist for testing only.
constexpr std::array kDangerous = {
    "sasl.kerberos.kinit.cmd",
    "plugin.library.paths",
    "ssl.engine.location",
    "ssl.engine.id",
    "ssl.providers",
    "debug",
    "interceptors",
};
constexpr std::array kSecrets = {
    "sasl.password", "ssl.key.password",        "ssl.keystore.password",
    "ssl.key.pem",   "sasl.oauthbearer.config", "sasl.oauthbearer.client.secret",
};

template<std::size_t N>
bool in(const std::array<const char *, N> &list, std::string_view key)
{
    return std::any_of(list.begin(), list.end(), [&](const char *k) { return key == k; });
}

std::string lower(std::string_view s)
{
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

} // namespace

bool isSecretKey(std::string_view key)
{
    return in(kSecrets, key);
}

bool isSecretReference(std::string_view v)
{
    bool env = v.rfind("${env:", 0) == 0, file = v.rfind("${file:", 0) == 0;
    if (!env && !file)
        return false;
    std::size_t close = v.find('}');
    std::size_t prefix = env ? 6 : 7;
    return close == v.size() - 1 && close > prefix;
}

const std::vector<std::string> &allowedKeys(Role role)
{
    static const auto build = [](Role r) {
        std::vector<std::string> keys(kCommon.begin(), kCommon.end());
        if (r == Role::Consumer)
            keys.insert(keys.end(), kConsumer.begin(), kConsumer.end());
        else
            keys.insert(keys.end(), kProducer.begin(), kProducer.end());
        std::sort(keys.begin(), keys.end());
        return keys;
    };
    static const std::vector<std::string> consumer = build(Role::Consumer);
    static const std::vector<std::string> producer = build(Role::Producer);
    return role == Role::Consumer ? consumer : producer;
}

std::string checkProperty(std::string_view key, std::string_view value, Role role)
{
    if (key.rfind("test.mock.", 0) == 0)
        return "`" + std::string(key)
               + "` is a librdkafka test setting and is never accepted "
                 "from a pipeline file";
    if (in(kDangerous, key))
        return "`" + std::string(key)
               + "` is refused: it can run code or dump internals "
                 "(librdkafka loads libraries or runs commands with it); set it only in an "
                 "operator-owned client config, never in pipeline JSON";
    if (in(kEngineOwned, key))
        return "`" + std::string(key)
               + "` is set by the node (bootstrap_servers, group_id, "
                 "delivery) and cannot be overridden in properties";
    const auto &allowed = allowedKeys(role);
    if (!std::binary_search(allowed.begin(), allowed.end(), std::string(key))) {
        bool otherRole = std::binary_search(
            allowedKeys(role == Role::Consumer ? Role::Producer : Role::Consumer).begin(),
            allowedKeys(role == Role::Consumer ? Role::Producer : Role::Consumer).end(),
            std::string(key));
        if (otherRole)
            return "`" + std::string(key) + "` is a "
                   + (role == Role::Consumer ? "producer" : "consumer")
                   + " setting; it does not apply to this node";
        std::string guess = closestMatch(key, allowed);
        return "`" + std::string(key) + "` is not an allowed Kafka property"
               + (guess.empty() ? "" : ": did you mean `" + guess + "`?")
               + " (see docs/reference/kafka.md for the allowlist)";
    }
    if (isSecretKey(key)) {
        if (!isSecretReference(value))
            return "`" + std::string(key)
                   + "` is a secret: give it as ${env:NAME} or "
                     "${file:/path}, never literally (the value was not echoed)";
        return {};
    }
    std::string v = lower(value);
    if (key == "enable.ssl.certificate.verification" && v != "true")
        return "`enable.ssl.certificate.verification` cannot be switched off from a pipeline "
               "file: certificate verification protects the connection (remove the property)";
    if (key == "ssl.endpoint.identification.algorithm" && v != "https")
        return "`ssl.endpoint.identification.algorithm` must stay `https`: `" + std::string(value)
               + "` switches off broker host name verification (remove the property)";
    return {};
}

std::vector<std::pair<std::string, std::string>> checkProperties(const Json &properties, Role role)
{
    std::vector<std::pair<std::string, std::string>> out;
    if (!properties.is_object())
        return out;
    for (auto it = properties.begin(); it != properties.end(); ++it) {
        if (!it.value().is_string())
            continue; // the param checker already reports non-string values
        std::string why = checkProperty(it.key(), it.value().get<std::string>(), role);
        if (!why.empty())
            out.emplace_back(it.key(), why);
    }
    return out;
}

std::string redact(std::string text, const std::vector<std::string> &secrets)
{
    for (const auto &s : secrets) {
        if (s.empty())
            continue;
        std::size_t pos = 0;
        while ((pos = text.find(s, pos)) != std::string::npos) {
            text.replace(pos, s.size(), "[redacted]");
            pos += 10;
        }
    }
    return text;
}

rd_kafka_conf_t *buildConf(const std::vector<ConfEntry> &engineSettings,
                           const Json &properties,
                           Role role,
                           const std::function<std::string(const std::string &)> &resolve,
                           const std::string &nodeId)
{
    char errstr[512];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    auto fail = [&](const std::string &msg) {
        rd_kafka_conf_destroy(conf);
        throw ConfigError(msg);
    };
    for (const auto &e : engineSettings)
        if (rd_kafka_conf_set(conf, e.key.c_str(), e.value.c_str(), errstr, sizeof errstr)
            != RD_KAFKA_CONF_OK)
            fail("node `" + nodeId + "`: Kafka setting `" + e.key + "`: " + errstr);
    if (!properties.is_object())
        return conf;
    for (auto it = properties.begin(); it != properties.end(); ++it) {
        const std::string &key = it.key();
        if (!it.value().is_string())
            fail("node `" + nodeId + "`: params.properties." + key + ": must be a string");
        std::string raw = it.value().get<std::string>();
        // Checked again here: a spec built by code never went through validate().
        std::string why = checkProperty(key, raw, role);
        if (!why.empty())
            fail("node `" + nodeId + "`: params.properties." + key + ": " + why);
        std::string value = resolve(raw);
        if (rd_kafka_conf_set(conf, key.c_str(), value.c_str(), errstr, sizeof errstr)
            != RD_KAFKA_CONF_OK) {
            std::string detail = isSecretKey(key)
                                     ? "librdkafka refused the value (not shown: secret)"
                                     : redact(errstr, {});
            fail("node `" + nodeId + "`: params.properties." + key + ": " + detail);
        }
    }
    return conf;
}

} // namespace tideline::kafka
