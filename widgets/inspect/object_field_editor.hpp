#pragma once

#include "field_editor.hpp"

namespace tideline::widgets {

class PropertyForm;

/// A nested object (generator `disorder`, `pace`): an indented sub-form of its fields.
class ObjectFieldEditor final : public FieldEditor
{
    Q_OBJECT
public:
    explicit ObjectFieldEditor(const FieldDescriptor &descriptor, QWidget *parent = nullptr);

    void setValue(const QJsonValue &value) override;
    QJsonValue value() const override { return m_value; }
    QWidget *editorWidget() const override;
    void setProblem(const QString &message) override;
    PropertyForm *form() const { return m_form; }

private:
    PropertyForm *m_form;
    QJsonValue m_value;
};

} // namespace tideline::widgets
