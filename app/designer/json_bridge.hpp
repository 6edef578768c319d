#pragma once
// Conversion between the engine's ordered JSON and Qt's QJsonValue for the inspector.
//
// QJsonObject sorts keys; pipeline files keep key order so that they diff cleanly. Converting
// back therefore takes the previous value as a template: known keys keep their old position,
// new keys follow the descriptor's field order.

#include <tideline/engine/catalog.hpp>

#include <QJsonValue>
#include <QString>

namespace tideline::designer {

QJsonValue toQt(const Json &value);
/// `previous` may be null; `desc` may be null (then integral numbers become integers).
Json fromQt(const QJsonValue &value, const Json &previous, const ParamDesc *desc);

inline QString qstr(const std::string &s)
{
    return QString::fromStdString(s);
}
inline std::string sstr(const QString &s)
{
    return s.toStdString();
}

} // namespace tideline::designer
