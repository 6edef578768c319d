#include "enum_field_editor.hpp"

#include "field_checks.hpp"

#include <QComboBox>

namespace tideline::widgets {

EnumFieldEditor::EnumFieldEditor(const FieldDescriptor &d, QWidget *parent)
    : FieldEditor(d, parent)
    , m_combo(new QComboBox(this))
    , m_value(QJsonValue::Null)
{
    m_combo->setObjectName(QStringLiteral("field:") + d.name);
    setBody(m_combo);
    rebuild(QString());
    connect(m_combo, &QComboBox::activated, this, [this](int index) {
        const QVariant item = m_combo->itemData(index);
        const QJsonValue v
            = item.isNull() ? QJsonValue(QJsonValue::Null) : QJsonValue(item.toString());
        setLocalError(checkFieldValue(descriptor(), v));
        if (v == m_value)
            return;
        m_value = v;
        Q_EMIT committed(v);
    });
}

QWidget *EnumFieldEditor::editorWidget() const
{
    return m_combo;
}

void EnumFieldEditor::rebuild(const QString &extra)
{
    m_combo->clear();
    const auto &d = descriptor();
    if (!d.required || d.defaultValue.isString())
        m_combo->addItem(d.defaultValue.isString()
                             ? tr("(default: %1)").arg(d.defaultValue.toString())
                             : tr("(not set)"),
                         QVariant());
    for (const auto &c : d.choices)
        m_combo->addItem(c, c);
    // A file may hold a value that is not a choice: show it so that it can be seen and fixed.
    if (!extra.isEmpty())
        m_combo->addItem(extra, extra);
}

void EnumFieldEditor::setValue(const QJsonValue &value)
{
    m_value = value.isUndefined() ? QJsonValue(QJsonValue::Null) : value;
    const QString s = m_value.isString() ? m_value.toString() : QString();
    rebuild(!s.isEmpty() && !descriptor().choices.contains(s) ? s : QString());
    const int index = s.isEmpty() ? m_combo->findData(QVariant()) : m_combo->findData(s);
    m_combo->setCurrentIndex(std::max(index, 0));
    if (s.isEmpty() && descriptor().required && !descriptor().defaultValue.isString())
        m_combo->setCurrentIndex(-1);
    setLocalError(QString());
}

} // namespace tideline::widgets
