#include "trace_view.hpp"

#include "live_style.hpp"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSplitter>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace tideline::live {

TraceView::TraceView(QWidget *parent)
    : QWidget(parent)
    , m_run(new QPushButton(tr("Run with Lineage")))
    , m_status(new QLabel)
    , m_query(new QLineEdit)
    , m_scope(new QComboBox)
    , m_note(new QLabel)
    , m_results(new QTreeWidget)
    , m_steps(new QListWidget)
{
    setObjectName(QStringLiteral("traceView"));
    m_run->setObjectName(QStringLiteral("traceRun"));
    m_run->setToolTip(tr("Run the pipeline on its bounded inputs, keeping every record's path"));
    m_query->setObjectName(QStringLiteral("traceQuery"));
    m_query->setPlaceholderText(tr("click_id == \"clk-0082\"  or any text of a record"));
    m_query->setClearButtonEnabled(true);
    m_scope->setObjectName(QStringLiteral("traceScope"));
    m_scope->addItem(tr("Input records"));
    m_scope->addItem(tr("Output rows"));
    m_status->setWordWrap(true);
    m_note->setObjectName(QStringLiteral("traceNote"));
    m_note->setWordWrap(true);
    m_note->setVisible(false);
    m_results->setObjectName(QStringLiteral("traceResults"));
    m_results->setHeaderLabels({tr("Record"), tr("JSON")});
    m_results->setRootIsDecorated(false);
    m_results->setUniformRowHeights(true);
    m_results->header()->setStretchLastSection(true);
    m_steps->setObjectName(QStringLiteral("traceSteps"));
    // Sentences are long ("no partner: no left record of its key with event time in [...]"):
    // a list wraps them in full to its width (a tree elides them).
    m_steps->setWordWrap(true);
    m_steps->setResizeMode(QListView::Adjust);
    m_steps->setSpacing(2);

    auto *top = new QHBoxLayout;
    top->addWidget(m_run);
    top->addWidget(m_status, 1);
    auto *search = new QHBoxLayout;
    search->addWidget(m_query, 1);
    search->addWidget(m_scope);
    auto *split = new QSplitter(Qt::Vertical);
    split->addWidget(m_results);
    split->addWidget(m_steps);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 2);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->addLayout(top);
    layout->addLayout(search);
    layout->addWidget(m_note);
    layout->addWidget(split, 1);

    connect(m_run, &QPushButton::clicked, this, &TraceView::runRequested);
    connect(m_query, &QLineEdit::returnPressed, this,
            [this] { Q_EMIT searchRequested(query(), searchesOutputs()); });
    connect(m_scope, &QComboBox::currentIndexChanged, this, [this] {
        if (!query().isEmpty())
            Q_EMIT searchRequested(query(), searchesOutputs());
    });
    connect(m_results, &QTreeWidget::currentItemChanged, this, &TraceView::onSelection);
    setStatus(tr("No traced run yet: run the pipeline with lineage to search its records."), false);
}

void TraceView::setStatus(const QString &text, bool ready)
{
    m_status->setText(text);
    m_query->setEnabled(ready);
    m_scope->setEnabled(ready);
}

void TraceView::setResults(const QList<TraceItem> &items, const QString &note)
{
    m_items = items;
    m_results->clear();
    for (const TraceItem &it : items) {
        auto *row = new QTreeWidgetItem({it.title, it.record});
        row->setToolTip(1, it.record);
        m_results->addTopLevelItem(row);
    }
    m_results->resizeColumnToContents(0);
    QString n = note;
    if (items.isEmpty() && !query().isEmpty())
        n = (n.isEmpty() ? QString() : n + QLatin1Char(' ')) + tr("No record matches.");
    m_note->setText(n);
    m_note->setVisible(!n.isEmpty());
    if (!items.isEmpty())
        m_results->setCurrentItem(m_results->topLevelItem(0));
    else
        onSelection();
}

void TraceView::search(const QString &text, bool outputs)
{
    m_query->setText(text);
    m_scope->setCurrentIndex(outputs ? 1 : 0);
    Q_EMIT searchRequested(text, outputs);
}

void TraceView::showQuery(const QString &text, bool outputs)
{
    const QSignalBlocker block(m_scope); // (a change of scope searches again)
    m_query->setText(text);
    m_query->setCursorPosition(0); // (its start says what it is)
    m_scope->setCurrentIndex(outputs ? 1 : 0);
}

QString TraceView::query() const
{
    return m_query->text().trimmed();
}

bool TraceView::searchesOutputs() const
{
    return m_scope->currentIndex() == 1;
}

int TraceView::resultCount() const
{
    return static_cast<int>(m_items.size());
}

QStringList TraceView::shownSteps() const
{
    QStringList lines;
    for (int i = 0; i < m_steps->count(); ++i)
        lines << m_steps->item(i)->text();
    return lines;
}

void TraceView::selectResult(int row)
{
    if (row >= 0 && row < m_results->topLevelItemCount())
        m_results->setCurrentItem(m_results->topLevelItem(row));
}

void TraceView::onSelection()
{
    m_steps->clear();
    const int row
        = m_results->currentItem() ? m_results->indexOfTopLevelItem(m_results->currentItem()) : -1;
    if (row < 0 || row >= m_items.size()) {
        Q_EMIT pathSelected({});
        return;
    }
    const TraceItem &it = m_items[row];
    for (const TraceStep &s : it.steps) {
        auto *line = new QListWidgetItem(s.node + QStringLiteral(": ") + s.what);
        line->setToolTip(s.what);
        if (s.kind == QLatin1String("late") || s.kind == QLatin1String("error")
            || s.kind == QLatin1String("duplicate") || s.kind == QLatin1String("join_unmatched")
            || s.kind.startsWith(QLatin1String("filter")) || s.kind == QLatin1String("null_key"))
            line->setForeground(style::lateAccepted());
        m_steps->addItem(line);
    }
    Q_EMIT pathSelected(it.nodes);
}

} // namespace tideline::live
