#pragma once
// The designer's lab mode (issue 19, item 5). File › Open Lab… lists the labs
// (pipelines/labs/*, see lab.hpp) and opens one; opening a lab's pipeline.json any other way
// (File › Open, Open Recent, the command line) is detected too. While a lab is open, the Lab
// dock beside the canvas shows its task and a Check button: Check is the Test menu's Check
// (CheckController, the same run and comparison as `tideline-run --expect`) against the
// lab's expected/ folder, its findings in the Check dock; the Lab dock says solved or not yet.
// Installed by MainWindow; uses its public API only.

#include "labs/lab.hpp"

#include <QObject>

#include <functional>
#include <optional>

class QAction;
class QDockWidget;

namespace tideline::widgets {
struct CheckReport;
}

namespace tideline::designer {

class LabPanel;
class MainWindow;

class LabController final : public QObject
{
    Q_OBJECT
public:
    explicit LabController(MainWindow &window);
    ~LabController() override;

    /// File › Open Lab…: asks which lab (after offering to save changes); false when cancelled
    /// or it did not open.
    bool openLabDialog();
    /// Opens a lab's starting pipeline (its folder or its pipeline.json).
    bool openLab(const QString &dirOrPipeline);
    /// Check in the Lab dock: false when it did not start (the verdict says why).
    bool check();

    /// The open lab; nullopt when the open document is not a lab's starting pipeline.
    const std::optional<Lab> &lab() const { return m_lab; }
    LabPanel *panel() const { return m_panel; }
    QDockWidget *dock() const { return m_dock; }

    /// Picks a lab's pipeline.json from the list (default: a dialog); "" = cancelled.
    using LabChooser = std::function<QString(const QList<Lab> &labs)>;
    void setLabChooser(LabChooser chooser) { m_chooseLab = std::move(chooser); }

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void onFileChanged(const QString &path);
    void widen();
    void onCheckFinished(const widgets::CheckReport &report);
    QString chooseWithDialog(const QList<Lab> &labs);

    MainWindow &m_window;
    LabPanel *m_panel;
    QDockWidget *m_dock;
    QAction *m_openAction;
    std::optional<Lab> m_lab;
    bool m_widen = false; ///< the Lab column still wants its width (the window was not shown)
    int m_widenTries = 0;
    LabChooser m_chooseLab;
};

} // namespace tideline::designer
