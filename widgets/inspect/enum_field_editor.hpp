#pragma once

#include "field_editor.hpp"

class QComboBox;

namespace tideline::widgets {

/// A combo box of the descriptor's choices; optional fields get a "(default)" entry.
class EnumFieldEditor final : public FieldEditor
{
    Q_OBJECT
public:
    explicit EnumFieldEditor(const FieldDescriptor &descriptor, QWidget *parent = nullptr);

    void setValue(const QJsonValue &value) override;
    QJsonValue value() const override { return m_value; }
    QWidget *editorWidget() const override;

private:
    void rebuild(const QString &extra);

    QComboBox *m_combo;
    QJsonValue m_value;
};

} // namespace tideline::widgets
