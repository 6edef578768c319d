#pragma once
// How the live views print one JSON value of a record: strings as they are, whole numbers
// without ".0", literals, and objects/arrays as compact JSON. One place, so the timeline's
// tooltips and the output preview show a value the same way.

#include <QJsonValue>
#include <QString>

namespace tideline::live {

QString jsonValueText(const QJsonValue &v);

} // namespace tideline::live
