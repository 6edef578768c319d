#pragma once
// librdkafka settings from pipeline JSON: an allowlist, secret references and redaction.
//
// Why: several librdkafka settings run code (sasl.kerberos.kinit.cmd is a shell command,
// plugin.library.paths and ssl.engine.location dlopen a library) and some switch off TLS
// verification. A pipeline file may come from anyone, so nothing from it reaches
// rd_kafka_conf_set unless it is on the allowlist below. Secrets (passwords, private keys)
// are accepted only as ${env:NAME} / ${file:/path} references and their values never appear
// in a message this module produces.

#include <tideline/engine/spec.hpp>

#include <librdkafka/rdkafka.h>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace tideline::kafka {

enum class Role { Consumer, Producer };

/// Why `key` = `value` may not come from pipeline JSON, or "" when it may. `role` decides
/// which client-specific keys are accepted. Never echoes the value of a secret key.
std::string checkProperty(std::string_view key, std::string_view value, Role role);

/// True for keys whose values are secrets (must be references; redacted everywhere).
bool isSecretKey(std::string_view key);
/// True when the whole value is one ${env:NAME} or ${file:/path} reference.
bool isSecretReference(std::string_view value);

/// Every problem of a `properties` object, as (key, message) pairs, for validation.
std::vector<std::pair<std::string, std::string>> checkProperties(const Json &properties, Role role);

/// Accepted keys, sorted (for "did you mean" and the reference page).
const std::vector<std::string> &allowedKeys(Role role);

/// Builds a conf: engine-owned settings first, then user properties (resolved through
/// `resolve`). Throws ConfigError naming the key (never a secret's value) when librdkafka
/// refuses a setting. The caller owns the returned conf.
struct ConfEntry
{
    std::string key;
    std::string value;
};
rd_kafka_conf_t *buildConf(const std::vector<ConfEntry> &engineSettings,
                           const Json &properties,
                           Role role,
                           const std::function<std::string(const std::string &)> &resolve,
                           const std::string &nodeId);

/// Replaces every occurrence of the given secret values in `text` by "[redacted]".
std::string redact(std::string text, const std::vector<std::string> &secrets);

/// What source.kafka / sink.kafka set themselves, before their properties (shared by open()
/// and validation, so both check the same client). An empty transactionalId: not
/// transactional.
std::vector<ConfEntry>
consumerSettings(const std::string &bootstrap, const std::string &group, const std::string &nodeId);
std::vector<ConfEntry> producerSettings(const std::string &bootstrap,
                                        const std::string &nodeId,
                                        const std::string &transactionalId);

/// A setting librdkafka refuses: the param it came from ("properties.fetch.max.bytes",
/// "properties" for how several fit together, "" for one the node sets) and why. An empty
/// message: no problem.
struct ConfProblem
{
    std::string param;
    std::string message;
};

/// For validation: would librdkafka create a client from these settings? Applies them as
/// buildConf() does, without bootstrap.servers, and creates a client that never connects. A
/// reference that resolves here gives its value; one that does not is a placeholder for a
/// secret and is left out otherwise.
ConfProblem
checkClientConf(const std::vector<ConfEntry> &engineSettings, const Json &properties, Role role);

/// Routes the client's log lines to the handler of client_log.hpp, when one is installed
/// (otherwise librdkafka keeps printing to stderr). kafka_log.cpp.
void installLogCallback(rd_kafka_conf_t *conf);

} // namespace tideline::kafka
