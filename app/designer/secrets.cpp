#include "secrets.hpp"

#include "json_bridge.hpp"

#include <tideline/engine/catalog.hpp>

#include <QFileInfo>
#include <QObject>
#include <QRegularExpression>
#include <QSaveFile>

#include <set>

namespace tideline::designer {

QString SecretFinding::where() const
{
    return qstr(nodeId) + "." + qstr(param) + (key.empty() ? QString() : "[" + qstr(key) + "]");
}

bool isSecretReference(const std::string &value)
{
    static const QRegularExpression re(QStringLiteral(R"(^\$\{(env|file):[^}]+\}$)"));
    return re.match(qstr(value)).hasMatch();
}

bool looksLikeSecretName(const std::string &name)
{
    static const QRegularExpression re(
        QStringLiteral(R"((password|passwd|secret|token|credential|api[._-]?key|private[._-]?key|)"
                       R"(jaas\.config|oauthbearer\.config|(^|\.)key$|\.key\.pem$))"),
        QRegularExpression::CaseInsensitiveOption);
    return re.match(qstr(name)).hasMatch();
}

namespace {

bool looksLikeSecretValue(const std::string &value)
{
    // PEM blocks and long opaque tokens are secrets whatever the property is called.
    if (value.find("-----BEGIN") != std::string::npos)
        return true;
    static const QRegularExpression token(QStringLiteral(R"(^[A-Za-z0-9+/_=-]{32,}$)"));
    return token.match(qstr(value)).hasMatch();
}

std::string envName(const std::string &nodeId, const std::string &name)
{
    QString s = qstr(nodeId + "_" + name).toUpper();
    s.replace(QRegularExpression(QStringLiteral("[^A-Z0-9]+")), QStringLiteral("_"));
    return sstr(s);
}

} // namespace

std::vector<SecretFinding> findLiteralSecrets(const PipelineSpec &spec)
{
    std::vector<SecretFinding> out;
    // Ids like `a-b` and `a_b` (or `a.b` keys) upper-case to the same A_B_...: two secrets
    // would then share one variable. The second gets A_B_..._2, and so on.
    std::set<std::string> used;
    auto unique = [&used](std::string name) {
        if (used.insert(name).second)
            return name;
        for (int i = 2;; ++i)
            if (std::string n = name + "_" + std::to_string(i); used.insert(n).second)
                return n;
    };
    for (const auto &node : spec.nodes) {
        const NodeKind *kind = findNodeKind(node.kind);
        if (!node.params.is_object())
            continue;
        for (auto it = node.params.begin(); it != node.params.end(); ++it) {
            const ParamDesc *d = kind ? kind->param(it.key()) : nullptr;
            const Json &v = it.value();
            if (d && d->secret && v.is_string() && !isSecretReference(v.get<std::string>()))
                out.push_back({node.id, it.key(), "", unique(envName(node.id, it.key()))});
            const bool isMap = (d && d->type == ParamType::StringMap) || it.key() == "properties";
            if (!isMap || !v.is_object())
                continue;
            for (auto p = v.begin(); p != v.end(); ++p) {
                if (!p.value().is_string())
                    continue;
                const std::string value = p.value().get<std::string>();
                if (isSecretReference(value))
                    continue;
                if (looksLikeSecretName(p.key()) || looksLikeSecretValue(value))
                    out.push_back({node.id, it.key(), p.key(), unique(envName(node.id, p.key()))});
            }
        }
    }
    return out;
}

PipelineSpec replaceSecrets(PipelineSpec spec, const std::vector<SecretFinding> &findings)
{
    for (const auto &f : findings) {
        NodeSpec *n = spec.node(f.nodeId);
        if (!n || !n->params.contains(f.param))
            continue;
        const std::string ref = "${env:" + f.envName + "}";
        if (f.key.empty())
            n->params[f.param] = ref;
        else if (n->params[f.param].is_object())
            n->params[f.param][f.key] = ref;
    }
    return spec;
}

QString runCommand(const QString &pipelinePath)
{
    QString path = QFileInfo(pipelinePath).absoluteFilePath();
    // Single quotes survive any shell; only a quote itself needs escaping.
    if (path.contains(QRegularExpression(QStringLiteral(R"([^A-Za-z0-9_./-])"))))
        path = "'" + path.replace("'", "'\\''") + "'";
    return QStringLiteral("tideline-run ") + path;
}

} // namespace tideline::designer

namespace tideline::designer {

bool exportForServer(const PipelineSpec &spec,
                     const std::vector<SecretFinding> &findings,
                     const QString &path,
                     QString *error)
{
    const PipelineSpec out = replaceSecrets(spec, findings);
    const auto left = findLiteralSecrets(out);
    if (!left.empty()) {
        QStringList where;
        for (const auto &f : left)
            where << f.where();
        *error = QObject::tr("Literal secrets remain in %1; replace them with ${env:NAME}.")
                     .arg(where.join(QStringLiteral(", ")));
        return false;
    }
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly)) {
        *error = QObject::tr("Cannot write %1: %2").arg(path, f.errorString());
        return false;
    }
    const std::string text = writeSpec(out);
    f.write(text.data(), qint64(text.size()));
    if (!f.commit()) {
        *error = QObject::tr("Cannot write %1: %2").arg(path, f.errorString());
        return false;
    }
    return true;
}

} // namespace tideline::designer
