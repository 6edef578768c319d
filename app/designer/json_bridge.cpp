#include "json_bridge.hpp"

#include <QJsonArray>
#include <QJsonObject>

#include <cmath>

namespace tideline::designer {

QJsonValue toQt(const Json &value)
{
    switch (value.type()) {
    case Json::value_t::null:
        return QJsonValue(QJsonValue::Null);
    case Json::value_t::boolean:
        return value.get<bool>();
    case Json::value_t::number_integer:
        return QJsonValue(qint64(value.get<std::int64_t>()));
    case Json::value_t::number_unsigned:
        return QJsonValue(qint64(value.get<std::uint64_t>()));
    case Json::value_t::number_float:
        return value.get<double>();
    case Json::value_t::string:
        return qstr(value.get<std::string>());
    case Json::value_t::array: {
        QJsonArray arr;
        for (const auto &v : value)
            arr.append(toQt(v));
        return arr;
    }
    case Json::value_t::object: {
        QJsonObject obj;
        for (auto it = value.begin(); it != value.end(); ++it)
            obj.insert(qstr(it.key()), toQt(it.value()));
        return obj;
    }
    default:
        return QJsonValue(QJsonValue::Null);
    }
}

namespace {

const ParamDesc *field(const ParamDesc *desc, const std::string &name)
{
    if (!desc)
        return nullptr;
    for (const auto &f : desc->fields)
        if (f.name == name)
            return &f;
    return nullptr;
}

} // namespace

Json fromQt(const QJsonValue &value, const Json &previous, const ParamDesc *desc)
{
    switch (value.type()) {
    case QJsonValue::Null:
    case QJsonValue::Undefined:
        return nullptr;
    case QJsonValue::Bool:
        return value.toBool();
    case QJsonValue::Double: {
        const double v = value.toDouble();
        const bool integral = std::floor(v) == v && std::abs(v) < 9.0e15;
        // Integral numbers are written as integers ("1000", not "1000.0") unless the param is
        // a Number that previously held a fraction-typed value.
        if (integral && !(desc && desc->type == ParamType::Number && previous.is_number_float()))
            return std::int64_t(v);
        return v;
    }
    case QJsonValue::String:
        return sstr(value.toString());
    case QJsonValue::Array: {
        Json arr = Json::array();
        const QJsonArray a = value.toArray();
        for (qsizetype i = 0; i < a.size(); ++i) {
            const Json prev = previous.is_array() && std::size_t(i) < previous.size()
                                  ? previous[std::size_t(i)]
                                  : Json();
            // Elements of an ObjectList share the list's field descriptors.
            arr.push_back(fromQt(a.at(i), prev, desc));
        }
        return arr;
    }
    case QJsonValue::Object: {
        const QJsonObject obj = value.toObject();
        Json out = Json::object();
        auto put = [&](const std::string &key) {
            if (out.contains(key) || !obj.contains(qstr(key)))
                return;
            const Json prev
                = previous.is_object() && previous.contains(key) ? previous[key] : Json();
            out[key] = fromQt(obj.value(qstr(key)), prev, field(desc, key));
        };
        if (previous.is_object())
            for (auto it = previous.begin(); it != previous.end(); ++it)
                put(it.key());
        if (desc)
            for (const auto &f : desc->fields)
                put(f.name);
        for (auto it = obj.begin(); it != obj.end(); ++it)
            put(sstr(it.key()));
        return out;
    }
    }
    return nullptr;
}

} // namespace tideline::designer
