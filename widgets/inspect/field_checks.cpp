#include "field_checks.hpp"

#include <QJsonArray>
#include <QJsonObject>
#include <QRegularExpression>

#include <cmath>

namespace tideline::widgets {

bool isReference(const QString &text)
{
    static const QRegularExpression re(QStringLiteral(R"(^\$\{(env|file):[^}]+\}$)"));
    return re.match(text.trimmed()).hasMatch();
}

QString fieldText(const FieldDescriptor &d, const QJsonValue &value)
{
    switch (value.type()) {
    case QJsonValue::Null:
    case QJsonValue::Undefined:
        return {};
    case QJsonValue::Bool:
        return value.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    case QJsonValue::Double: {
        const double v = value.toDouble();
        if (d.type == FieldType::Int || (std::floor(v) == v && std::abs(v) < 9.0e15))
            return QString::number(qint64(v));
        return QString::number(v, 'g', 15);
    }
    case QJsonValue::String:
        return value.toString();
    case QJsonValue::Array: {
        QStringList parts;
        const auto arr = value.toArray();
        for (const auto &v : arr)
            parts << (v.isString() ? v.toString() : fieldText(d, v));
        return parts.join(QStringLiteral(", "));
    }
    case QJsonValue::Object: {
        QStringList lines;
        const auto obj = value.toObject();
        for (auto it = obj.begin(); it != obj.end(); ++it)
            lines << it.key() + QStringLiteral(" = ") + it.value().toString();
        return lines.join('\n');
    }
    }
    return {};
}

QJsonValue parseFieldText(const FieldDescriptor &d, const QString &rawText, QString *error)
{
    const QString text = rawText.trimmed();
    if (text.isEmpty())
        return QJsonValue(QJsonValue::Null);
    switch (d.type) {
    case FieldType::Int: {
        bool ok = false;
        const qint64 v = text.toLongLong(&ok);
        if (!ok) {
            *error = QObject::tr("must be a whole number");
            return QJsonValue(QJsonValue::Undefined);
        }
        return QJsonValue(v);
    }
    case FieldType::Number: {
        bool ok = false;
        const double v = text.toDouble(&ok);
        if (!ok || !std::isfinite(v)) {
            *error = QObject::tr("must be a number");
            return QJsonValue(QJsonValue::Undefined);
        }
        return QJsonValue(v);
    }
    case FieldType::Bool:
        if (text == QLatin1String("true"))
            return true;
        if (text == QLatin1String("false"))
            return false;
        *error = QObject::tr("must be true or false");
        return QJsonValue(QJsonValue::Undefined);
    case FieldType::StringList: {
        QJsonArray arr;
        const auto parts = text.split(',');
        for (const auto &p : parts) {
            const QString item = p.trimmed();
            if (item.isEmpty()) {
                *error = QObject::tr("empty entry in the list");
                return QJsonValue(QJsonValue::Undefined);
            }
            arr.append(item);
        }
        return arr;
    }
    case FieldType::ExprMap:
    case FieldType::StringMap: {
        QJsonObject obj;
        const auto lines = text.split('\n');
        for (int i = 0; i < lines.size(); ++i) {
            const QString line = lines[i].trimmed();
            if (line.isEmpty())
                continue;
            const int eq = line.indexOf('=');
            if (eq <= 0) {
                *error = QObject::tr("line %1: write name = value").arg(i + 1);
                return QJsonValue(QJsonValue::Undefined);
            }
            obj.insert(line.left(eq).trimmed(), line.mid(eq + 1).trimmed());
        }
        return obj;
    }
    default:
        return text;
    }
}

QString checkFieldValue(const FieldDescriptor &d, const QJsonValue &value)
{
    if (value.isNull() || value.isUndefined())
        return d.required && d.defaultValue.isNull() ? QObject::tr("required") : QString();
    if (d.type == FieldType::Int || d.type == FieldType::Number) {
        const double v = value.toDouble();
        auto num = [](double x) {
            return QString::number(x, 'g', 15);
        };
        if (d.min && v < *d.min)
            return QObject::tr("must be ≥ %1").arg(num(*d.min));
        if (d.max && v > *d.max)
            return QObject::tr("must be ≤ %1").arg(num(*d.max));
    }
    if (d.type == FieldType::Enum && !d.choices.contains(value.toString()))
        return QObject::tr("must be one of: %1").arg(d.choices.join(QStringLiteral(", ")));
    if (d.secret && value.isString() && !isReference(value.toString()))
        return QObject::tr("a secret: write it as ${env:NAME} or ${file:/path}");
    return {};
}

} // namespace tideline::widgets
