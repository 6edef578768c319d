#pragma once
// One QtCharts chart of figures over processing time. Holds each series' full data and, on
// redraw(), hands QtCharts a copy decimated to about two points per pixel of plot width.
// The y axis is either plain numbers or event time (labels are UTC clock times).

#include <QChartView>
#include <QHash>
#include <QList>
#include <QPointF>

class QLineSeries;
class QXYSeries;
class QScatterSeries;
class QValueAxis;
class QCategoryAxis;
class QAbstractAxis;
class QGraphicsSimpleTextItem;

namespace tideline::live {

class TimeSeriesChart final : public QChartView
{
    Q_OBJECT
public:
    enum class YKind { Number, EventTime, Bytes };
    explicit TimeSeriesChart(const QString &title, YKind left, QWidget *parent = nullptr);

    /// A second (right) axis for some series, e.g. state bytes next to counts.
    void setRightAxis(const QString &title, YKind kind);
    void setLeftTitle(const QString &title);

    enum class Line { Solid, Dashed, Dotted, Points };
    /// Declares a series (idempotent); `right` puts it on the right axis.
    void ensureSeries(const QString &key,
                      const QString &name,
                      const QColor &colour,
                      Line line,
                      bool right = false);
    void setData(const QString &key, const QList<QPointF> &points);
    void removeAll();
    /// Text drawn over the plot when there is nothing to show ("no checkpoints configured").
    void setPlaceholder(const QString &text);

    /// Decimates and pushes data to QtCharts, then fits the axes.
    void redraw();

    QStringList seriesKeys() const { return m_order; }
    /// The points QtCharts currently draws for a series (after decimation).
    QList<QPointF> drawnPoints(const QString &key) const;
    int plotWidthPixels() const;

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    struct Entry
    {
        QXYSeries *series = nullptr;
        QList<QPointF> data;
        bool right = false;
    };
    QAbstractAxis *makeYAxis(YKind kind, const QString &title);
    void fitAxis(QAbstractAxis *axis, YKind kind, double lo, double hi);

    QChart *m_chart;
    QValueAxis *m_x;
    QAbstractAxis *m_left;
    QAbstractAxis *m_right = nullptr;
    YKind m_leftKind;
    YKind m_rightKind = YKind::Number;
    QHash<QString, Entry> m_series;
    QStringList m_order;
    QGraphicsSimpleTextItem *m_placeholder;
};

} // namespace tideline::live
