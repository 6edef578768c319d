#pragma once
// The inspector for one node: kind and help, the node id (renamable, with a warning that
// state keyed by the old id will not carry over) and the generated parameter form.

#include "field_descriptor.hpp"

#include <QJsonObject>
#include <QWidget>

#include <functional>

class QLabel;
class QLineEdit;
class QStackedWidget;
class QVBoxLayout;

namespace tideline::widgets {

class PropertyForm;

class NodeInspector final : public QWidget
{
    Q_OBJECT
public:
    explicit NodeInspector(QWidget *parent = nullptr);

    /// Returns "" when `newId` is an acceptable id for the node `oldId`, else why not.
    using IdChecker = std::function<QString(const QString &oldId, const QString &newId)>;
    void setIdChecker(IdChecker checker) { m_idChecker = std::move(checker); }
    /// Picks a file for a path field: (node kind, field, current text) -> new text, "" =
    /// cancelled. The application provides it (it knows the pipeline's folder).
    using PathChooser
        = std::function<QString(const QString &kind, const QString &field, const QString &current)>;
    void setPathChooser(PathChooser chooser) { m_pathChooser = std::move(chooser); }

    /// Shows a node. Fields are rebuilt only when the kind changes, so focus survives edits.
    void showNode(const QString &id,
                  const QString &kind,
                  const QString &title,
                  const QString &help,
                  const QList<FieldDescriptor> &fields,
                  const QJsonObject &values);
    void showNothing(const QString &message);
    void setProblems(const QHash<QString, QString> &problems, const QString &nodeProblem);
    bool focusField(const QString &name);
    /// Adds a section under the form (e.g. the Kafka source inspector); the caller shows or
    /// hides it per node. The inspector takes ownership.
    void addSection(QWidget *section);
    /// Moves a section above the form (live figures while running) or back under it.
    void placeSection(QWidget *section, bool aboveForm);

    QString nodeId() const { return m_nodeId; }
    PropertyForm *form() const { return m_form; }
    QLineEdit *idEdit() const { return m_idEdit; }
    QLabel *renameWarning() const { return m_renameWarning; }

Q_SIGNALS:
    void paramEdited(const QString &nodeId, const QString &name, const QJsonValue &value);
    void renameRequested(const QString &oldId, const QString &newId);

private:
    void onIdEdited(const QString &text);
    void onIdFinished();

    QStackedWidget *m_stack;
    QLabel *m_empty;
    QLabel *m_title;
    QLabel *m_help;
    QLineEdit *m_idEdit;
    QLabel *m_renameWarning;
    QLabel *m_nodeProblem;
    PropertyForm *m_form;
    QVBoxLayout *m_pageLayout = nullptr;
    QString m_nodeId;
    QString m_kind;
    IdChecker m_idChecker;
    PathChooser m_pathChooser;
};

} // namespace tideline::widgets
