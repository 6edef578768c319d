#include "field_editor.hpp"

#include "bool_field_editor.hpp"
#include "enum_field_editor.hpp"
#include "line_field_editor.hpp"
#include "map_field_editor.hpp"
#include "object_field_editor.hpp"
#include "object_list_field_editor.hpp"
#include "ui_scale.hpp"

#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QStyle>
#include <QVBoxLayout>

namespace tideline::widgets {

FieldEditor *FieldEditor::create(const FieldDescriptor &d, QWidget *parent)
{
    switch (d.type) {
    case FieldType::Bool:
        return new BoolFieldEditor(d, parent);
    case FieldType::Enum:
        return new EnumFieldEditor(d, parent);
    case FieldType::ExprMap:
    case FieldType::StringMap:
        return new MapFieldEditor(d, parent);
    case FieldType::Object:
        return new ObjectFieldEditor(d, parent);
    case FieldType::ObjectList:
        return new ObjectListFieldEditor(d, parent);
    default:
        return new LineFieldEditor(d, parent);
    }
}

FieldEditor::FieldEditor(const FieldDescriptor &descriptor, QWidget *parent)
    : QWidget(parent)
    , m_descriptor(descriptor)
    , m_layout(new QVBoxLayout(this))
    , m_message(new QLabel(this))
{
    setObjectName(QStringLiteral("fieldRow:") + descriptor.name);
    m_layout->setContentsMargins(0, 4, 0, 6);
    m_layout->setSpacing(3);

    auto *name = new QLabel(this);
    name->setObjectName(QStringLiteral("fieldName"));
    QString title = descriptor.name.toHtmlEscaped();
    if (descriptor.required)
        title += QStringLiteral(" <span style='color:#f0b429'>*</span>");
    if (!descriptor.defaultValue.isNull() && !descriptor.defaultValue.isObject()
        && descriptor.type != FieldType::Bool) {
        QString def = descriptor.defaultValue.isString()
                          ? descriptor.defaultValue.toString()
                          : QString::fromUtf8(QJsonDocument(QJsonArray{descriptor.defaultValue})
                                                  .toJson(QJsonDocument::Compact))
                                .mid(1)
                                .chopped(1);
        if (!def.isEmpty())
            title += QStringLiteral(" <span style='color:#8a919c'>(default %1)</span>")
                         .arg(def.toHtmlEscaped());
    }
    name->setText(title);
    name->setToolTip(descriptor.help);
    m_layout->addWidget(name);

    m_message->setObjectName(QStringLiteral("fieldProblem"));
    m_message->setWordWrap(true);
    m_message->setVisible(false);
    m_layout->addWidget(m_message);

    if (!descriptor.help.isEmpty()) {
        auto *help = new QLabel(descriptor.help, this);
        help->setObjectName(QStringLiteral("fieldHelp"));
        help->setFont(relativeFont(-1));
        help->setWordWrap(true);
        m_layout->addWidget(help);
    }
}

void FieldEditor::setBody(QWidget *body)
{
    // Editor goes between the name and the problem line.
    m_layout->insertWidget(1, body);
}

void FieldEditor::setProblem(const QString &message)
{
    m_problem = message;
    updateMark();
}

void FieldEditor::setLocalError(const QString &message)
{
    m_localError = message;
    updateMark();
}

QString FieldEditor::shownProblem() const
{
    return m_localError.isEmpty() ? m_problem : m_localError;
}

bool FieldEditor::isMarkedInvalid() const
{
    return editorWidget() && editorWidget()->property("invalid").toBool();
}

void FieldEditor::updateMark()
{
    const QString problem = shownProblem();
    m_message->setText(problem);
    m_message->setVisible(!problem.isEmpty());
    if (QWidget *w = editorWidget()) {
        if (w->property("invalid").toBool() != !problem.isEmpty()) {
            w->setProperty("invalid", !problem.isEmpty());
            w->style()->unpolish(w);
            w->style()->polish(w);
            w->update();
        }
    }
}

} // namespace tideline::widgets
