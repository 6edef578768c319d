#pragma once
// Colours and metrics of the canvas in one place (dark neutral theme, readable on a projector).

#include "graph_types.hpp"

#include <QColor>

namespace tideline::widgets::style {

inline constexpr qreal kNodeWidth = 180;
inline constexpr qreal kHeaderHeight = 46;
inline constexpr qreal kPortRowHeight = 24;
inline constexpr qreal kPortRadius = 6;
inline constexpr qreal kGrid = 20;

inline QColor background()
{
    return QColor(0x1e, 0x20, 0x24);
}
inline QColor gridMinor()
{
    return QColor(0x27, 0x2a, 0x2f);
}
inline QColor gridMajor()
{
    return QColor(0x31, 0x35, 0x3b);
}
inline QColor nodeBody()
{
    return QColor(0x2c, 0x30, 0x36);
}
inline QColor nodeBorder()
{
    return QColor(0x45, 0x4a, 0x52);
}
inline QColor nodeSelected()
{
    return QColor(0xf0, 0xb4, 0x29);
}
inline QColor textPrimary()
{
    return QColor(0xec, 0xee, 0xf1);
}
inline QColor textSecondary()
{
    return QColor(0xa8, 0xae, 0xb8);
}
inline QColor errorColor()
{
    return QColor(0xf2, 0x5c, 0x54);
}
inline QColor warningColor()
{
    return QColor(0xf0, 0xb4, 0x29);
}
inline QColor accepted()
{
    return QColor(0x5c, 0xd6, 0x8a);
}

inline QColor portColor(PortRole role)
{
    switch (role) {
    case PortRole::Data:
        return QColor(0x4f, 0xb3, 0xe8);
    case PortRole::Late:
        return QColor(0xe8, 0x9b, 0x3c);
    case PortRole::Errors:
        return QColor(0xe0, 0x5a, 0x6a);
    }
    return Qt::gray;
}

/// Header tint per palette category, so a graph reads at a glance.
inline QColor categoryColor(const QString &category)
{
    if (category.startsWith(QLatin1String("Source")))
        return QColor(0x2f, 0x7d, 0x5b);
    if (category.startsWith(QLatin1String("Time")))
        return QColor(0x7a, 0x5c, 0xb8);
    if (category.startsWith(QLatin1String("Transform")))
        return QColor(0x3a, 0x6e, 0xa5);
    if (category.startsWith(QLatin1String("Window")))
        return QColor(0xa5, 0x6a, 0x2a);
    if (category.startsWith(QLatin1String("Sink")))
        return QColor(0x8a, 0x3f, 0x5f);
    return QColor(0x55, 0x5b, 0x66);
}

} // namespace tideline::widgets::style
