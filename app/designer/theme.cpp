#include "theme.hpp"

#include <QApplication>
#include <QFile>
#include <QFont>
#include <QPalette>
#include <QStyleFactory>

// Q_INIT_RESOURCE declares a global function: it must be used outside any namespace. Calling
// it keeps the resource object of this static library from being dropped by the linker.
static void initTidelineResources()
{
    Q_INIT_RESOURCE(tideline);
}

namespace tideline::designer {

void applyTheme(QApplication &app)
{
    initTidelineResources();
    app.setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    QPalette p;
    const QColor window(0x26, 0x29, 0x2e), base(0x1e, 0x20, 0x24), text(0xe6, 0xe8, 0xeb);
    const QColor button(0x32, 0x36, 0x3c), highlight(0x3d, 0x7e, 0xc4);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, QColor(0x23, 0x26, 0x2a));
    p.setColor(QPalette::ToolTipBase, QColor(0x15, 0x17, 0x1a));
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::PlaceholderText, QColor(0x7d, 0x84, 0x8f));
    p.setColor(QPalette::Button, button);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, Qt::white);
    p.setColor(QPalette::Highlight, highlight);
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Link, QColor(0x6c, 0xb6, 0xf0));
    p.setColor(QPalette::Mid, QColor(0x3a, 0x3e, 0x45));
    p.setColor(QPalette::Dark, QColor(0x18, 0x1a, 0x1d));
    p.setColor(QPalette::Disabled, QPalette::Text, QColor(0x70, 0x76, 0x80));
    p.setColor(QPalette::Disabled, QPalette::WindowText, QColor(0x70, 0x76, 0x80));
    p.setColor(QPalette::Disabled, QPalette::ButtonText, QColor(0x70, 0x76, 0x80));
    app.setPalette(p);
    QFont f = app.font();
    f.setPointSizeF(10);
    app.setFont(f);
    QFile qss(QStringLiteral(":/tideline/style/tideline.qss"));
    if (qss.open(QIODevice::ReadOnly))
        app.setStyleSheet(QString::fromUtf8(qss.readAll()));
}

} // namespace tideline::designer

#include <QPainter>
#include <QPainterPath>

namespace tideline::designer {

QIcon appIcon()
{
    QIcon icon;
    for (int size : {16, 32, 64, 128, 256}) {
        QPixmap pm(size, size);
        pm.fill(Qt::transparent);
        QPainter p(&pm);
        p.setRenderHint(QPainter::Antialiasing);
        p.scale(size / 64.0, size / 64.0);
        p.setPen(Qt::NoPen);
        p.setBrush(QColor(0x2f, 0x7d, 0x5b));
        p.drawRoundedRect(QRectF(2, 2, 60, 60), 12, 12);
        QPainterPath wave(QPointF(9, 40));
        wave.cubicTo(QPointF(22, 10), QPointF(34, 52), QPointF(55, 22));
        p.setPen(QPen(QColor(0xec, 0xf0, 0xf1), 5, Qt::SolidLine, Qt::RoundCap));
        p.setBrush(Qt::NoBrush);
        p.drawPath(wave);
        p.setPen(QPen(QColor(0x4f, 0xb3, 0xe8), 3.5, Qt::SolidLine, Qt::RoundCap));
        p.drawLine(QPointF(10, 51), QPointF(54, 51));
        icon.addPixmap(pm);
    }
    return icon;
}

} // namespace tideline::designer
