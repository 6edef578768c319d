#pragma once
// "Why is the watermark here?" for one node: every input / partition with its watermark, which
// one holds the minimum, which are idle and since when, and the rule that combines them.

#include "live_types.hpp"

#include <QWidget>

class QLabel;
class QTableWidget;

namespace tideline::live {

class WatermarkWhyPanel final : public QWidget
{
    Q_OBJECT
public:
    explicit WatermarkWhyPanel(QWidget *parent = nullptr);
    /// Shows `node` (nullptr: nothing selected). `info` gives params for the explanation.
    void showNode(const NodeFigures *node, const NodeInfo *info, qint64 nowMs);
    QTableWidget *table() const { return m_table; }
    QString explanation() const;
    /// Row index holding the minimum, -1 when none.
    int minimumRow() const { return m_minRow; }

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    QLabel *m_title;
    QLabel *m_explain;
    QTableWidget *m_table;
    int m_minRow = -1;
};

} // namespace tideline::live
