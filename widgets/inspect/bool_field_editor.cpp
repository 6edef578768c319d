#include "bool_field_editor.hpp"

#include <QCheckBox>

namespace tideline::widgets {

BoolFieldEditor::BoolFieldEditor(const FieldDescriptor &d, QWidget *parent)
    : FieldEditor(d, parent)
    , m_check(new QCheckBox(tr("enabled"), this))
    , m_value(QJsonValue::Null)
{
    m_check->setObjectName(QStringLiteral("field:") + d.name);
    setBody(m_check);
    connect(m_check, &QCheckBox::clicked, this, [this](bool on) {
        m_value = on;
        Q_EMIT committed(m_value);
    });
}

QWidget *BoolFieldEditor::editorWidget() const
{
    return m_check;
}

void BoolFieldEditor::setValue(const QJsonValue &value)
{
    m_value = value.isUndefined() ? QJsonValue(QJsonValue::Null) : value;
    const QJsonValue shown = m_value.isBool() ? m_value : descriptor().defaultValue;
    m_check->setChecked(shown.toBool(false));
}

} // namespace tideline::widgets
