#pragma once

#include "field_editor.hpp"

class QPlainTextEdit;

namespace tideline::widgets {

/// {name: value} maps (map `set`, Kafka `properties`) edited as "name = value" lines;
/// commits when the editor loses focus.
class MapFieldEditor final : public FieldEditor
{
    Q_OBJECT
public:
    explicit MapFieldEditor(const FieldDescriptor &descriptor, QWidget *parent = nullptr);

    void setValue(const QJsonValue &value) override;
    QJsonValue value() const override { return m_value; }
    QWidget *editorWidget() const override;
    /// Commits the current text (focus-out does this; tests and Ctrl+Enter call it).
    void commit();

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    QPlainTextEdit *m_edit;
    QJsonValue m_value;
};

} // namespace tideline::widgets
