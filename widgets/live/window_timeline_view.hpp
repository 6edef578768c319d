#pragma once
// The window timeline: event time runs left to right; one lane per key with the key's windows
// as bars (open, fired, updated, purged; sliding windows staircase, merged sessions show the
// bars they swallowed) and its records as dots (on time, late but accepted, too late); the
// node's watermark is a vertical line that moves, firings are marked at the window end.
// Wheel zooms the time axis; "follow" keeps the watermark in view. Hovering a dot or a bar
// shows what it is (a record: its fields and the window it fell into, or for a late one the
// window it missed and when that closed for good; a window: its range, key, state and
// result); clicking one keeps that text under the timeline and asks for its trace (the record's
// path, or the pane's records: traceRequested, Trace a Record in the designer).

#include "window_timeline_model.hpp"

#include <QWidget>

class QComboBox;
class QCheckBox;
class QLabel;

namespace tideline::live {

class WindowTimelineCanvas final : public QWidget
{
    Q_OBJECT
public:
    explicit WindowTimelineCanvas(QWidget *parent = nullptr);
    void setModel(const WindowTimelineModel *model)
    {
        m_model = model;
        update();
    }
    void setKeyFilter(const QString &key)
    {
        m_keyFilter = key;
        update();
    }
    void setFollow(bool follow)
    {
        m_follow = follow;
        update();
    }
    /// Visible event-time span in ms (0 = automatic, a few windows wide).
    void setSpan(qint64 spanMs)
    {
        m_span = spanMs;
        update();
    }
    qint64 span() const;
    /// Shown instead of "No record has reached … yet" (e.g. where the records went instead).
    void setEmptyNote(const QString &note)
    {
        if (note == m_emptyNote)
            return;
        m_emptyNote = note;
        update();
    }
    QString emptyNote() const { return m_emptyNote; }
    QSize sizeHint() const override;

    /// What a point shows (tooltip text, plain), "" when nothing is there. Valid after a paint.
    QString describeAt(const QPointF &pos) const;
    /// Centres of the dots and bars drawn last (for tests and hit testing).
    QList<QPointF> dotCentres() const;
    QList<QRectF> barRects() const;
    /// The boxes of the W and newest-event labels drawn last (empty when not drawn).
    QRectF watermarkLabelRect() const { return m_wLabel; }
    QRectF newestLabelRect() const { return m_newestLabel; }
    /// Legend rows needed at the current width (the legend wraps instead of being cut).
    int legendRows() const { return m_legendRows; }

Q_SIGNALS:
    /// A dot or bar was clicked: what it is (the same text as its tooltip).
    void itemClicked(const QString &details);
    /// The dot or the bar that was clicked (after itemClicked).
    void dotClicked(const tideline::live::TimelineDot &dot);
    void windowClicked(const tideline::live::TimelineWindow &window);

protected:
    void paintEvent(QPaintEvent *event) override;
    void wheelEvent(QWheelEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    bool event(QEvent *event) override;

private:
    struct DotHit
    {
        QPointF centre;
        double radius = 0;
        TimelineDot dot;
    };
    struct BarHit
    {
        QRectF rect;
        TimelineWindow window;
    };
    const DotHit *dotAt(const QPointF &pos) const;
    const BarHit *barAt(const QPointF &pos) const;
    QString describeDot(const TimelineDot &d) const;
    QString describeWindow(const TimelineWindow &w) const;
    QString keyText(const QString &key) const;
    const WindowTimelineModel *m_model = nullptr;
    QString m_keyFilter;
    bool m_follow = true;
    qint64 m_span = 0;
    qint64 m_lastRight = 0;
    QString m_emptyNote;
    QList<DotHit> m_dotHits;
    QList<BarHit> m_barHits;
    QRectF m_wLabel, m_newestLabel;
    int m_legendRows = 1;
};

class WindowTimelineView final : public QWidget
{
    Q_OBJECT
public:
    explicit WindowTimelineView(QWidget *parent = nullptr);
    /// The model belongs to the caller; nullptr shows a hint to select a window node.
    void setModel(const WindowTimelineModel *model);
    const WindowTimelineModel *model() const { return m_model; }
    /// Call after the model changed (at most ~30 times a second).
    void refresh();
    WindowTimelineCanvas *canvas() const { return m_canvas; }
    QString summaryText() const;
    /// What was clicked last in the timeline ("" until something is).
    QString detailsText() const;
    /// What a click on a dot or a bar asks Trace a Record for (traceRequested's arguments):
    /// a dot, the record as it reached the node; a bar, the rows the node made for that pane
    /// (its window bounds and its key's fields, taken from a record of the key).
    struct TraceQuery
    {
        QString node;
        QString match; ///< JSON object
        bool made = false;
        QString label; ///< shown as the query
    };
    TraceQuery traceQueryFor(const TimelineDot &dot) const;
    TraceQuery traceQueryFor(const TimelineWindow &window) const;

Q_SIGNALS:
    /// A dot or a bar was clicked: where did that record go / what made that pane?
    void traceRequested(const tideline::live::WindowTimelineView::TraceQuery &query);

private:
    const WindowTimelineModel *m_model = nullptr;
    QLabel *m_summary;
    QComboBox *m_keys;
    QCheckBox *m_follow;
    WindowTimelineCanvas *m_canvas;
    QLabel *m_details;
    int m_keyCount = -1;
};

} // namespace tideline::live
