#include "late_ledger.hpp"

#include "live_style.hpp"
#include "time_text.hpp"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

namespace tideline::live {

LateLedgerModel::LateLedgerModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void LateLedgerModel::setCapacity(int capacity)
{
    capacity = std::max(1, capacity);
    m_capacity = capacity;
    const int excess = static_cast<int>(m_rows.size()) - capacity;
    if (excess > 0) {
        beginRemoveRows({}, 0, excess - 1);
        m_rows.erase(m_rows.begin(), m_rows.begin() + excess);
        m_fellOut += excess;
        endRemoveRows();
    }
}

void LateLedgerModel::clear()
{
    beginResetModel();
    m_rows.clear();
    m_total = m_fellOut = m_late = m_errors = 0;
    endResetModel();
}

void LateLedgerModel::append(const QList<TappedRecord> &records)
{
    QList<const TappedRecord *> add;
    for (const auto &r : records)
        if (!r.input && r.role != TapRole::Data)
            add.push_back(&r);
    if (add.isEmpty())
        return;
    m_total += add.size();
    for (const auto *r : add)
        ++(r->role == TapRole::Late ? m_late : m_errors);
    // Only the newest `capacity` of this batch can stay.
    if (add.size() > m_capacity) {
        m_fellOut += add.size() - m_capacity;
        add = add.mid(add.size() - m_capacity);
    }
    const int excess = static_cast<int>(m_rows.size() + add.size()) - m_capacity;
    if (excess > 0) {
        beginRemoveRows({}, 0, excess - 1);
        m_rows.erase(m_rows.begin(), m_rows.begin() + excess);
        m_fellOut += excess;
        endRemoveRows();
    }
    const int first = static_cast<int>(m_rows.size());
    beginInsertRows({}, first, first + static_cast<int>(add.size()) - 1);
    for (const auto *r : add)
        m_rows.push_back(*r);
    endInsertRows();
}

int LateLedgerModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int LateLedgerModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant LateLedgerModel::headerData(int section, Qt::Orientation o, int role) const
{
    if (o != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    static const char *names[]
        = {"#", "Node", "Port", "Reason", "Event time", "W at arrival", "How late", "Record"};
    return tr(names[section]);
}

QVariant LateLedgerModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid())
        return {};
    const TappedRecord &r = m_rows[static_cast<std::size_t>(index.row())];
    if (role == Qt::ForegroundRole) {
        if (index.column() == Port)
            return r.role == TapRole::Late ? style::lateAccepted() : style::tooLate();
        return {};
    }
    if (role == Qt::ToolTipRole && index.column() == Record)
        return r.json.isEmpty() ? r.raw : r.json;
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case Seq:
        return m_total - static_cast<qint64>(m_rows.size()) + index.row() + 1;
    case Node:
        return r.node;
    case Port:
        return r.role == TapRole::Late ? QStringLiteral("late") : QStringLiteral("errors");
    case Reason:
        return r.reason;
    case EventTime:
        return r.eventTime ? eventTimeText(r.eventTime) : QStringLiteral("—");
    case Watermark:
        return eventTimeText(r.watermark);
    case HowLate:
        // Behind the watermark by W - t (0 = exactly at the watermark, still behind it).
        if (r.eventTime && r.watermark && *r.watermark != kEnded)
            return durationText(*r.watermark - *r.eventTime);
        return QStringLiteral("—");
    case Record:
        return r.json.isEmpty() ? r.raw : r.json;
    }
    return {};
}

bool LateLedgerFilter::filterAcceptsRow(int row, const QModelIndex &) const
{
    auto *m = static_cast<LateLedgerModel *>(sourceModel());
    const TappedRecord &r = m->at(row);
    if (!m_node.isEmpty() && r.node != m_node)
        return false;
    if (!m_port.isEmpty()
        && (r.role == TapRole::Late ? QStringLiteral("late") : QStringLiteral("errors")) != m_port)
        return false;
    if (!m_text.isEmpty() && !r.reason.contains(m_text, Qt::CaseInsensitive)
        && !r.json.contains(m_text, Qt::CaseInsensitive)
        && !r.raw.contains(m_text, Qt::CaseInsensitive))
        return false;
    return true;
}

