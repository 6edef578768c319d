#include "remove_items_command.hpp"

#include "../pipeline_document.hpp"

#include <QCoreApplication>

#include <algorithm>

namespace tideline::designer {

RemoveItemsCommand::RemoveItemsCommand(PipelineDocument &doc,
                                       std::vector<std::string> nodeIds,
                                       std::vector<EdgeSpec> edges,
                                       QUndoCommand *parent)
    : QUndoCommand(parent)
    , m_doc(doc)
    , m_nodeIds(std::move(nodeIds))
    , m_edges(std::move(edges))
{
    if (m_nodeIds.empty())
        setText(m_edges.size() == 1 ? QCoreApplication::translate("Commands", "Disconnect")
                                    : QCoreApplication::translate("Commands", "Disconnect %1 edges")
                                          .arg(m_edges.size()));
    else
        setText(
            m_nodeIds.size() == 1
                ? QCoreApplication::translate("Commands", "Delete %1")
                      .arg(QString::fromStdString(m_nodeIds.front()))
                : QCoreApplication::translate("Commands", "Delete %1 nodes").arg(m_nodeIds.size()));
}

void RemoveItemsCommand::redo()
{
    const PipelineSpec &spec = m_doc.spec();
    auto isRemovedNode = [&](const std::string &id) {
        return std::find(m_nodeIds.begin(), m_nodeIds.end(), id) != m_nodeIds.end();
    };
    m_removedEdges.clear();
    m_removedNodes.clear();
    for (std::size_t i = 0; i < spec.edges.size(); ++i) {
        const EdgeSpec &e = spec.edges[i];
        if (isRemovedNode(e.from.node) || isRemovedNode(e.to.node)
            || std::find(m_edges.begin(), m_edges.end(), e) != m_edges.end())
            m_removedEdges.emplace_back(int(i), e);
    }
    for (std::size_t i = 0; i < spec.nodes.size(); ++i)
        if (isRemovedNode(spec.nodes[i].id))
            m_removedNodes.emplace_back(int(i), spec.nodes[i]);

    m_doc.beginBatch();
    for (auto it = m_removedEdges.rbegin(); it != m_removedEdges.rend(); ++it)
        m_doc.removeEdgeAt(it->first);
    for (auto it = m_removedNodes.rbegin(); it != m_removedNodes.rend(); ++it)
        m_doc.removeNodeAt(it->first);
    m_doc.endBatch();
}

void RemoveItemsCommand::undo()
{
    m_doc.beginBatch();
    for (const auto &[index, node] : m_removedNodes)
        m_doc.insertNode(index, node);
    for (const auto &[index, edge] : m_removedEdges)
        m_doc.insertEdge(index, edge);
    m_doc.endBatch();
}

} // namespace tideline::designer
