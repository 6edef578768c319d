#pragma once
// SweepController: Test > What-if sweep… opens the Sweep dialog (sweep_dialog.hpp) on the
// open pipeline. Installed by MainWindow with one line; owns nothing but the action and the
// dialog it opened.

#include <QObject>
#include <QPointer>

class QAction;

namespace tideline::designer {

class MainWindow;
class SweepDialog;

class SweepController final : public QObject
{
    Q_OBJECT
public:
    explicit SweepController(MainWindow &window);
    QAction *action() const { return m_action; }
    /// Opens (or raises) the dialog for the open document and returns it.
    SweepDialog *open();

private:
    MainWindow &m_window;
    QAction *m_action;
    QPointer<SweepDialog> m_dialog;
};

} // namespace tideline::designer
