#include "node_inspector.hpp"

#include "field_editor.hpp"
#include "line_field_editor.hpp"
#include "property_form.hpp"
#include "ui_scale.hpp"

#include <QLabel>
#include <QLineEdit>
#include <QScrollArea>
#include <QStackedWidget>
#include <QStyle>
#include <QVBoxLayout>

namespace tideline::widgets {

NodeInspector::NodeInspector(QWidget *parent)
    : QWidget(parent)
    , m_stack(new QStackedWidget(this))
    , m_empty(new QLabel(this))
    , m_title(new QLabel(this))
    , m_help(new QLabel(this))
    , m_idEdit(new QLineEdit(this))
    , m_renameWarning(new QLabel(this))
    , m_nodeProblem(new QLabel(this))
    , m_form(new PropertyForm(this))
{
    auto *outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->addWidget(m_stack);

    m_empty->setObjectName(QStringLiteral("inspectorEmpty"));
    m_empty->setAlignment(Qt::AlignCenter);
    m_empty->setWordWrap(true);
    m_stack->addWidget(m_empty);

    auto *scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    auto *page = new QWidget(scroll);
    page->setObjectName(QStringLiteral("inspectorPage"));
    auto *layout = new QVBoxLayout(page);
    layout->setContentsMargins(12, 10, 12, 12);
    layout->setSpacing(6);

    m_title->setObjectName(QStringLiteral("inspectorTitle"));
    m_title->setFont(relativeFont(3, true));
    m_help->setObjectName(QStringLiteral("fieldHelp"));
    m_help->setFont(relativeFont(-1));
    m_help->setWordWrap(true);
    layout->addWidget(m_title);
    layout->addWidget(m_help);

    auto *idLabel = new QLabel(tr("id"), page);
    idLabel->setObjectName(QStringLiteral("fieldName"));
    layout->addSpacing(4);
    layout->addWidget(idLabel);
    m_idEdit->setObjectName(QStringLiteral("nodeIdEdit"));
    layout->addWidget(m_idEdit);
    m_renameWarning->setObjectName(QStringLiteral("renameWarning"));
    m_renameWarning->setWordWrap(true);
    m_renameWarning->setVisible(false);
    layout->addWidget(m_renameWarning);
    m_nodeProblem->setObjectName(QStringLiteral("fieldProblem"));
    m_nodeProblem->setWordWrap(true);
    m_nodeProblem->setVisible(false);
    layout->addWidget(m_nodeProblem);

    auto *sep = new QFrame(page);
    sep->setFrameShape(QFrame::HLine);
    sep->setObjectName(QStringLiteral("separator"));
    layout->addWidget(sep);
    layout->addWidget(m_form);
    layout->addStretch(1);
    m_pageLayout = layout;
    scroll->setWidget(page);
    m_stack->addWidget(scroll);

    connect(m_idEdit, &QLineEdit::textEdited, this, &NodeInspector::onIdEdited);
    connect(m_idEdit, &QLineEdit::editingFinished, this, &NodeInspector::onIdFinished);
    connect(m_form, &PropertyForm::browseRequested, this, [this](const QString &name) {
        auto *e = qobject_cast<LineFieldEditor *>(m_form->editor(name));
        if (!e || !m_pathChooser)
            return;
        const QString picked = m_pathChooser(m_kind, name, e->value().toString());
        if (!picked.isEmpty())
            e->commitText(picked);
    });
    connect(m_form, &PropertyForm::valueEdited, this,
            [this](const QString &name, const QJsonValue &v) {
                Q_EMIT paramEdited(m_nodeId, name, v);
            });
    showNothing(tr("Select a node to edit it.\n\nDrag a node kind from the palette onto the "
                   "canvas to add one."));
}

void NodeInspector::showNode(const QString &id,
                             const QString &kind,
                             const QString &title,
                             const QString &help,
                             const QList<FieldDescriptor> &fields,
                             const QJsonObject &values)
{
    if (kind != m_kind || m_stack->currentIndex() != 1) {
        m_form->setFields(fields);
        m_kind = kind;
    }
    m_nodeId = id;
    m_title->setText(QStringLiteral("%1  <span style='color:#8a919c;font-weight:normal'>%2</span>")
                         .arg(title.toHtmlEscaped(), kind.toHtmlEscaped()));
    m_help->setText(help);
    if (!m_idEdit->hasFocus() || m_idEdit->text() == id) {
        m_idEdit->setText(id);
        onIdEdited(id);
    }
    m_form->setValues(values);
    m_stack->setCurrentIndex(1);
}

void NodeInspector::showNothing(const QString &message)
{
    m_nodeId.clear();
    m_kind.clear();
    m_empty->setText(message);
    m_stack->setCurrentIndex(0);
}

void NodeInspector::setProblems(const QHash<QString, QString> &problems, const QString &nodeProblem)
{
    m_form->setProblems(problems);
    m_nodeProblem->setText(nodeProblem);
    m_nodeProblem->setVisible(!nodeProblem.isEmpty());
}

bool NodeInspector::focusField(const QString &name)
{
    if (name.isEmpty() || name == QLatin1String("id")) {
        m_idEdit->setFocus(Qt::OtherFocusReason);
        return true;
    }
    return m_form->focusField(name);
}

void NodeInspector::addSection(QWidget *section)
{
    // Before the trailing stretch, so sections sit right under the form.
    m_pageLayout->insertWidget(m_pageLayout->count() - 1, section);
}

void NodeInspector::placeSection(QWidget *section, bool aboveForm)
{
    const int at = m_pageLayout->indexOf(section);
    if (at < 0)
        return;
    m_pageLayout->removeWidget(section);
    // Above: right under the id and its messages, before the separator line and the form.
    const int formAt = m_pageLayout->indexOf(m_form);
    m_pageLayout->insertWidget(aboveForm ? formAt - 1 : m_pageLayout->count() - 1, section);
}

void NodeInspector::onIdEdited(const QString &text)
{
    const bool renamed = text != m_nodeId;
    const QString problem = renamed && m_idChecker ? m_idChecker(m_nodeId, text) : QString();
    if (!problem.isEmpty())
        m_renameWarning->setText(problem);
    else if (renamed)
        m_renameWarning->setText(
            tr("Renaming changes the node's identity: state, metrics and checkpoints kept under "
               "\"%1\" will not carry over to \"%2\".")
                .arg(m_nodeId, text));
    m_renameWarning->setProperty("error", !problem.isEmpty());
    m_renameWarning->style()->unpolish(m_renameWarning);
    m_renameWarning->style()->polish(m_renameWarning);
    m_renameWarning->setVisible(renamed);
    m_idEdit->setProperty("invalid", !problem.isEmpty());
    m_idEdit->style()->unpolish(m_idEdit);
    m_idEdit->style()->polish(m_idEdit);
}

void NodeInspector::onIdFinished()
{
    const QString text = m_idEdit->text().trimmed();
    if (m_nodeId.isEmpty() || text == m_nodeId)
        return;
    if (m_idChecker && !m_idChecker(m_nodeId, text).isEmpty())
        return; // stays marked; the user fixes or reverts it
    Q_EMIT renameRequested(m_nodeId, text);
}

} // namespace tideline::widgets
