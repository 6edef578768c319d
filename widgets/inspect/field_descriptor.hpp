#pragma once
// Qt-side description of one editable field. The application fills these from the engine's
// parameter descriptors, so forms are generated, never hand-written per node kind.

#include <QJsonValue>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace tideline::widgets {

enum class FieldType {
    Int,
    Number,
    Bool,
    String,
    Enum,
    Path,
    Expr,
    StringList, ///< edited as comma-separated text
    ExprMap,    ///< {field: expression}, edited as "field = expression" lines
    Object,     ///< nested fields
    ObjectList, ///< list of objects with nested fields (window aggregates)
    StringMap,  ///< {name: string}, edited as "name = value" lines
};

struct FieldDescriptor
{
    QString name;
    FieldType type = FieldType::String;
    bool required = false;
    QJsonValue defaultValue; ///< Null when there is none
    std::optional<double> min;
    std::optional<double> max;
    QStringList choices;
    QString help;
    bool secret = false;
    QList<FieldDescriptor> fields; ///< Object / ObjectList
    /// Shown only when the field `shownWhenField` holds one of `shownWhenValues` (a window's
    /// gap_ms only for sessions), or when it has a value (so that a stray one can be seen
    /// and removed). Empty: always shown.
    QString shownWhenField;
    QStringList shownWhenValues;
};

} // namespace tideline::widgets
