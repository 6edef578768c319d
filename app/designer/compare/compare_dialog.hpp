#pragma once
// The Compare Engines dialog (Test › Compare Engines…, issue 20): runs the open pipeline on
// the same bounded input once per semantics mode — Flink, Spark Structured Streaming, Kafka
// Streams — (CompareWorker: the engine's compare, as `tideline-run --compare-engines`) and
// shows what differs:
//   - a card per engine: rows written, what it dropped, why it could not run; and a
//     "Use this engine" button that makes it the document's `settings.semantics` (one
//     undoable command) and, when the live views are there, runs the live view in that mode;
//   - the differences per sink and pair of engines: rows only one engine emits, rows of the
//     same window and key whose values differ;
//   - what each engine dropped, node by node (late, duplicates, unmatched join records);
//   - each engine's windows for one key on one time axis (live::EngineTimelines).
//
// The dialog never changes the document except through that command.

#include <tideline/engine/compare_engines.hpp>

#include <QDialog>

#include <functional>
#include <map>
#include <vector>

class QComboBox;
class QLabel;
class QPushButton;
class QTableWidget;

namespace tideline::live {
class EngineTimelines;
}

namespace tideline::designer {

class CompareWorker;
class PipelineDocument;

class CompareDialog final : public QDialog
{
    Q_OBJECT
public:
    CompareDialog(PipelineDocument &doc, QWidget *parent = nullptr);
    ~CompareDialog() override;

    /// Starts the comparison (what the Run button does). False when it cannot start (the
    /// status line says why).
    bool runCompare();
    bool running() const;
    /// The last finished comparison.
    const compare::Report &report() const;

    /// Makes `engine` the document's semantics (undoable) and asks for a live run in it
    /// (the live-run hook, when set). False when it already was the document's mode.
    bool useEngine(const QString &engine);
    /// Called after useEngine changed the document: MainWindow's live views start a run.
    void setLiveRunHook(std::function<void()> hook) { m_liveRun = std::move(hook); }

    QTableWidget *differences() const { return m_diffs; }
    QTableWidget *drops() const { return m_drops; }
    live::EngineTimelines *timelines() const { return m_timelines; }
    QComboBox *sinkBox() const { return m_sink; }
    QComboBox *keyBox() const { return m_key; }
    QString status() const;
    /// The card text of `engine` ("324 records read · 249 rows · 2 late").
    QString cardText(const QString &engine) const;

Q_SIGNALS:
    void compareFinished();

private:
    void onFinished();
    void fillDifferences();
    void fillDrops();
    void fillSinks();
    void fillKeys();
    void showKey();
    void updateCards();
    QString currentEngine() const;

    PipelineDocument &m_doc;
    CompareWorker *m_worker;
    QPushButton *m_run;
    QPushButton *m_cancel;
    QLabel *m_status;
    std::map<QString, QLabel *> m_cards;
    std::map<QString, QPushButton *> m_use;
    QTableWidget *m_diffs;
    QTableWidget *m_drops;
    QComboBox *m_sink;
    QComboBox *m_key;
    live::EngineTimelines *m_timelines;
    std::function<void()> m_liveRun;
};

} // namespace tideline::designer
