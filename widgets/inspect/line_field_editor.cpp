#include "line_field_editor.hpp"

#include "field_checks.hpp"
#include "ui_scale.hpp"

#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QToolButton>

namespace tideline::widgets {

LineFieldEditor::LineFieldEditor(const FieldDescriptor &d, QWidget *parent)
    : FieldEditor(d, parent)
    , m_edit(new QLineEdit(this))
    , m_value(QJsonValue::Null)
{
    m_edit->setObjectName(QStringLiteral("field:") + d.name);
    if (d.type == FieldType::Expr) {
        QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
        mono.setPointSizeF(mono.pointSizeF() * UiScale::factor());
        m_edit->setFont(mono);
    }
    if (!d.defaultValue.isNull())
        m_edit->setPlaceholderText(fieldText(d, d.defaultValue));
    else if (d.type == FieldType::StringList)
        m_edit->setPlaceholderText(tr("field, field, …"));
    else if (d.secret)
        m_edit->setPlaceholderText(QStringLiteral("${env:NAME}"));
    if (d.type == FieldType::Path) {
        // A picker beside the path (relative to the pipeline's folder once picked).
        auto *row = new QWidget(this);
        auto *h = new QHBoxLayout(row);
        h->setContentsMargins(0, 0, 0, 0);
        h->setSpacing(4);
        auto *browse = new QToolButton(row);
        browse->setObjectName(QStringLiteral("browse:") + d.name);
        browse->setText(tr("Browse…"));
        browse->setToolTip(tr("Choose the file"));
        h->addWidget(m_edit, 1);
        h->addWidget(browse);
        connect(browse, &QToolButton::clicked, this, &FieldEditor::browseRequested);
        setBody(row);
    } else
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

void LineFieldEditor::commitText(const QString &text)
{
    m_edit->setText(text);
    onFinished();
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
