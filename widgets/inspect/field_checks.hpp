#pragma once
// Checks a form can make while the user types, from the descriptor alone (type, range,
// choices, required). The engine's validation adds the rest after each commit.

#include "field_descriptor.hpp"

namespace tideline::widgets {

/// Parses editor text into a JSON value. On failure returns Undefined and sets *error.
/// Empty text gives Null (the param is removed, its default applies).
QJsonValue parseFieldText(const FieldDescriptor &d, const QString &text, QString *error);
/// Text shown in a line editor for a value.
QString fieldText(const FieldDescriptor &d, const QJsonValue &value);
/// "" when the value is acceptable for the descriptor, otherwise what is wrong.
QString checkFieldValue(const FieldDescriptor &d, const QJsonValue &value);
/// True for "${env:NAME}" and "${file:/path}".
bool isReference(const QString &text);

} // namespace tideline::widgets
