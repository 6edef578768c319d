#pragma once
// Single-line editor for numbers, strings, paths, expressions and comma-separated lists.
// Checks range/type on every keystroke; commits on Enter or focus-out when it parses.

#include "field_editor.hpp"

class QLineEdit;

namespace tideline::widgets {

class LineFieldEditor final : public FieldEditor
{
    Q_OBJECT
public:
    explicit LineFieldEditor(const FieldDescriptor &descriptor, QWidget *parent = nullptr);

    void setValue(const QJsonValue &value) override;
    QJsonValue value() const override { return m_value; }
    QWidget *editorWidget() const override;
    /// Puts `text` in the field and commits it as if typed (a picked file).
    void commitText(const QString &text);

private:
    void onEdited(const QString &text);
    void onFinished();

    QLineEdit *m_edit;
    QJsonValue m_value;
};

} // namespace tideline::widgets
