#include "check_style.hpp"

#include "../graph/graph_style.hpp"

#include <QCoreApplication>
#include <QPainter>
#include <QPainterPath>

namespace tideline::widgets::check {

namespace {
QString tr(const char *text, const char *disambiguation = nullptr, int n = -1)
{
    return QCoreApplication::translate("tideline::widgets::CheckPanel", text, disambiguation, n);
}
} // namespace

QColor statusColor(SinkCheckStatus status)
{
    switch (status) {
    case SinkCheckStatus::Ok:
        return style::accepted();
    case SinkCheckStatus::Written:
        return QColor(0x4f, 0xb3, 0xe8);
    case SinkCheckStatus::Fail:
    case SinkCheckStatus::Missing:
    case SinkCheckStatus::Error:
        break;
    }
    return style::errorColor();
}

QString statusWord(SinkCheckStatus status)
{
    switch (status) {
    case SinkCheckStatus::Ok:
        return tr("ok");
    case SinkCheckStatus::Fail:
        return tr("FAIL");
    case SinkCheckStatus::Missing:
        return tr("no expected file");
    case SinkCheckStatus::Written:
        return tr("written");
    case SinkCheckStatus::Error:
        break;
    }
    return tr("error");
}

void paintMarker(QPainter &p, const QRectF &r, SinkCheckStatus status)
{
    p.save();
    p.setRenderHint(QPainter::Antialiasing);
    p.setPen(Qt::NoPen);
    p.setBrush(statusColor(status));
    p.drawEllipse(r);
    const qreal s = r.width();
    QPen pen(QColor(0x12, 0x14, 0x17), std::max<qreal>(1.5, s * 0.14), Qt::SolidLine, Qt::RoundCap,
             Qt::RoundJoin);
    p.setPen(pen);
    p.setBrush(Qt::NoBrush);
    auto at = [&r, s](qreal x, qreal y) {
        return QPointF(r.left() + x * s, r.top() + y * s);
    };
    if (status == SinkCheckStatus::Ok) {
        QPainterPath tick;
        tick.moveTo(at(0.27, 0.52));
        tick.lineTo(at(0.44, 0.69));
        tick.lineTo(at(0.74, 0.34));
        p.drawPath(tick);
    } else if (status == SinkCheckStatus::Written) {
        // An arrow down into a tray: "saved".
        p.drawLine(at(0.5, 0.24), at(0.5, 0.62));
        p.drawLine(at(0.33, 0.47), at(0.5, 0.64));
        p.drawLine(at(0.67, 0.47), at(0.5, 0.64));
        p.drawLine(at(0.28, 0.76), at(0.72, 0.76));
    } else if (status == SinkCheckStatus::Missing) {
        // A question of a file that is not there: a bar and a dot ("!").
        p.drawLine(at(0.5, 0.25), at(0.5, 0.56));
        p.drawPoint(at(0.5, 0.75));
    } else {
        p.drawLine(at(0.32, 0.32), at(0.68, 0.68));
        p.drawLine(at(0.68, 0.32), at(0.32, 0.68));
    }
    p.restore();
}

QPixmap markerPixmap(SinkCheckStatus status, int size, qreal devicePixelRatio)
{
    QPixmap pm(QSize(size, size) * devicePixelRatio);
    pm.setDevicePixelRatio(devicePixelRatio);
    pm.fill(Qt::transparent);
    QPainter p(&pm);
    paintMarker(p, QRectF(1, 1, size - 2, size - 2), status);
    return pm;
}

QString sinkSummary(const SinkCheck &sink)
{
    switch (sink.status) {
    case SinkCheckStatus::Ok:
        return tr("%n row(s) equal", nullptr, int(sink.actualRows));
    case SinkCheckStatus::Written:
        return tr("wrote %n row(s)", nullptr, int(sink.actualRows));
    case SinkCheckStatus::Missing:
        return tr("no expected file (%n row(s) in this run)", nullptr, int(sink.actualRows));
    case SinkCheckStatus::Error:
        return sink.error;
    case SinkCheckStatus::Fail:
        break;
    }
    if (sink.orderOnly)
        return tr("the same %n row(s) in another order", nullptr, int(sink.actualRows));
    QStringList parts;
    if (sink.missing)
        parts << tr("%1 missing").arg(sink.missing);
    if (sink.extra)
        parts << tr("%1 extra").arg(sink.extra);
    if (sink.different)
        parts << tr("%1 different").arg(sink.different);
    if (parts.isEmpty()) // only corrupt expected lines
        parts << tr("expected file unreadable");
    return parts.join(QStringLiteral(" · "));
}

} // namespace tideline::widgets::check
