#include "set_pipeline_settings_command.hpp"

#include <QCoreApplication>

namespace tideline::designer {

SetPipelineSettingsCommand::SetPipelineSettingsCommand(PipelineDocument &doc,
                                                       PipelineHeader after,
                                                       QUndoCommand *parent)
    : QUndoCommand(parent)
    , m_doc(doc)
    , m_before(doc.header())
    , m_after(std::move(after))
{
    setText(QCoreApplication::translate("Commands", "Edit pipeline settings"));
}

void SetPipelineSettingsCommand::redo()
{
    m_doc.setHeader(m_after);
}

void SetPipelineSettingsCommand::undo()
{
    m_doc.setHeader(m_before);
}

} // namespace tideline::designer
