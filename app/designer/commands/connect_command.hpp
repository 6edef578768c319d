#pragma once

#include <tideline/engine/spec.hpp>

#include <QUndoCommand>

namespace tideline::designer {

class PipelineDocument;

/// Adds one edge (checked by the caller with checkNewEdge()).
class ConnectCommand final : public QUndoCommand
{
public:
    ConnectCommand(PipelineDocument &doc, EdgeSpec edge, QUndoCommand *parent = nullptr);

    void redo() override;
    void undo() override;

private:
    PipelineDocument &m_doc;
    EdgeSpec m_edge;
};

} // namespace tideline::designer
