#include "object_list_field_editor.hpp"

#include "property_form.hpp"
#include "ui_scale.hpp"

#include <QFrame>
#include <QHBoxLayout>
#include <QJsonArray>
#include <QJsonObject>
#include <QLabel>
#include <QPushButton>
#include <QToolButton>
#include <QVBoxLayout>

namespace tideline::widgets {

ObjectListFieldEditor::ObjectListFieldEditor(const FieldDescriptor &d, QWidget *parent)
    : FieldEditor(d, parent)
    , m_box(new QWidget(this))
    , m_list(new QVBoxLayout)
    , m_add(new QPushButton(tr("+ Add"), m_box))
    , m_value(QJsonValue::Null)
{
    m_box->setObjectName(QStringLiteral("field:") + d.name);
    auto *outer = new QVBoxLayout(m_box);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->setSpacing(6);
    m_list->setSpacing(6);
    outer->addLayout(m_list);
    outer->addWidget(m_add, 0, Qt::AlignLeft);
    setBody(m_box);
    connect(m_add, &QPushButton::clicked, this, [this] {
        QJsonObject element;
        for (const auto &f : descriptor().fields)
            if (f.required && f.type == FieldType::Enum && !f.choices.isEmpty())
                element.insert(f.name, f.choices.first());
        QJsonArray arr = m_value.toArray();
        arr.append(element);
        commitArray(arr);
    });
}

QWidget *ObjectListFieldEditor::editorWidget() const
{
    return m_box;
}

int ObjectListFieldEditor::elementCount() const
{
    return m_forms.size();
}

PropertyForm *ObjectListFieldEditor::elementForm(int index) const
{
    return m_forms.value(index);
}

void ObjectListFieldEditor::setValue(const QJsonValue &value)
{
    const QJsonValue v = value.isUndefined() ? QJsonValue(QJsonValue::Null) : value;
    // The document echoes every commit back; rebuilding then would steal the user's focus.
    if (v == m_value && m_forms.size() == v.toArray().size())
        return;
    m_value = v;
    rebuild();
}

void ObjectListFieldEditor::commitArray(const QJsonArray &arr)
{
    m_value = arr;
    rebuild();
    Q_EMIT committed(arr);
}

void ObjectListFieldEditor::rebuild()
{
    // deleteLater: rebuild() runs from inside signals of the widgets being replaced.
    while (auto *item = m_list->takeAt(0)) {
        if (auto *w = item->widget()) {
            w->hide();
            w->deleteLater();
        }
        delete item;
    }
    m_forms.clear();
    const QJsonArray arr = m_value.toArray();
    for (int i = 0; i < arr.size(); ++i) {
        auto *frame = new QFrame(m_box);
        frame->setObjectName(QStringLiteral("listElement"));
        auto *layout = new QVBoxLayout(frame);
        layout->setContentsMargins(8, 4, 8, 4);
        auto *head = new QHBoxLayout;
        auto *label = new QLabel(QStringLiteral("#%1").arg(i + 1), frame);
        label->setObjectName(QStringLiteral("fieldHelp"));
        label->setFont(relativeFont(-1));
        auto *remove = new QToolButton(frame);
        remove->setText(QStringLiteral("✕"));
        remove->setToolTip(tr("Remove this element"));
        remove->setObjectName(QStringLiteral("removeElement"));
        head->addWidget(label);
        head->addStretch();
        head->addWidget(remove);
        layout->addLayout(head);
        auto *form = new PropertyForm(frame);
        form->setFields(descriptor().fields);
        form->setValues(arr.at(i).toObject());
        layout->addWidget(form);
        m_list->addWidget(frame);
        m_forms.append(form);
        connect(remove, &QToolButton::clicked, this, [this, i] {
            QJsonArray a = m_value.toArray();
            a.removeAt(i);
            commitArray(a);
        });
        connect(form, &PropertyForm::valueEdited, this,
                [this, i](const QString &name, const QJsonValue &v) {
                    QJsonArray a = m_value.toArray();
                    QJsonObject obj = a.at(i).toObject();
                    if (v.isNull() || v.isUndefined())
                        obj.remove(name);
                    else
                        obj.insert(name, v);
                    a.replace(i, obj);
                    // No rebuild: the user is typing in this element's form.
                    m_value = a;
                    Q_EMIT committed(a);
                });
    }
}

} // namespace tideline::widgets
