#pragma once
// Deletes nodes (with every edge touching them) and edges. redo() records what it removed
// with its index, undo() puts each back at the same index, so the file is restored exactly.

#include <tideline/engine/spec.hpp>

#include <QUndoCommand>

namespace tideline::designer {

class PipelineDocument;

class RemoveItemsCommand final : public QUndoCommand
{
public:
    RemoveItemsCommand(PipelineDocument &doc,
                       std::vector<std::string> nodeIds,
                       std::vector<EdgeSpec> edges,
                       QUndoCommand *parent = nullptr);

    void redo() override;
    void undo() override;

private:
    PipelineDocument &m_doc;
    std::vector<std::string> m_nodeIds;
    std::vector<EdgeSpec> m_edges;
    std::vector<std::pair<int, NodeSpec>> m_removedNodes; ///< ascending index
    std::vector<std::pair<int, EdgeSpec>> m_removedEdges; ///< ascending index
};

} // namespace tideline::designer
