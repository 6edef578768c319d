#include "line_field_editor.hpp"

#include "field_checks.hpp"

#include <QFontDatabase>
#include <QLineEdit>

namespace tideline::widgets {

LineFieldEditor::LineFieldEditor(const FieldDescriptor &d, QWidget *parent)
    : FieldEditor(d, parent)
    , m_edit(new QLineEdit(this))
    , m_value(QJsonValue::Null)
{
    m_edit->setObjectName(QStringLiteral("field:") + d.name);
    if (d.type == FieldType::Expr)
        m_edit->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    if (!d.defaultValue.isNull())
        m_edit->setPlaceholderText(fieldText(d, d.defaultValue));
    else if (d.type == FieldType::StringList)
        m_edit->setPlaceholderText(tr("field, field, …"));
    else if (d.secret)
        m_edit->setPlaceholderText(QStringLiteral("${env:NAME}"));
    setBody(m_edit);
    connect(m_edit, &QLineEdit::textEdited, this, &LineFieldEditor::onEdited);
    connect(m_edit, &QLineEdit::editingFinished, this, &LineFieldEditor::onFinished);
}

QWidget *LineFieldEditor::editorWidget() const
{
    return m_edit;
}

void LineFieldEditor::setValue(const QJsonValue &value)
{
    m_value = value.isUndefined() ? QJsonValue(QJsonValue::Null) : value;
    m_edit->setText(fieldText(descriptor(), m_value));
    setLocalError(QString());
}

void LineFieldEditor::onEdited(const QString &text)
{
    QString error;
    const QJsonValue v = parseFieldText(descriptor(), text, &error);
    setLocalError(v.isUndefined() ? error : checkFieldValue(descriptor(), v));
}

void LineFieldEditor::onFinished()
{
    QString error;
    const QJsonValue v = parseFieldText(descriptor(), m_edit->text(), &error);
    if (v.isUndefined()) {
        setLocalError(error); // unparseable text is never committed
        return;
    }
    // Out-of-range values are committed: the document then holds what the user typed and the
    // problems panel lists it, instead of silently dropping the edit.
    setLocalError(QString());
    if (v == m_value)
        return;
    m_value = v;
    Q_EMIT committed(v);
}

} // namespace tideline::widgets
