#pragma once
// Lists validation errors and pitfall warnings; activating one asks to select its node and
// focus the field it is about.

#include "problem.hpp"

#include <QWidget>

class QLabel;
class QTreeWidget;

namespace tideline::widgets {

class ProblemsPanel final : public QWidget
{
    Q_OBJECT
public:
    explicit ProblemsPanel(QWidget *parent = nullptr);

    void setProblems(const QList<Problem> &problems);
    QList<Problem> problems() const { return m_problems; }
    QTreeWidget *list() const { return m_list; }
    int errorCount() const;
    int warningCount() const;

Q_SIGNALS:
    void problemActivated(const QString &nodeId, const QString &param);
    void countsChanged(int errors, int warnings);

private:
    QTreeWidget *m_list;
    QLabel *m_summary;
    QList<Problem> m_problems;
};

} // namespace tideline::widgets
