#pragma once
// The presentation scale (View > Presentation mode, Ctrl+= / Ctrl+−): one factor for every
// text the designer draws — fonts of docks and panels, the live views' painted text and
// layout, chart fonts, and the canvas' 100 %. Widgets that paint read factor(); widgets that
// keep fonts listen to changed().

#include <QFont>
#include <QObject>

class QWidget;

namespace tideline::widgets {

class UiScale final : public QObject
{
    Q_OBJECT
public:
    static UiScale &instance();
    static double factor() { return instance().m_factor; }
    /// Clamped to [kMin, kMax]; emits changed() when it changes.
    void setFactor(double factor);

    static constexpr double kMin = 1.0;
    static constexpr double kMax = 3.0;

Q_SIGNALS:
    void changed(double factor, double previous);

private:
    UiScale() = default;
    double m_factor = 1.0;
};

/// The application's font `points` larger or smaller (at the current scale), e.g. -1 for
/// help texts, +3 for titles.
QFont relativeFont(double points, bool bold = false);

/// Rescales the fonts set explicitly on `root` and its children (setFont(), not inherited
/// ones) from `previous` to `factor`; each widget remembers its unscaled size.
void rescaleExplicitFonts(QWidget *root, double previous, double factor);

} // namespace tideline::widgets
