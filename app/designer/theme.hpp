#pragma once

class QApplication;

namespace tideline::designer {

/// Fusion with a dark neutral palette plus resources/style/tideline.qss (projector-readable:
/// high contrast text, 10pt base font, no pure black or pure white surfaces).
void applyTheme(QApplication &app);

} // namespace tideline::designer

#include <QIcon>

namespace tideline::designer {

/// The application icon, drawn (no SVG module or image tools needed): a wave over a baseline.
QIcon appIcon();

} // namespace tideline::designer
