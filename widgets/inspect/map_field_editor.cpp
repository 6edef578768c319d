#include "map_field_editor.hpp"

#include "field_checks.hpp"
#include "ui_scale.hpp"

#include <QEvent>
#include <QFontDatabase>
#include <QKeyEvent>
#include <QPlainTextEdit>

namespace tideline::widgets {

MapFieldEditor::MapFieldEditor(const FieldDescriptor &d, QWidget *parent)
    : FieldEditor(d, parent)
    , m_edit(new QPlainTextEdit(this))
    , m_value(QJsonValue::Null)
{
    m_edit->setObjectName(QStringLiteral("field:") + d.name);
    QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    mono.setPointSizeF(mono.pointSizeF() * UiScale::factor());
    m_edit->setFont(mono);
    m_edit->setPlaceholderText(d.type == FieldType::ExprMap ? tr("field = expression")
                                                            : tr("name = value"));
    m_edit->setTabChangesFocus(true);
    m_edit->setFixedHeight(84);
    m_edit->installEventFilter(this);
    setBody(m_edit);
    connect(m_edit, &QPlainTextEdit::textChanged, this, [this] {
        QString error;
        const QJsonValue v = parseFieldText(descriptor(), m_edit->toPlainText(), &error);
        setLocalError(v.isUndefined() ? error : QString());
    });
}

QWidget *MapFieldEditor::editorWidget() const
{
    return m_edit;
}

void MapFieldEditor::setValue(const QJsonValue &value)
{
    m_value = value.isUndefined() ? QJsonValue(QJsonValue::Null) : value;
    const QSignalBlocker block(m_edit);
    m_edit->setPlainText(fieldText(descriptor(), m_value));
    setLocalError(QString());
}

void MapFieldEditor::commit()
{
    QString error;
    const QJsonValue v = parseFieldText(descriptor(), m_edit->toPlainText(), &error);
    if (v.isUndefined()) {
        setLocalError(error);
        return;
    }
    if (v == m_value)
        return;
    m_value = v;
    Q_EMIT committed(v);
}

bool MapFieldEditor::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_edit) {
        if (event->type() == QEvent::FocusOut)
            commit();
        else if (event->type() == QEvent::KeyPress) {
            auto *key = static_cast<QKeyEvent *>(event);
            if ((key->key() == Qt::Key_Return || key->key() == Qt::Key_Enter)
                && (key->modifiers() & Qt::ControlModifier)) {
                commit();
                return true;
            }
        }
    }
    return FieldEditor::eventFilter(watched, event);
}

} // namespace tideline::widgets
