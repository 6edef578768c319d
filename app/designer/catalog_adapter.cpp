#include "catalog_adapter.hpp"

#include "json_bridge.hpp"

#include <QDir>
#include <QObject>
#include <QRegularExpression>

namespace tideline::designer {

namespace {

widgets::FieldType fieldType(ParamType t)
{
    switch (t) {
    case ParamType::Int:
        return widgets::FieldType::Int;
    case ParamType::Number:
        return widgets::FieldType::Number;
    case ParamType::Bool:
        return widgets::FieldType::Bool;
    case ParamType::String:
        return widgets::FieldType::String;
    case ParamType::Enum:
        return widgets::FieldType::Enum;
    case ParamType::Path:
        return widgets::FieldType::Path;
    case ParamType::Expr:
        return widgets::FieldType::Expr;
    case ParamType::StringList:
        return widgets::FieldType::StringList;
    case ParamType::ExprMap:
        return widgets::FieldType::ExprMap;
    case ParamType::Object:
        return widgets::FieldType::Object;
    case ParamType::ObjectList:
        return widgets::FieldType::ObjectList;
    case ParamType::StringMap:
        return widgets::FieldType::StringMap;
    }
    return widgets::FieldType::String;
}

} // namespace

QList<widgets::PaletteEntry> paletteEntries()
{
    QList<widgets::PaletteEntry> out;
    for (const auto &k : nodeKinds())
        out.append({qstr(k.kind), qstr(k.displayName), qstr(k.category), qstr(k.help)});
    return out;
}

widgets::FieldDescriptor fieldDescriptor(const ParamDesc &d)
{
    widgets::FieldDescriptor f;
    f.name = qstr(d.name);
    f.type = fieldType(d.type);
    f.required = d.required;
    f.defaultValue = toQt(d.defaultValue);
    f.min = d.min;
    f.max = d.max;
    for (const auto &c : d.choices)
        f.choices << qstr(c);
    f.help = qstr(d.help);
    f.secret = d.secret;
    for (const auto &sub : d.fields)
        f.fields << fieldDescriptor(sub);
    return f;
}

QList<widgets::FieldDescriptor> fieldDescriptors(const NodeKind &kind)
{
    QList<widgets::FieldDescriptor> out;
    for (const auto &p : kind.params)
        out << fieldDescriptor(p);
    // A window shows the sizes its type uses (the engine warns about the others: "ignored by
    // a tumbling window"); one set anyway stays visible so that it can be removed.
    if (kind.kind == "window")
        for (auto &f : out) {
            QStringList types;
            if (f.name == QLatin1String("size_ms"))
                types = {QStringLiteral("tumbling"), QStringLiteral("sliding")};
            else if (f.name == QLatin1String("slide_ms"))
                types = {QStringLiteral("sliding")};
            else if (f.name == QLatin1String("gap_ms"))
                types = {QStringLiteral("session")};
            if (!types.isEmpty()) {
                f.shownWhenField = QStringLiteral("type");
                f.shownWhenValues = types;
            }
        }
    return out;
}

widgets::PortInfo portInfo(const PortDesc &port)
{
    widgets::PortRole role = widgets::PortRole::Data;
    if (port.role == PortRole::Late)
        role = widgets::PortRole::Late;
    else if (port.role == PortRole::Errors)
        role = widgets::PortRole::Errors;
    return {qstr(port.name), role, port.multi};
}

widgets::Problem problem(const Diagnostic &d)
{
    widgets::Problem p;
    p.error = d.isError();
    p.nodeId = qstr(d.nodeId);
    p.param = qstr(d.param);
    p.path = qstr(d.path);
    // File-level settings problems name their setting, so activating one opens the settings.
    if (d.nodeId.empty() && d.param.empty() && d.path.rfind("settings", 0) == 0)
        p.param = p.path;
    p.message = qstr(d.message);
    return p;
}

QList<widgets::Problem> problems(const std::vector<Diagnostic> &diagnostics)
{
    QList<widgets::Problem> out;
    out.reserve(qsizetype(diagnostics.size()));
    for (const auto &d : diagnostics)
        out << problem(d);
    return out;
}

NodeProblems nodeProblems(const std::vector<Diagnostic> &diagnostics, const QString &nodeId)
{
    NodeProblems out;
    const std::string id = sstr(nodeId);
    for (const auto &d : diagnostics) {
        if (d.nodeId != id)
            continue;
        const QString msg = (d.isError() ? QString() : QObject::tr("warning: ")) + qstr(d.message);
        if (d.param.empty()) {
            out.node += (out.node.isEmpty() ? QString() : QStringLiteral("\n")) + msg;
            continue;
        }
        // "disorder.max_delay_ms" / "aggregates[0].field": the top-level field owns it; the
        // rest of the path prefixes the message so nested editors can route it.
        const QString param = qstr(d.param);
        const int cut = int(param.indexOf(QRegularExpression(QStringLiteral("[.\\[]"))));
        const QString field = cut < 0 ? param : param.left(cut);
        QString rest = cut < 0 ? QString() : param.mid(cut);
        if (rest.startsWith('.'))
            rest.remove(0, 1);
        const QString text = rest.isEmpty() ? msg : rest + QStringLiteral(": ") + msg;
        if (!out.byField.contains(field))
            out.byField.insert(field, text);
    }
    return out;
}

QString nodeSummary(const NodeSpec &node, const NodeKind *kind)
{
    if (!kind || !node.params.is_object())
        return {};
    auto scalar = [](const Json &v) -> QString {
        if (v.is_string())
            return qstr(v.get<std::string>());
        if (v.is_number() || v.is_boolean())
            return qstr(v.dump());
        if (v.is_array() && !v.empty() && v.size() <= 3) {
            QStringList parts;
            for (const auto &e : v)
                if (e.is_string())
                    parts << qstr(e.get<std::string>());
            return parts.join(QStringLiteral(","));
        }
        return {};
    };
    QStringList parts;
    // Required params say what a node does; fill up with any other set scalars.
    for (int pass = 0; pass < 2 && parts.size() < 2; ++pass)
        for (const auto &d : kind->params) {
            if (parts.size() >= 2 || d.required != (pass == 0) || !node.params.contains(d.name))
                continue;
            const QString v = scalar(node.params[d.name]);
            if (v.isEmpty() || d.secret)
                continue;
            parts << (d.type == ParamType::Enum || d.type == ParamType::Expr
                              || d.type == ParamType::Path
                          ? v
                          : qstr(d.name) + QStringLiteral(" ") + v);
        }
    return parts.join(QStringLiteral(" · "));
}

QStringList relativePathParams(const PipelineSpec &spec)
{
    QStringList out;
    for (const auto &n : spec.nodes) {
        const NodeKind *kind = findNodeKind(n.kind);
        if (!kind || !n.params.is_object())
            continue;
        for (const auto &d : kind->params) {
            if (d.type != ParamType::Path || !n.params.contains(d.name)
                || !n.params[d.name].is_string())
                continue;
            const QString p = QString::fromStdString(n.params[d.name].get<std::string>());
            if (!p.isEmpty() && !QDir::isAbsolutePath(p) && !p.startsWith(QLatin1String("${")))
                out << QStringLiteral("%1.%2 = %3")
                           .arg(QString::fromStdString(n.id), QString::fromStdString(d.name), p);
        }
    }
    return out;
}

} // namespace tideline::designer
