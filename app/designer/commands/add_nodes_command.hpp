#pragma once
// Adds nodes and edges (a new node from the palette, a paste, a duplicate).
// Holds values only; appends in redo(), removes exactly those in undo().

#include <tideline/engine/spec.hpp>

#include <QUndoCommand>

namespace tideline::designer {

class PipelineDocument;

class AddNodesCommand final : public QUndoCommand
{
public:
    AddNodesCommand(PipelineDocument &doc,
                    std::vector<NodeSpec> nodes,
                    std::vector<EdgeSpec> edges,
                    const QString &text,
                    QUndoCommand *parent = nullptr);

    void redo() override;
    void undo() override;

private:
    PipelineDocument &m_doc;
    std::vector<NodeSpec> m_nodes;
    std::vector<EdgeSpec> m_edges;
};

} // namespace tideline::designer
