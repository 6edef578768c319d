#include "rename_node_command.hpp"

#include "../pipeline_document.hpp"

#include <QCoreApplication>

namespace tideline::designer {

RenameNodeCommand::RenameNodeCommand(PipelineDocument &doc,
                                     std::string oldId,
                                     std::string newId,
                                     QUndoCommand *parent)
    : QUndoCommand(parent)
    , m_doc(doc)
    , m_old(std::move(oldId))
    , m_new(std::move(newId))
{
    setText(QCoreApplication::translate("Commands", "Rename %1 to %2")
                .arg(QString::fromStdString(m_old), QString::fromStdString(m_new)));
}

void RenameNodeCommand::redo()
{
    m_doc.renameNode(m_old, m_new);
}

void RenameNodeCommand::undo()
{
    m_doc.renameNode(m_new, m_old);
}

} // namespace tideline::designer
