#pragma once
// A form generated from field descriptors: one FieldEditor per field, in descriptor order.

#include "field_descriptor.hpp"

#include <QHash>
#include <QJsonObject>
#include <QWidget>

class QVBoxLayout;

namespace tideline::widgets {

class FieldEditor;

class PropertyForm final : public QWidget
{
    Q_OBJECT
public:
    explicit PropertyForm(QWidget *parent = nullptr);

    void setFields(const QList<FieldDescriptor> &fields);
    /// Shows values (missing keys show the default) without emitting valueEdited().
    void setValues(const QJsonObject &values);
    /// Problems from validation keyed by field name ("" message clears). Fields not listed clear.
    void setProblems(const QHash<QString, QString> &problems);
    FieldEditor *editor(const QString &name) const;
    QList<FieldEditor *> editors() const { return m_order; }
    /// Gives keyboard focus to a field's editor (problems panel click).
    bool focusField(const QString &name);

Q_SIGNALS:
    void valueEdited(const QString &name, const QJsonValue &value);
    void browseRequested(const QString &name);

private:
    QVBoxLayout *m_layout;
    QHash<QString, FieldEditor *> m_editors;
    QList<FieldEditor *> m_order;
};

} // namespace tideline::widgets
