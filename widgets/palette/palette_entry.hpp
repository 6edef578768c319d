#pragma once

#include <QString>

namespace tideline::widgets {

/// One node kind as the palette shows it.
struct PaletteEntry
{
    QString kind;        ///< "window"
    QString displayName; ///< "Window"
    QString category;    ///< group header
    QString help;        ///< tooltip
};

} // namespace tideline::widgets
