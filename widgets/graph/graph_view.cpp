#include "graph_view.hpp"

#include "graph_scene.hpp"
#include "graph_style.hpp"

#include <QGraphicsItem>
#include <QMimeData>
#include <QScrollBar>
#include <QWheelEvent>

#include <cmath>

namespace tideline::widgets {

namespace {
constexpr qreal kMinZoom = 0.1;
constexpr qreal kMaxZoom = 3.0;
} // namespace

GraphView::GraphView(QWidget *parent)
    : QGraphicsView(parent)
{
    setRenderHint(QPainter::Antialiasing, true);
    setRenderHint(QPainter::TextAntialiasing, true);
    setDragMode(RubberBandDrag);
    setRubberBandSelectionMode(Qt::IntersectsItemShape);
    setTransformationAnchor(AnchorUnderMouse);
    setResizeAnchor(AnchorViewCenter);
    setViewportUpdateMode(MinimalViewportUpdate);
    // The background is cached as one pixmap while panning; items cache themselves.
    setCacheMode(CacheBackground);
    setOptimizationFlags(DontSavePainterState | DontAdjustForAntialiasing);
    setAcceptDrops(true);
    setFrameShape(NoFrame);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setFocusPolicy(Qt::StrongFocus);
}

qreal GraphView::zoom() const
{
    return transform().m11();
}

void GraphView::setPresentationScale(qreal scale)
{
    scale = std::max<qreal>(scale, 0.1);
    if (qFuzzyCompare(scale, m_presentation))
        return;
    const qreal ratio = scale / m_presentation;
    m_presentation = scale;
    const bool fitted = m_fitted;
    setTransform(QTransform::fromScale(zoom() * ratio, zoom() * ratio));
    resetCachedContent();
    if (fitted)
        fitToContents();
    else
        Q_EMIT zoomChanged(zoom());
}

void GraphView::setZoom(qreal factor)
{
    m_fitted = false;
    factor = std::clamp(factor, kMinZoom, kMaxZoom * m_presentation);
    setTransform(QTransform::fromScale(factor, factor));
    resetCachedContent();
    Q_EMIT zoomChanged(factor);
}

void GraphView::zoomBy(qreal factor)
{
    const qreal target = std::clamp(zoom() * factor, kMinZoom, kMaxZoom * m_presentation);
    if (qFuzzyCompare(target, zoom()))
        return;
    m_fitted = false;
    scale(target / zoom(), target / zoom());
    resetCachedContent();
    Q_EMIT zoomChanged(target);
}

QRectF GraphView::contentsRect() const
{
    auto *s = qobject_cast<GraphScene *>(scene());
    QRectF r = s ? s->nodesBoundingRect() : QRectF();
    if (r.isEmpty())
        return r; // no nodes: nothing to fit, whatever else is left on the scene
    // Labels placed beside nodes (live figures under and to the right of them, a check's
    // marker pill, a child of its node) are part of what the user wants to see: fitting
    // nodes alone cut them off at the edges.
    if (scene())
        for (const QGraphicsItem *item : scene()->items())
            if (item->isVisible() && !item->parentItem()) {
                r |= item->sceneBoundingRect();
                if (!item->childItems().isEmpty())
                    r |= item->mapRectToScene(item->childrenBoundingRect());
            }
    return r;
}

void GraphView::fitToContents()
{
    QRectF r = contentsRect();
    if (r.isEmpty()) {
        setZoom(1.0);
        centerOn(0, 0);
        m_fitted = true;
        return;
    }
    r.adjust(-40, -40, 40, 40);
    fitInView(r, Qt::KeepAspectRatio);
    // Never blow a small graph up beyond 1:1 (at the presentation scale), text looks bloated.
    if (zoom() > m_presentation)
        setTransform(QTransform::fromScale(m_presentation, m_presentation));
    else if (zoom() < kMinZoom)
        setTransform(QTransform::fromScale(kMinZoom, kMinZoom));
    centerOn(r.center());
    resetCachedContent();
    m_fitted = true;
    Q_EMIT zoomChanged(zoom());
}

void GraphView::resizeEvent(QResizeEvent *event)
{
    QGraphicsView::resizeEvent(event);
    // A fitted view stays fitted when docks open or close around it.
    if (m_fitted && !m_refitting) {
        m_refitting = true;
        fitToContents();
        m_refitting = false;
    }
}

void GraphView::drawBackground(QPainter *painter, const QRectF &rect)
{
    painter->fillRect(rect, style::background());
    const qreal z = zoom();
    auto lines = [&](qreal step, const QColor &colour) {
        QVector<QLineF> ls;
        const qreal left = std::floor(rect.left() / step) * step;
        const qreal top = std::floor(rect.top() / step) * step;
        for (qreal x = left; x < rect.right(); x += step)
            ls.append(QLineF(x, rect.top(), x, rect.bottom()));
        for (qreal y = top; y < rect.bottom(); y += step)
            ls.append(QLineF(rect.left(), y, rect.right(), y));
        painter->setPen(QPen(colour, 0));
        painter->drawLines(ls);
    };
    if (z > 0.5)
        lines(style::kGrid, style::gridMinor());
    if (z > 0.15)
        lines(style::kGrid * 5, style::gridMajor());
}

void GraphView::wheelEvent(QWheelEvent *event)
{
    const int delta = event->angleDelta().y();
    if (delta == 0) {
        QGraphicsView::wheelEvent(event);
        return;
    }
    zoomBy(std::pow(1.0015, delta));
    event->accept();
}

void GraphView::mousePressEvent(QMouseEvent *event)
{
    if (event->button() == Qt::MiddleButton || (event->button() == Qt::LeftButton && m_spaceHeld)) {
        m_panning = true;
        m_fitted = false;
        m_panLast = event->position().toPoint();
        viewport()->setCursor(Qt::ClosedHandCursor);
        event->accept();
        return;
    }
    QGraphicsView::mousePressEvent(event);
}

void GraphView::mouseMoveEvent(QMouseEvent *event)
{
    if (m_panning) {
        const QPoint p = event->position().toPoint();
        const QPoint d = p - m_panLast;
        m_panLast = p;
        // Scroll bars are hidden but still drive the view; translate via them so that the
        // transformation anchor logic stays consistent.
        horizontalScrollBar()->setValue(horizontalScrollBar()->value() - d.x());
        verticalScrollBar()->setValue(verticalScrollBar()->value() - d.y());
        event->accept();
        return;
    }
    QGraphicsView::mouseMoveEvent(event);
}

void GraphView::mouseReleaseEvent(QMouseEvent *event)
{
    if (m_panning) {
        m_panning = false;
        viewport()->setCursor(m_spaceHeld ? Qt::OpenHandCursor : Qt::ArrowCursor);
        event->accept();
        return;
    }
    QGraphicsView::mouseReleaseEvent(event);
}

void GraphView::keyPressEvent(QKeyEvent *event)
{
    if (event->key() == Qt::Key_Space && !event->isAutoRepeat()) {
        m_spaceHeld = true;
        viewport()->setCursor(Qt::OpenHandCursor);
        event->accept();
        return;
    }
    QGraphicsView::keyPressEvent(event);
}

void GraphView::keyReleaseEvent(QKeyEvent *event)
{
    if (event->key() == Qt::Key_Space && !event->isAutoRepeat()) {
        m_spaceHeld = false;
        viewport()->setCursor(Qt::ArrowCursor);
        event->accept();
        return;
    }
    QGraphicsView::keyReleaseEvent(event);
}

void GraphView::dragEnterEvent(QDragEnterEvent *event)
{
    if (event->mimeData()->hasFormat(kNodeKindMime))
        event->acceptProposedAction();
    else
        QGraphicsView::dragEnterEvent(event);
}

void GraphView::dragMoveEvent(QDragMoveEvent *event)
{
    if (event->mimeData()->hasFormat(kNodeKindMime))
        event->acceptProposedAction();
    else
        QGraphicsView::dragMoveEvent(event);
}

void GraphView::dropEvent(QDropEvent *event)
{
    if (!event->mimeData()->hasFormat(kNodeKindMime)) {
        QGraphicsView::dropEvent(event);
        return;
    }
    const QString kind = QString::fromUtf8(event->mimeData()->data(kNodeKindMime));
    Q_EMIT kindDropped(kind, mapToScene(event->position().toPoint()));
    event->acceptProposedAction();
}

} // namespace tideline::widgets
