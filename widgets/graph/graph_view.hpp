#pragma once
// The canvas view: wheel zoom around the cursor, pan with the middle button or Space+drag,
// rubber-band selection, fit-to-view, a cheap grid background, and drops from the palette.

#include <QGraphicsView>

namespace tideline::widgets {

class GraphView final : public QGraphicsView
{
    Q_OBJECT
public:
    /// MIME type of a palette drag; the payload is the node kind as UTF-8.
    static constexpr const char *kNodeKindMime = "application/x-tideline-node-kind";

    explicit GraphView(QWidget *parent = nullptr);

    qreal zoom() const;
    void setZoom(qreal factor);
    void zoomBy(qreal factor);
    /// Fits every visible item — nodes, connections and any labels drawn next to them (the
    /// live figures) — with a margin. The view then stays fitted (also when it is resized)
    /// until the user zooms or pans.
    void fitToContents();
    /// True while the view shows what the last fitToContents() fitted (no zoom or pan since).
    bool isFitted() const { return m_fitted; }
    /// The scene rectangle fitToContents() fits (before margins).
    QRectF contentsRect() const;
    /// The presentation scale: what 100 % means (fitting never zooms past it), applied to the
    /// current zoom when it changes.
    void setPresentationScale(qreal scale);
    qreal presentationScale() const { return m_presentation; }

Q_SIGNALS:
    void kindDropped(const QString &kind, const QPointF &scenePos);
    void zoomChanged(qreal zoom);

protected:
    void drawBackground(QPainter *painter, const QRectF &rect) override;
    void wheelEvent(QWheelEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;
    void keyReleaseEvent(QKeyEvent *event) override;
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dragMoveEvent(QDragMoveEvent *event) override;
    void dropEvent(QDropEvent *event) override;

private:
    bool m_panning = false;
    bool m_spaceHeld = false;
    bool m_fitted = false;
    bool m_refitting = false;
    qreal m_presentation = 1.0;
    QPoint m_panLast;
};

} // namespace tideline::widgets
