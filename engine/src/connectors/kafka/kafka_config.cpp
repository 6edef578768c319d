#include "connectors/kafka/kafka_config.hpp"

#include "runtime/references.hpp"

#include <tideline/engine/catalog.hpp>
#include <tideline/engine/operator.hpp>

#include <algorithm>
#include <array>
#include <map>
#include <mutex>
#include <optional>

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
    "sasl.oauthbearer.client.id",
    "sasl.oauthbearer.client.secret",
    "sasl.oauthbearer.config",
    "sasl.oauthbearer.extensions",
    "sasl.oauthbearer.method",
    "sasl.oauthbearer.scope",
    "sasl.oauthbearer.token.endpoint.url",
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

/// The first element of an OpenSSL cipher list that enables a cipher without encryption or
/// without authentication (NULL, eNULL, aNULL, anonymous DH/ECDH, the COMPLEMENTOF* groups
/// that consist of them, a security level of 0), or "" when there is none. Elements that
/// remove ciphers (`!aNULL`, `-eNULL`) are what a careful list contains and pass.
std::string insecureCipher(std::string_view list)
{
    std::size_t pos = 0;
    while (pos <= list.size()) {
        std::size_t end = list.find_first_of(":, ;", pos);
        if (end == std::string_view::npos)
            end = list.size();
        std::string_view item = list.substr(pos, end - pos);
        pos = end + 1;
        if (item.empty() || item[0] == '!' || item[0] == '-')
            continue;
        if (item[0] == '+')
            item.remove_prefix(1);
        const std::string l = lower(item);
        if (l.rfind("@seclevel=0", 0) == 0)
            return std::string(item);
        // "RSA+NULL", "ECDHE-RSA-NULL-SHA", "eNULL", "aNULL", "COMPLEMENTOFALL", "ADH-AES..."
        std::size_t p = 0;
        while (p <= l.size()) {
            std::size_t q = l.find('+', p);
            if (q == std::string::npos)
                q = l.size();
            const std::string part = l.substr(p, q - p);
            p = q + 1;
            if (part.find("null") != std::string::npos || part == "complementofall"
                || part == "complementofdefault" || part == "adh" || part == "aecdh"
                || part.rfind("adh-", 0) == 0 || part.rfind("aecdh-", 0) == 0)
                return std::string(item);
        }
    }
    return {};
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
    if (key == "ssl.cipher.suites") {
        if (std::string bad = insecureCipher(value); !bad.empty())
            return "`ssl.cipher.suites` must not enable `" + bad
                   + "`: null and anonymous ciphers send data unencrypted or to an "
                     "unauthenticated broker (list only ciphers that encrypt and authenticate, "
                     "or remove the property)";
    }
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

namespace {

/// (key, text as written) -> the value to set, or nullopt to leave the property out.
using Resolver
    = std::function<std::optional<std::string>(const std::string &, const std::string &)>;

/// Engine settings, then properties, into `conf`. Returns why librdkafka (or the allowlist)
/// refused one (empty message: none).
ConfProblem applySettings(rd_kafka_conf_t *conf,
                          const std::vector<ConfEntry> &engineSettings,
                          const Json &properties,
                          Role role,
                          const Resolver &resolve)
{
    char errstr[512];
    for (const auto &e : engineSettings)
        if (rd_kafka_conf_set(conf, e.key.c_str(), e.value.c_str(), errstr, sizeof errstr)
            != RD_KAFKA_CONF_OK)
            return {"", "Kafka setting `" + e.key + "`: " + errstr};
    if (!properties.is_object())
        return {};
    for (auto it = properties.begin(); it != properties.end(); ++it) {
        const std::string &key = it.key();
        const std::string param = "properties." + key;
        if (!it.value().is_string())
            return {param, "must be a string"};
        std::string raw = it.value().get<std::string>();
        // Checked again here: a spec built by code never went through validate().
        std::string why = checkProperty(key, raw, role);
        if (!why.empty())
            return {param, why};
        std::optional<std::string> value = resolve(key, raw);
        if (!value)
            continue;
        if (rd_kafka_conf_set(conf, key.c_str(), value->c_str(), errstr, sizeof errstr)
            != RD_KAFKA_CONF_OK)
            return {param, isSecretKey(key) ? "librdkafka refused the value (not shown: secret)"
                                            : redact(errstr, {})};
    }
    return {};
}

void discardLog(const rd_kafka_t *, int, const char *, const char *) {}

} // namespace

rd_kafka_conf_t *buildConf(const std::vector<ConfEntry> &engineSettings,
                           const Json &properties,
                           Role role,
                           const std::function<std::string(const std::string &)> &resolve,
                           const std::string &nodeId)
{
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    installLogCallback(conf);
    ConfProblem problem = applySettings(conf, engineSettings, properties, role,
                                        [&](const std::string &, const std::string &raw) {
                                            return std::optional<std::string>(resolve(raw));
                                        });
    if (!problem.message.empty()) {
        rd_kafka_conf_destroy(conf);
        throw ConfigError("node `" + nodeId
                          + "`: " + (problem.param.empty() ? "" : "params." + problem.param + ": ")
                          + problem.message);
    }
    return conf;
}

std::vector<ConfEntry>
consumerSettings(const std::string &bootstrap, const std::string &group, const std::string &nodeId)
{
    return {
        {"bootstrap.servers", bootstrap},
        {"group.id", group},
        {"client.id", "tideline-" + nodeId},
        {"enable.auto.commit", "false"},
        {"enable.auto.offset.store", "false"},
        {"enable.partition.eof", "false"},
        {"auto.offset.reset", "error"},
        // Prefetch. librdkafka 2.0.2 compares queued.min.messages with the length of the
        // consumer queue that every assigned partition forwards into, i.e. with the total
        // over all partitions: at the default (100,000) or 200,000 the fetcher stopped
        // and resumed late, and a 32-partition topic was consumed 2-3x slower than with
        // 1,000,000 (tideline-kafka-bench). Memory stays bounded by
        // queued.max.messages.kbytes (64 MiB by default). Both can be overridden.
        {"queued.min.messages", "1000000"},
    };
}

std::vector<ConfEntry> producerSettings(const std::string &bootstrap,
                                        const std::string &nodeId,
                                        const std::string &transactionalId)
{
    std::vector<ConfEntry> engine = {
        {"bootstrap.servers", bootstrap},
        {"client.id", "tideline-" + nodeId},
        {"enable.idempotence", "true"},
        {"acks", "all"},
    };
    if (!transactionalId.empty())
        engine.push_back({"transactional.id", transactionalId});
    return engine;
}

ConfProblem
checkClientConf(const std::vector<ConfEntry> &engineSettings, const Json &properties, Role role)
{
    // No broker list: the client is created (which is where librdkafka checks how settings
    // fit together, e.g. fetch.max.bytes against message.max.bytes, and loads TLS files) but
    // never connects. A reference takes the value it has here when it resolves here; else a
    // secret stands in as a placeholder (librdkafka checks that a password is given, not
    // which) and any other property is left out (its value is known only where it runs).
    std::vector<ConfEntry> engine;
    std::string cacheKey = role == Role::Consumer ? "C" : "P";
    for (const auto &e : engineSettings)
        if (e.key != "bootstrap.servers") {
            engine.push_back(e);
            cacheKey += '\0' + e.key + '=' + e.value;
        }
    std::map<std::string, std::optional<std::string>> values;
    if (properties.is_object())
        for (auto it = properties.begin(); it != properties.end(); ++it) {
            if (!it.value().is_string())
                continue; // applySettings reports it
            const std::string raw = it.value().get<std::string>();
            std::optional<std::string> v = raw;
            if (refs::containsReference(raw)) {
                try {
                    v = refs::resolveReferences(raw);
                } catch (const ConfigError &) {
                    v = isSecretKey(it.key()) ? std::optional<std::string>("placeholder")
                                              : std::nullopt;
                }
            }
            values[it.key()] = v;
            cacheKey += '\0' + it.key() + (v ? '=' + *v : std::string("?"));
        }
    // The designer validates on every edit: remember recent answers (a client costs threads),
    // by a hash of the settings so that no resolved secret is kept.
    static std::mutex mutex;
    static std::map<std::size_t, ConfProblem> cache;
    const std::size_t cacheHash = std::hash<std::string>{}(cacheKey);
    cacheKey.assign(cacheKey.size(), '\0');
    {
        std::lock_guard lock(mutex);
        if (auto it = cache.find(cacheHash); it != cache.end())
            return it->second;
    }
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    rd_kafka_conf_set_log_cb(conf, &discardLog); // "no bootstrap.servers" is expected here
    ConfProblem problem
        = applySettings(conf, engine, properties, role,
                        [&](const std::string &key, const std::string &) { return values[key]; });
    if (problem.message.empty()) {
        char errstr[512] = "";
        rd_kafka_t *rk
            = rd_kafka_new(role == Role::Consumer ? RD_KAFKA_CONSUMER : RD_KAFKA_PRODUCER, conf,
                           errstr, sizeof errstr);
        if (rk) {
            rd_kafka_destroy_flags(rk, RD_KAFKA_DESTROY_F_NO_CONSUMER_CLOSE);
            conf = nullptr; // owned by the client
        } else {
            problem = {"properties", std::string("librdkafka refuses these settings: ") + errstr};
        }
    }
    if (conf)
        rd_kafka_conf_destroy(conf);
    std::lock_guard lock(mutex);
    if (cache.size() >= 256)
        cache.clear();
    cache.emplace(cacheHash, problem);
    return problem;
}

} // namespace tideline::kafka
