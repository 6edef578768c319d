#include "connect_command.hpp"

#include "../pipeline_document.hpp"

#include <QCoreApplication>

namespace tideline::designer {

ConnectCommand::ConnectCommand(PipelineDocument &doc, EdgeSpec edge, QUndoCommand *parent)
    : QUndoCommand(parent)
    , m_doc(doc)
    , m_edge(std::move(edge))
{
    setText(QCoreApplication::translate("Commands", "Connect %1 → %2")
                .arg(QString::fromStdString(m_edge.from.str()),
                     QString::fromStdString(m_edge.to.str())));
}

void ConnectCommand::redo()
{
    m_doc.insertEdge(int(m_doc.spec().edges.size()), m_edge);
}

void ConnectCommand::undo()
{
    if (int i = m_doc.edgeIndex(m_edge); i >= 0)
        m_doc.removeEdgeAt(i);
}

} // namespace tideline::designer
