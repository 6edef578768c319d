#pragma once
// The palette: every node kind grouped by category, filtered by a search box. Items can be
// dragged onto the canvas (GraphView::kNodeKindMime) or double-clicked / Enter-ed to add.

#include "palette_entry.hpp"

#include <QWidget>

class QLineEdit;
class QMimeData;
class QTreeWidget;
class QTreeWidgetItem;

namespace tideline::widgets {

class NodePalette final : public QWidget
{
    Q_OBJECT
public:
    explicit NodePalette(QWidget *parent = nullptr);

    void setEntries(const QList<PaletteEntry> &entries);
    void setFilter(const QString &text);

    QTreeWidget *tree() const { return m_tree; }
    QLineEdit *searchBox() const { return m_search; }
    /// The tree item of a kind (for tests and keyboard focus), or nullptr.
    QTreeWidgetItem *itemForKind(const QString &kind) const;
    /// The MIME payload a drag of this kind carries.
    static QMimeData *mimeDataForKind(const QString &kind);

Q_SIGNALS:
    void kindActivated(const QString &kind);

private:
    void applyFilter();

    QLineEdit *m_search;
    QTreeWidget *m_tree;
};

} // namespace tideline::widgets
