#include "object_field_editor.hpp"

#include "property_form.hpp"

#include <QJsonObject>

namespace tideline::widgets {

ObjectFieldEditor::ObjectFieldEditor(const FieldDescriptor &d, QWidget *parent)
    : FieldEditor(d, parent)
    , m_form(new PropertyForm(this))
    , m_value(QJsonValue::Null)
{
    m_form->setObjectName(QStringLiteral("field:") + d.name);
    m_form->setProperty("nested", true);
    m_form->setFields(d.fields);
    setBody(m_form);
    connect(m_form, &PropertyForm::valueEdited, this,
            [this](const QString &name, const QJsonValue &v) {
                QJsonObject obj = m_value.toObject();
                if (v.isNull() || v.isUndefined())
                    obj.remove(name);
                else
                    obj.insert(name, v);
                m_value = obj;
                Q_EMIT committed(obj);
            });
}

QWidget *ObjectFieldEditor::editorWidget() const
{
    return m_form;
}

void ObjectFieldEditor::setValue(const QJsonValue &value)
{
    m_value = value.isUndefined() ? QJsonValue(QJsonValue::Null) : value;
    m_form->setValues(m_value.toObject());
}

void ObjectFieldEditor::setProblem(const QString &message)
{
    // "max_delay_ms: must be >= 0" goes to the sub-field; anything else stays on the group.
    const int colon = message.indexOf(QLatin1String(": "));
    if (colon > 0 && m_form->editor(message.left(colon))) {
        m_form->setProblems({{message.left(colon), message.mid(colon + 2)}});
        FieldEditor::setProblem(QString());
        return;
    }
    m_form->setProblems({});
    FieldEditor::setProblem(message);
}

} // namespace tideline::widgets
