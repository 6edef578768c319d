#pragma once
// The trace view (issue 16): "where did this record go?". A search over the records of the
// last traced run (an expression such as click_id == "clk-0082", or any text of the record),
// over input records or output rows; the matching records in a list, and for the one picked
// its whole path: each node it reached and what happened there, in words, and the output rows
// it made (or, for an output row, the input records that made it). Qt only: the designer's
// TraceController runs the pipeline with lineage and fills it with these structs.

#include <QList>
#include <QString>
#include <QStringList>
#include <QWidget>

class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;
class QTreeWidget;
class QTreeWidgetItem;

namespace tideline::live {

struct TraceStep
{
    QString node;
    QString kind; ///< read, passed, mapped, joined, window, duplicate, late, join_unmatched, …
    QString what; ///< the sentence
};

/// One found record: an input record with its path, or an output row with its inputs.
struct TraceItem
{
    QString title;  ///< "`clicks` #23" / "output #12 (sink `joined`)"
    QString record; ///< JSON
    QList<TraceStep> steps;
    QStringList nodes; ///< the path on the canvas, in order
};

class TraceView final : public QWidget
{
    Q_OBJECT
public:
    explicit TraceView(QWidget *parent = nullptr);

    /// A run with lineage finished (ready) or none yet / running: the search waits for it.
    void setStatus(const QString &text, bool ready);
    /// What the last search found (`note`: e.g. how many records are no longer traceable).
    void setResults(const QList<TraceItem> &items, const QString &note);
    /// Searches for `text` now (a click on an output row or a ledger entry).
    void search(const QString &text, bool outputs);
    /// Shows what is traced (a dot or a pane of the window timeline) without searching: the
    /// results follow with setResults().
    void showQuery(const QString &text, bool outputs);

    QString query() const;
    bool searchesOutputs() const;
    int resultCount() const;
    /// The steps shown for the selected record, one line each ("node: what").
    QStringList shownSteps() const;
    void selectResult(int row);

Q_SIGNALS:
    void runRequested();
    void searchRequested(const QString &text, bool outputs);
    /// The picked record's path (node ids in order; empty when nothing is picked).
    void pathSelected(const QStringList &nodes);

private:
    void onSelection();

    QPushButton *m_run;
    QLabel *m_status;
    QLineEdit *m_query;
    QComboBox *m_scope;
    QLabel *m_note;
    QTreeWidget *m_results;
    QListWidget *m_steps;
    QList<TraceItem> m_items;
};

} // namespace tideline::live
