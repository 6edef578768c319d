#include "ui_scale.hpp"

#include <QApplication>
#include <QWidget>

#include <algorithm>

namespace tideline::widgets {

UiScale &UiScale::instance()
{
    static UiScale *scale = new UiScale; // lives as long as the process (no static QObject dtor)
    return *scale;
}

void UiScale::setFactor(double factor)
{
    factor = std::clamp(factor, kMin, kMax);
    if (qFuzzyCompare(factor, m_factor))
        return;
    const double previous = m_factor;
    m_factor = factor;
    Q_EMIT changed(factor, previous);
}

QFont relativeFont(double points, bool bold)
{
    // The unscaled application font is 10 pt (theme.cpp); sizes follow the scale.
    QFont f = QApplication::font();
    f.setPointSizeF((10 + points) * UiScale::factor());
    f.setBold(bold);
    return f;
}

void rescaleExplicitFonts(QWidget *root, double previous, double factor)
{
    if (!root)
        return;
    static const char *kBase = "tidelineUnscaledPointSize";
    QList<QWidget *> widgets = root->findChildren<QWidget *>();
    widgets.prepend(root);
    for (QWidget *w : widgets) {
        if (!w->testAttribute(Qt::WA_SetFont) || w->font().pointSizeF() <= 0)
            continue;
        // A font set at `previous` (style::font() scales what it returns) has this base size.
        bool known = false;
        double base = w->property(kBase).toDouble(&known);
        if (!known || base <= 0)
            base = w->font().pointSizeF() / previous;
        w->setProperty(kBase, base);
        QFont f = w->font();
        f.setPointSizeF(base * factor);
        w->setFont(f);
    }
}

} // namespace tideline::widgets
