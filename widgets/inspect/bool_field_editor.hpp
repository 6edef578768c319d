#pragma once

#include "field_editor.hpp"

class QCheckBox;

namespace tideline::widgets {

/// A check box; shows the default when the param is not set.
class BoolFieldEditor final : public FieldEditor
{
    Q_OBJECT
public:
    explicit BoolFieldEditor(const FieldDescriptor &descriptor, QWidget *parent = nullptr);

    void setValue(const QJsonValue &value) override;
    QJsonValue value() const override { return m_value; }
    QWidget *editorWidget() const override;

private:
    QCheckBox *m_check;
    QJsonValue m_value;
};

} // namespace tideline::widgets
