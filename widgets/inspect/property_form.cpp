#include "property_form.hpp"

#include "field_editor.hpp"

#include <QVBoxLayout>

namespace tideline::widgets {

PropertyForm::PropertyForm(QWidget *parent)
    : QWidget(parent)
    , m_layout(new QVBoxLayout(this))
{
    m_layout->setContentsMargins(0, 0, 0, 0);
    m_layout->setSpacing(2);
}

void PropertyForm::setFields(const QList<FieldDescriptor> &fields)
{
    qDeleteAll(m_order);
    m_order.clear();
    m_editors.clear();
    for (const auto &d : fields) {
        auto *e = FieldEditor::create(d, this);
        m_layout->addWidget(e);
        m_editors.insert(d.name, e);
        m_order.append(e);
        connect(e, &FieldEditor::committed, this,
                [this, name = d.name](const QJsonValue &v) { Q_EMIT valueEdited(name, v); });
        connect(e, &FieldEditor::browseRequested, this,
                [this, name = d.name] { Q_EMIT browseRequested(name); });
    }
}

void PropertyForm::setValues(const QJsonObject &values)
{
    for (auto *e : std::as_const(m_order)) {
        const FieldDescriptor &d = e->descriptor();
        e->setValue(values.value(d.name));
        if (!d.shownWhenField.isEmpty())
            e->setVisible(values.contains(d.name)
                          || d.shownWhenValues.contains(values.value(d.shownWhenField).toString()));
    }
}

void PropertyForm::setProblems(const QHash<QString, QString> &problems)
{
    for (auto *e : std::as_const(m_order))
        e->setProblem(problems.value(e->descriptor().name));
}

FieldEditor *PropertyForm::editor(const QString &name) const
{
    return m_editors.value(name);
}

bool PropertyForm::focusField(const QString &name)
{
    auto *e = m_editors.value(name);
    if (!e || !e->editorWidget())
        return false;
    e->editorWidget()->setFocus(Qt::OtherFocusReason);
    return true;
}

} // namespace tideline::widgets
