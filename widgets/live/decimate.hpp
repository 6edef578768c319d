#pragma once
// Min/max decimation: at most two points per horizontal pixel bucket (the bucket's lowest and
// highest, in x order), plus the very first and last points, so spikes and the final value
// survive while a long run still draws in constant time.

#include <QList>
#include <QPointF>

namespace tideline::live {

/// `points` sorted by x. Returns them unchanged when there are at most 2 × pixels.
QList<QPointF> decimate(const QList<QPointF> &points, int pixels);

} // namespace tideline::live
