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

} // namespace tideline::kafka
