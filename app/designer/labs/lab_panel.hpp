#pragma once
// The Lab dock's content: the lab's title, its task (task.md rendered as Markdown) and, at
// the bottom where it is always in view, the Check button and the verdict of the last check.
// Shows what it is given; LabController decides.

#include <QWidget>

class QLabel;
class QPushButton;
class QTextBrowser;

namespace tideline::designer {

struct Lab;

class LabPanel final : public QWidget
{
    Q_OBJECT
public:
    enum class Verdict { NotChecked, Running, Passed, Failed, Error };

    explicit LabPanel(QWidget *parent = nullptr);

    void showLab(const Lab &lab);
    /// `text` says more: how many sinks differ, why the check could not run.
    void setVerdict(Verdict verdict, const QString &text);

    Verdict verdict() const { return m_verdict; }
    QString verdictText() const;
    QString title() const;
    QTextBrowser *taskView() const { return m_task; }
    QPushButton *checkButton() const { return m_check; }

Q_SIGNALS:
    void checkRequested();

private:
    QLabel *m_title;
    QTextBrowser *m_task;
    QPushButton *m_check;
    QLabel *m_verdictLabel;
    Verdict m_verdict = Verdict::NotChecked;
};

} // namespace tideline::designer
