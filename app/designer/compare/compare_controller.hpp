#pragma once
// CompareController: Test › Compare Engines… opens the Compare Engines dialog
// (compare_dialog.hpp) on the open pipeline. Installed by MainWindow with one line; owns
// nothing but the action and the dialog it opened.

#include <QObject>
#include <QPointer>

#include <functional>

class QAction;

namespace tideline::designer {

class CompareDialog;
class MainWindow;

class CompareController final : public QObject
{
    Q_OBJECT
public:
    explicit CompareController(MainWindow &window);
    QAction *action() const { return m_action; }
    /// Opens (or raises) the dialog for the open document and returns it.
    CompareDialog *open();
    /// What "Use this engine" does after changing the document: start a live run (set by the
    /// live views when they are installed; none in tests without them).
    void setLiveRunHook(std::function<void()> hook) { m_liveRun = std::move(hook); }

private:
    MainWindow &m_window;
    QAction *m_action;
    QPointer<CompareDialog> m_dialog;
    std::function<void()> m_liveRun;
};

} // namespace tideline::designer
