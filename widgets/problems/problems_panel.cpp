#include "problems_panel.hpp"

#include "../graph/graph_style.hpp"

#include <QHeaderView>
#include <QLabel>
#include <QPainter>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace tideline::widgets {

namespace {

QIcon dot(const QColor &c)
{
    QPixmap pm(14, 14);
    pm.fill(Qt::transparent);
    QPainter p(&pm);
    p.setRenderHint(QPainter::Antialiasing);
    p.setPen(Qt::NoPen);
    p.setBrush(c);
    p.drawEllipse(QRectF(2, 2, 10, 10));
    return QIcon(pm);
}

} // namespace

ProblemsPanel::ProblemsPanel(QWidget *parent)
    : QWidget(parent)
    , m_list(new QTreeWidget(this))
    , m_summary(new QLabel(this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 4, 6, 6);
    layout->setSpacing(4);
    m_summary->setObjectName(QStringLiteral("problemsSummary"));
    layout->addWidget(m_summary);
    layout->addWidget(m_list);
    m_list->setObjectName(QStringLiteral("problemsList"));
    m_list->setColumnCount(3);
    m_list->setHeaderLabels({tr("Node"), tr("Problem"), tr("Where")});
    m_list->setRootIsDecorated(false);
    m_list->setUniformRowHeights(true);
    m_list->setAlternatingRowColors(true);
    m_list->header()->setStretchLastSection(false);
    m_list->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_list->header()->setSectionResizeMode(1, QHeaderView::Stretch);
    m_list->header()->setSectionResizeMode(2, QHeaderView::ResizeToContents);
    auto activate = [this](QTreeWidgetItem *item) {
        const int i = item->data(0, Qt::UserRole).toInt();
        if (i >= 0 && i < m_problems.size())
            Q_EMIT problemActivated(m_problems[i].nodeId, m_problems[i].param);
    };
    connect(m_list, &QTreeWidget::itemClicked, this, activate);
    connect(m_list, &QTreeWidget::itemActivated, this, activate);
    setProblems({});
}

int ProblemsPanel::errorCount() const
{
    return int(std::count_if(m_problems.begin(), m_problems.end(),
                             [](const Problem &p) { return p.error; }));
}

int ProblemsPanel::warningCount() const
{
    return int(m_problems.size()) - errorCount();
}

void ProblemsPanel::setProblems(const QList<Problem> &problems)
{
    m_problems = problems;
    m_list->clear();
    static const QIcon errorIcon = dot(style::errorColor());
    static const QIcon warningIcon = dot(style::warningColor());
    QList<QTreeWidgetItem *> items;
    for (int i = 0; i < problems.size(); ++i) {
        const auto &p = problems[i];
        auto *item = new QTreeWidgetItem(
            {p.nodeId.isEmpty() ? tr("(pipeline)") : p.nodeId, p.message, p.path});
        item->setIcon(0, p.error ? errorIcon : warningIcon);
        item->setData(0, Qt::UserRole, i);
        item->setToolTip(1, p.message);
        items << item;
    }
    m_list->addTopLevelItems(items);
    const int e = errorCount();
    const int w = warningCount();
    if (e == 0 && w == 0)
        m_summary->setText(tr("No problems: the pipeline is valid."));
    else
        m_summary->setText((e == 1 ? tr("1 error") : tr("%1 errors").arg(e)) + QStringLiteral(", ")
                           + (w == 1 ? tr("1 warning") : tr("%1 warnings").arg(w)));
    Q_EMIT countsChanged(e, w);
}

} // namespace tideline::widgets