LateLedgerView::LateLedgerView(QWidget *parent)
    : QWidget(parent)
    , m_model(new LateLedgerModel(this))
    , m_filter(new LateLedgerFilter(this))
    , m_table(new QTableView(this))
    , m_text(new QLineEdit(this))
    , m_node(new QComboBox(this))
    , m_port(new QComboBox(this))
    , m_capacity(new QSpinBox(this))
    , m_status(new QLabel(this))
{
    setObjectName(QStringLiteral("lateLedger"));
    m_filter->setSourceModel(m_model);
    m_table->setModel(m_filter);
    m_table->setFont(style::font(11));
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setAlternatingRowColors(true);
    m_table->setWordWrap(false);
    for (int c = 0; c < LateLedgerModel::Record; ++c)
        m_table->horizontalHeader()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    m_text->setPlaceholderText(tr("Filter reason or record text…"));
    m_text->setClearButtonEnabled(true);
    m_node->addItem(tr("All nodes"), QString());
    m_port->addItem(tr("late + errors"), QString());
    m_port->addItem(QStringLiteral("late"), QStringLiteral("late"));
    m_port->addItem(QStringLiteral("errors"), QStringLiteral("errors"));
    m_capacity->setRange(10, 1000000);
    m_capacity->setSingleStep(1000);
    m_capacity->setValue(m_model->capacity());
    m_capacity->setPrefix(tr("keep "));
    m_capacity->setSuffix(tr(" rows"));
    m_status->setFont(style::font(11));
    m_status->setWordWrap(true);
    // Narrow docks (a 1024-pixel screen): the bar's parts shrink rather than widen the window.
    m_text->setMinimumWidth(80);
    for (QComboBox *c : {m_node, m_port}) {
        c->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        c->setMinimumContentsLength(8);
    }
    m_table->verticalHeader()->setDefaultSectionSize(static_cast<int>(style::px(24)));
    connect(&widgets::UiScale::instance(), &widgets::UiScale::changed, this, [this] {
        m_table->verticalHeader()->setDefaultSectionSize(static_cast<int>(style::px(24)));
    });
    auto *bar = new QHBoxLayout;
    bar->addWidget(m_text, 2);
    bar->addWidget(m_node);
    bar->addWidget(m_port);
    bar->addWidget(m_capacity);
    bar->addWidget(m_status, 1);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(bar);
    layout->addWidget(m_table, 1);
    connect(m_text, &QLineEdit::textChanged, this, [this](const QString &t) {
        m_filter->setText(t);
        updateStatus();
    });
    connect(m_node, &QComboBox::currentIndexChanged, this, [this](int) {
        m_filter->setNode(m_node->currentData().toString());
        updateStatus();
    });
    connect(m_port, &QComboBox::currentIndexChanged, this, [this](int) {
        m_filter->setPort(m_port->currentData().toString());
        updateStatus();
    });
    connect(m_capacity, &QSpinBox::valueChanged, this, [this](int v) {
        m_model->setCapacity(v);
        updateStatus();
    });
    updateStatus();
}

void LateLedgerView::setNodes(const QStringList &nodes)
{
    m_node->blockSignals(true);
    const QString keep = m_node->currentData().toString();
    m_node->clear();
    m_node->addItem(tr("All nodes"), QString());
    for (const QString &n : nodes)
        m_node->addItem(n, n);
    const int idx = m_node->findData(keep);
    m_node->setCurrentIndex(idx < 0 ? 0 : idx);
    m_node->blockSignals(false);
    m_filter->setNode(m_node->currentData().toString());
}

void LateLedgerView::clear()
{
    m_model->clear();
    updateStatus();
}

void LateLedgerView::append(const QList<TappedRecord> &records)
{
    const qint64 before = m_model->total();
    m_model->append(records);
    if (m_model->total() != before) {
        updateStatus();
        m_table->scrollToBottom();
    }
}

void LateLedgerView::updateStatus()
{
    QString s = tr("%1 late · %2 · showing %3")
                    .arg(m_model->countOf(TapRole::Late))
                    .arg(countNoun(m_model->countOf(TapRole::Errors), tr("error"), tr("errors")))
                    .arg(m_filter->rowCount());
    if (m_model->fellOut() > 0)
        s += tr(" · <span style='color:#f0b429'>%1 older rows fell out of the ring</span>")
                 .arg(m_model->fellOut());
    m_status->setText(s);
}

} // namespace tideline::live
