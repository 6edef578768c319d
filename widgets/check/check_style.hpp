#pragma once
// The pass/fail marker of a check, drawn (not a font glyph: ✓ and ✗ are missing from many
// fonts, a projector's included): a filled circle with a tick, a cross or a dot.

#include "check_types.hpp"

#include <QColor>
#include <QPixmap>

class QPainter;
class QRectF;

namespace tideline::widgets::check {

QColor statusColor(SinkCheckStatus status);
/// "ok", "FAIL", "no expected file", "written", "error".
QString statusWord(SinkCheckStatus status);
/// Paints the marker into `r` (a square).
void paintMarker(QPainter &p, const QRectF &r, SinkCheckStatus status);
/// The marker as a pixmap of `size` logical pixels (for lists and labels).
QPixmap markerPixmap(SinkCheckStatus status, int size, qreal devicePixelRatio = 1.0);
/// One line about a sink: "8 rows equal", "1 missing · 1 extra · 1 different".
QString sinkSummary(const SinkCheck &sink);

} // namespace tideline::widgets::check
