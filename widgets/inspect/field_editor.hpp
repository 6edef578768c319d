#pragma once
// One generated form row: name, an editor chosen by the field's type, a problem line and the
// help text. Subclasses provide the editor; this base marks it invalid (dynamic property
// `invalid`, styled by the app's stylesheet) from local checks while typing or from the
// engine's diagnostics after a commit.

#include "field_descriptor.hpp"

#include <QWidget>

class QLabel;
class QVBoxLayout;

namespace tideline::widgets {

class FieldEditor : public QWidget
{
    Q_OBJECT
public:
    explicit FieldEditor(const FieldDescriptor &descriptor, QWidget *parent = nullptr);

    /// The editor for a descriptor's type.
    static FieldEditor *create(const FieldDescriptor &descriptor, QWidget *parent = nullptr);

    const FieldDescriptor &descriptor() const { return m_descriptor; }
    /// Shows a value without emitting committed().
    virtual void setValue(const QJsonValue &value) = 0;
    virtual QJsonValue value() const = 0;
    /// The widget that takes keyboard focus and carries the `invalid` mark.
    virtual QWidget *editorWidget() const = 0;

    /// A problem reported by validation for this field ("" clears it).
    virtual void setProblem(const QString &message);
    /// What the row currently shows as wrong ("" when fine).
    QString shownProblem() const;
    bool isMarkedInvalid() const;

Q_SIGNALS:
    /// The user finished an edit; Null means "remove the param" (its default applies).
    void committed(const QJsonValue &value);
    /// Path fields: the user asked for a file picker (the form's owner knows the folder).
    void browseRequested();

protected:
    void setBody(QWidget *body);
    void setLocalError(const QString &message);

private:
    void updateMark();

    FieldDescriptor m_descriptor;
    QVBoxLayout *m_layout;
    QLabel *m_message;
    QString m_localError;
    QString m_problem;
};

} // namespace tideline::widgets
