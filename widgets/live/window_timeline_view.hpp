#pragma once
// The window timeline: event time runs left to right; one lane per key with the key's windows
// as bars (open, fired, updated, purged; sliding windows staircase, merged sessions show the
// bars they swallowed) and its records as dots (on time, late but accepted, too late); the
// node's watermark is a vertical line that moves, firings are marked at the window end.
// Wheel zooms the time axis; "follow" keeps the watermark in view.

#include <QWidget>

class QComboBox;
class QCheckBox;
class QLabel;

namespace tideline::live {

class WindowTimelineModel;

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
    QSize sizeHint() const override { return {900, 320}; }

protected:
    void paintEvent(QPaintEvent *event) override;
    void wheelEvent(QWheelEvent *event) override;

private:
    const WindowTimelineModel *m_model = nullptr;
    QString m_keyFilter;
    bool m_follow = true;
    qint64 m_span = 0;
    qint64 m_lastRight = 0;
    QString m_emptyNote;
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

private:
    const WindowTimelineModel *m_model = nullptr;
    QLabel *m_summary;
    QComboBox *m_keys;
    QCheckBox *m_follow;
    WindowTimelineCanvas *m_canvas;
    int m_keyCount = -1;
};

} // namespace tideline::live
