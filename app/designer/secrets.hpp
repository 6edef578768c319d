#pragma once
// "Export for server": secrets must travel as ${env:NAME} / ${file:/path} references, never
// as literals. Finds literal secrets (params marked secret in the catalog, and Kafka
// `properties` whose name or value looks like a password or key) and replaces them.

#include <tideline/engine/spec.hpp>

#include <QString>

namespace tideline::designer {

struct SecretFinding
{
    std::string nodeId;
    std::string param;   ///< "properties" or the secret param
    std::string key;     ///< the property name inside `properties`, or ""
    std::string envName; ///< suggested variable, e.g. ORDERS_SASL_PASSWORD
    QString where() const;
};

bool isSecretReference(const std::string &value);
/// True for property names like sasl.password, ssl.key.password, *.secret, *token*.
bool looksLikeSecretName(const std::string &name);
std::vector<SecretFinding> findLiteralSecrets(const PipelineSpec &spec);
/// A copy of `spec` with each finding replaced by ${env:<envName>}.
PipelineSpec replaceSecrets(PipelineSpec spec, const std::vector<SecretFinding> &findings);
/// The command line a server runs: tideline-run '/abs/path.json'.
QString runCommand(const QString &pipelinePath);

} // namespace tideline::designer

namespace tideline::designer {

/// Writes `spec` for a server with `findings` replaced by ${env:...}; refuses (returns false
/// with a reason) when a literal secret would remain.
bool exportForServer(const PipelineSpec &spec,
                     const std::vector<SecretFinding> &findings,
                     const QString &path,
                     QString *error);

} // namespace tideline::designer
