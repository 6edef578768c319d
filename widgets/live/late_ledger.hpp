#pragma once
// The late-data ledger: every record sent to a `late` or `errors` port during the run, with
// the reason, node, watermark at arrival and how late it was. Bounded: a ring of `capacity`
// rows; what falls out is counted. Filterable by text, node and port.

#include "live_types.hpp"

#include <QAbstractTableModel>
#include <QSortFilterProxyModel>
#include <QWidget>

#include <deque>

class QComboBox;
class QLabel;
class QLineEdit;
class QSpinBox;
class QTableView;

namespace tideline::live {

class LateLedgerModel final : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { Seq, Node, Port, Reason, EventTime, Watermark, HowLate, Record, ColumnCount };
    explicit LateLedgerModel(QObject *parent = nullptr);

    void setCapacity(int capacity);
    int capacity() const { return m_capacity; }
    void clear();
    /// Appends late/errors records (others are ignored). Rows beyond capacity fall out.
    void append(const QList<TappedRecord> &records);
    qint64 total() const { return m_total; }
    qint64 fellOut() const { return m_fellOut; }
    qint64 countOf(TapRole role) const { return role == TapRole::Late ? m_late : m_errors; }
    const TappedRecord &at(int row) const { return m_rows[static_cast<std::size_t>(row)]; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;

private:
    std::deque<TappedRecord> m_rows;
    int m_capacity = 10000;
    qint64 m_total = 0;
    qint64 m_fellOut = 0;
    qint64 m_late = 0;
    qint64 m_errors = 0;
};

class LateLedgerFilter final : public QSortFilterProxyModel
{
    Q_OBJECT
public:
    using QSortFilterProxyModel::QSortFilterProxyModel;
    void setNode(const QString &node)
    {
        m_node = node;
        invalidateFilter();
    }
    void setPort(const QString &port)
    {
        m_port = port;
        invalidateFilter();
    }
    void setText(const QString &text)
    {
        m_text = text;
        invalidateFilter();
    }

protected:
    bool filterAcceptsRow(int row, const QModelIndex &parent) const override;

private:
    QString m_node, m_port, m_text;
};

class LateLedgerView final : public QWidget
{
    Q_OBJECT
public:
    explicit LateLedgerView(QWidget *parent = nullptr);
    LateLedgerModel *model() const { return m_model; }
    LateLedgerFilter *filter() const { return m_filter; }
    QTableView *table() const { return m_table; }
    void setNodes(const QStringList &nodes);
    void clear();
    void append(const QList<TappedRecord> &records);
    QLineEdit *textFilter() const { return m_text; }
    QComboBox *nodeFilter() const { return m_node; }

private:
    void updateStatus();
    LateLedgerModel *m_model;
    LateLedgerFilter *m_filter;
    QTableView *m_table;
    QLineEdit *m_text;
    QComboBox *m_node;
    QComboBox *m_port;
    QSpinBox *m_capacity;
    QLabel *m_status;
};

} // namespace tideline::live
