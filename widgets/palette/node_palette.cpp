#include "node_palette.hpp"

#include "../graph/graph_style.hpp"
#include "../graph/graph_view.hpp"

#include <QHeaderView>
#include <QKeyEvent>
#include <QLineEdit>
#include <QMimeData>
#include <QPainter>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace tideline::widgets {

namespace {

constexpr int kKindRole = Qt::UserRole + 1;

/// QTreeWidget that drags the node kind instead of Qt's internal item format.
class PaletteTree final : public QTreeWidget
{
public:
    using QTreeWidget::QTreeWidget;

protected:
    QStringList mimeTypes() const override { return {GraphView::kNodeKindMime}; }
    QMimeData *mimeData(const QList<QTreeWidgetItem *> &items) const override
    {
        for (auto *item : items) {
            const QString kind = item->data(0, kKindRole).toString();
            if (!kind.isEmpty())
                return NodePalette::mimeDataForKind(kind);
        }
        return nullptr;
    }
};

QIcon swatch(const QColor &c)
{
    QPixmap pm(14, 14);
    pm.fill(Qt::transparent);
    QPainter p(&pm);
    p.setRenderHint(QPainter::Antialiasing);
    p.setPen(Qt::NoPen);
    p.setBrush(c);
    p.drawRoundedRect(QRectF(1, 1, 12, 12), 3, 3);
    return QIcon(pm);
}

} // namespace

NodePalette::NodePalette(QWidget *parent)
    : QWidget(parent)
    , m_search(new QLineEdit(this))
    , m_tree(new PaletteTree(this))
{
    m_search->setPlaceholderText(tr("Search nodes…"));
    m_search->setClearButtonEnabled(true);
    m_tree->setHeaderHidden(true);
    m_tree->setRootIsDecorated(false);
    m_tree->setIndentation(8);
    m_tree->setDragEnabled(true);
    m_tree->setDragDropMode(QAbstractItemView::DragOnly);
    m_tree->setSelectionMode(QAbstractItemView::SingleSelection);
    m_tree->setObjectName(QStringLiteral("paletteTree"));

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->setSpacing(6);
    layout->addWidget(m_search);
    layout->addWidget(m_tree);

    connect(m_search, &QLineEdit::textChanged, this, &NodePalette::applyFilter);
    connect(m_tree, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem *item) {
        const QString kind = item->data(0, kKindRole).toString();
        if (!kind.isEmpty())
            Q_EMIT kindActivated(kind);
    });
    // Enter in the search box adds the only (or first) match: fast keyboard workflow.
    connect(m_search, &QLineEdit::returnPressed, this, [this] {
        for (int i = 0; i < m_tree->topLevelItemCount(); ++i) {
            auto *group = m_tree->topLevelItem(i);
            for (int j = 0; j < group->childCount(); ++j)
                if (!group->child(j)->isHidden()) {
                    Q_EMIT kindActivated(group->child(j)->data(0, kKindRole).toString());
                    return;
                }
        }
    });
}

QMimeData *NodePalette::mimeDataForKind(const QString &kind)
{
    auto *mime = new QMimeData;
    mime->setData(GraphView::kNodeKindMime, kind.toUtf8());
    mime->setText(kind);
    return mime;
}

void NodePalette::setEntries(const QList<PaletteEntry> &entries)
{
    m_tree->clear();
    QHash<QString, QTreeWidgetItem *> groups;
    for (const auto &e : entries) {
        auto *group = groups.value(e.category);
        if (!group) {
            group = new QTreeWidgetItem(m_tree, {e.category});
            group->setFlags(Qt::ItemIsEnabled);
            QFont f = group->font(0);
            f.setBold(true);
            group->setFont(0, f);
            group->setForeground(0, style::textSecondary());
            group->setExpanded(true);
            groups.insert(e.category, group);
        }
        auto *item = new QTreeWidgetItem(group, {e.displayName});
        item->setData(0, kKindRole, e.kind);
        item->setToolTip(0,
                         QStringLiteral("<b>%1</b> <code>%2</code><br>%3")
                             .arg(e.displayName.toHtmlEscaped(), e.kind, e.help.toHtmlEscaped()));
        item->setIcon(0, swatch(style::categoryColor(e.category)));
        item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemIsDragEnabled);
    }
    m_tree->expandAll();
    applyFilter();
}

void NodePalette::setFilter(const QString &text)
{
    m_search->setText(text);
}

QTreeWidgetItem *NodePalette::itemForKind(const QString &kind) const
{
    for (int i = 0; i < m_tree->topLevelItemCount(); ++i) {
        auto *group = m_tree->topLevelItem(i);
        for (int j = 0; j < group->childCount(); ++j)
            if (group->child(j)->data(0, kKindRole).toString() == kind)
                return group->child(j);
    }
    return nullptr;
}

void NodePalette::applyFilter()
{
    const QString needle = m_search->text().trimmed();
    for (int i = 0; i < m_tree->topLevelItemCount(); ++i) {
        auto *group = m_tree->topLevelItem(i);
        int visible = 0;
        for (int j = 0; j < group->childCount(); ++j) {
            auto *item = group->child(j);
            const bool match
                = needle.isEmpty() || item->text(0).contains(needle, Qt::CaseInsensitive)
                  || item->data(0, kKindRole).toString().contains(needle, Qt::CaseInsensitive)
                  || group->text(0).contains(needle, Qt::CaseInsensitive);
            item->setHidden(!match);
            visible += match ? 1 : 0;
        }
        group->setHidden(visible == 0);
    }
}

} // namespace tideline::widgets
