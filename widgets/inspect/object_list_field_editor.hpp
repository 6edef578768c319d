#pragma once

#include "field_editor.hpp"

class QVBoxLayout;
class QPushButton;

namespace tideline::widgets {

class PropertyForm;

/// A list of objects (window `aggregates`): one framed sub-form per element with a remove
/// button, and an add button that appends an element with the first choice of required enums.
class ObjectListFieldEditor final : public FieldEditor
{
    Q_OBJECT
public:
    explicit ObjectListFieldEditor(const FieldDescriptor &descriptor, QWidget *parent = nullptr);

    void setValue(const QJsonValue &value) override;
    QJsonValue value() const override { return m_value; }
    QWidget *editorWidget() const override;
    int elementCount() const;
    PropertyForm *elementForm(int index) const;
    QPushButton *addButton() const { return m_add; }

private:
    void rebuild();
    void commitArray(const QJsonArray &arr);

    QWidget *m_box;
    QVBoxLayout *m_list;
    QPushButton *m_add;
    QList<PropertyForm *> m_forms;
    QJsonValue m_value;
};

} // namespace tideline::widgets
