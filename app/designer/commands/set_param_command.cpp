#include "set_param_command.hpp"

#include "../pipeline_document.hpp"

#include <QCoreApplication>

namespace tideline::designer {

SetParamCommand::SetParamCommand(
    PipelineDocument &doc, std::string nodeId, std::string param, Json value, QUndoCommand *parent)
    : QUndoCommand(parent)
    , m_doc(doc)
    , m_nodeId(std::move(nodeId))
{
    const NodeSpec *n = doc.spec().node(m_nodeId);
    m_before = n && n->params.is_object() ? n->params : Json::object();
    m_after = m_before;
    if (value.is_null())
        m_after.erase(param);
    else
        m_after[param] = std::move(value);
    setText(QCoreApplication::translate("Commands", "Set %1.%2")
                .arg(QString::fromStdString(m_nodeId), QString::fromStdString(param)));
}

void SetParamCommand::redo()
{
    m_doc.setNodeParams(m_nodeId, m_after);
}

void SetParamCommand::undo()
{
    m_doc.setNodeParams(m_nodeId, m_before);
}

} // namespace tideline::designer
