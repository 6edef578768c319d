#pragma once
// Output preview: the latest records at each sink, and on any edge the user clicked
// (the records leaving the edge's output port). A small ring per place, newest first, as a
// table that reads: event time and window as clock times, `emit`, the other fields; the
// full record on hover; a search field that keeps the rows containing its text. A sink that
// writes to a database table may also offer the table itself as a place ("table:<node>"):
// its newest rows as read back from the table, which the application supplies.

#include "live_types.hpp"

#include <QHash>
#include <QWidget>

#include <algorithm>
#include <deque>

class QComboBox;
class QLabel;
class QLineEdit;
class QTableWidget;

namespace tideline::live {

class OutputPreview final : public QWidget
{
    Q_OBJECT
public:
    explicit OutputPreview(QWidget *parent = nullptr);

    void setSinks(const QStringList &sinks);
    /// Adds the edge as a place to preview and shows it.
    void watchEdge(const EdgeInfo &edge);
    /// Offers the table a sink writes as a place (filled by setReadBack()).
    void addTablePlace(const QString &node, const QString &table);
    /// The rows read back from a table place, newest first (JSON objects), and a status line
    /// (when and from where they were read, or why they could not be).
    void setReadBack(const QString &key, const QStringList &rowsNewestFirst, const QString &status);
    void clear();
    void append(const QList<TappedRecord> &records);
    void setDepth(int depth) { m_depth = std::max(1, depth); }

    /// Keys: "sink:<node>", "edge:<node>.<port>" or "table:<node>".
    static QString sinkKey(const QString &node) { return QStringLiteral("sink:") + node; }
    static QString tableKey(const QString &node) { return QStringLiteral("table:") + node; }
    static QString edgeKey(const QString &node, const QString &port)
    {
        return QStringLiteral("edge:") + node + '.' + port;
    }
    QString currentKey() const;
    void setCurrentKey(const QString &key);
    /// Latest records (JSON) of a place, oldest first.
    QStringList latest(const QString &key) const;
    qint64 seen(const QString &key) const { return m_seen.value(key); }
    QTableWidget *table() const { return m_table; }
    QLineEdit *search() const { return m_search; }
    /// Table columns.
    enum Column { EventTime, Window, Emit, Fields, ColumnCount };

Q_SIGNALS:
    /// The user picked another place (the bridge may need to tap the edge's node).
    void currentChanged(const QString &key);

private:
    void render();
    struct Seen
    {
        std::optional<qint64> eventTime;
        QString json;
    };
    QComboBox *m_place;
    QLineEdit *m_search;
    QLabel *m_status;
    QTableWidget *m_table;
    QHash<QString, std::deque<Seen>> m_rings;
    QHash<QString, qint64> m_seen;
    QHash<QString, QStringList> m_readBack; ///< table places: rows, newest first
    QHash<QString, QString> m_readBackStatus;
    int m_depth = 50;
    bool m_dirty = false;
};

} // namespace tideline::live
