#pragma once
// The Check panel: the verdict of a check against expected outputs (or of Save outputs as
// expected) — one row per sink with its pass/fail marker and counts, the findings of the
// selected sink in stream terms (which window / key / row is missing, extra or different),
// and the expected folder used. Shows what it is given; the designer runs the check and puts
// its actions on toolBar().

#include "check_types.hpp"

#include <QWidget>

class QLabel;
class QSplitter;
class QTextBrowser;
class QToolBar;
class QTreeWidget;

namespace tideline::widgets {

class CheckPanel final : public QWidget
{
    Q_OBJECT
public:
    explicit CheckPanel(QWidget *parent = nullptr);

    QToolBar *toolBar() const { return m_tools; }
    /// The folder the next check uses (shown until a report replaces it).
    void setExpectedDir(const QString &dir);
    /// A check is running: `text` says what ("Checking sessions-late-data… 1.2 s").
    void setRunning(const QString &text);
    void setReport(const CheckReport &report);
    /// The pipeline changed since the report was made: say so (the verdict may be stale).
    void setOutdated(bool outdated);
    /// Forgets the report (the document it was about is gone).
    void clear();

    const CheckReport &report() const { return m_report; }
    bool hasReport() const { return m_hasReport; }
    QString selectedSink() const;
    void selectSink(const QString &sinkId);
    QTreeWidget *sinkList() const { return m_sinks; }
    /// What the panel says, as plain text (tests and screen readers).
    QString summaryText() const;
    QString findingsText() const;
    QString folderText() const;

Q_SIGNALS:
    /// A sink row was clicked or activated: show that node.
    void sinkSelected(const QString &sinkId);

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    void showFindings();
    void updateSummary();
    void fitSinkList();
    void elideFolder();

    QLabel *m_marker;
    QLabel *m_summary;
    QToolBar *m_tools;
    QLabel *m_folder;
    QSplitter *m_split;
    QTreeWidget *m_sinks;
    QTextBrowser *m_findings;
    CheckReport m_report;
    QString m_expectedDir;
    QString m_folderText;  ///< the folder line before eliding
    QString m_summaryText; ///< the verdict line as plain text
    bool m_hasReport = false;
    bool m_outdated = false;
    QString m_running;
};

} // namespace tideline::widgets
