#pragma once
// Colours and fonts of the live views: dark like the canvas, big enough for a projector.

#include "ui_scale.hpp"

#include <QColor>
#include <QFont>

namespace tideline::live::style {

inline QColor background()
{
    return QColor(0x1e, 0x20, 0x24);
}
inline QColor panel()
{
    return QColor(0x26, 0x29, 0x2e);
}
inline QColor grid()
{
    return QColor(0x3a, 0x3f, 0x47);
}
inline QColor text()
{
    return QColor(0xec, 0xee, 0xf1);
}
inline QColor dim()
{
    return QColor(0xa8, 0xae, 0xb8);
}
inline QColor watermark()
{
    return QColor(0x4f, 0xb3, 0xe8);
}
inline QColor onTime()
{
    return QColor(0x5c, 0xd6, 0x8a);
}
inline QColor lateAccepted()
{
    return QColor(0xf0, 0xb4, 0x29);
}
inline QColor tooLate()
{
    return QColor(0xf2, 0x5c, 0x54);
}
inline QColor windowOpen()
{
    return QColor(0x4f, 0xb3, 0xe8);
}
inline QColor windowFired()
{
    return QColor(0x5c, 0xd6, 0x8a);
}
inline QColor windowUpdated()
{
    return QColor(0xc0, 0x84, 0xfc);
}
inline QColor windowPurged()
{
    return QColor(0x6b, 0x72, 0x80);
}

/// Distinct series colours (one per node, stable by node order).
inline QColor series(int i)
{
    static const QColor colours[]
        = {QColor(0x4f, 0xb3, 0xe8), QColor(0xf0, 0xb4, 0x29), QColor(0x5c, 0xd6, 0x8a),
           QColor(0xf2, 0x5c, 0x54), QColor(0xc0, 0x84, 0xfc), QColor(0x2d, 0xd4, 0xbf),
           QColor(0xfb, 0x92, 0x3c), QColor(0xe8, 0x79, 0xf9)};
    return colours[static_cast<unsigned>(i) % (sizeof(colours) / sizeof(colours[0]))];
}

/// `pointSize` at the presentation scale (widgets::UiScale).
inline QFont font(double pointSize = 11, bool bold = false)
{
    QFont f;
    f.setPointSizeF(pointSize * widgets::UiScale::factor());
    f.setBold(bold);
    return f;
}
/// A length in pixels at the presentation scale.
inline double px(double pixels)
{
    return pixels * widgets::UiScale::factor();
}

} // namespace tideline::live::style
