#include "add_nodes_command.hpp"

#include "../pipeline_document.hpp"

namespace tideline::designer {

AddNodesCommand::AddNodesCommand(PipelineDocument &doc,
                                 std::vector<NodeSpec> nodes,
                                 std::vector<EdgeSpec> edges,
                                 const QString &text,
                                 QUndoCommand *parent)
    : QUndoCommand(text, parent)
    , m_doc(doc)
    , m_nodes(std::move(nodes))
    , m_edges(std::move(edges))
{
}

void AddNodesCommand::redo()
{
    m_doc.beginBatch();
    for (const auto &n : m_nodes)
        m_doc.insertNode(int(m_doc.spec().nodes.size()), n);
    for (const auto &e : m_edges)
        m_doc.insertEdge(int(m_doc.spec().edges.size()), e);
    m_doc.endBatch();
}

void AddNodesCommand::undo()
{
    m_doc.beginBatch();
    for (auto it = m_edges.rbegin(); it != m_edges.rend(); ++it)
        if (int i = m_doc.edgeIndex(*it); i >= 0)
            m_doc.removeEdgeAt(i);
    for (auto it = m_nodes.rbegin(); it != m_nodes.rend(); ++it)
        if (int i = m_doc.spec().nodeIndex(it->id); i >= 0)
            m_doc.removeNodeAt(i);
    m_doc.endBatch();
}

} // namespace tideline::designer
