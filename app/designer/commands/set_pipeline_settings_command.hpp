#pragma once
// Replaces the pipeline's name, description and settings (checkpoints, state backend,
// delivery) in one undoable step; keeps both versions whole, so key order survives undo.

#include "../pipeline_document.hpp"

#include <QUndoCommand>

namespace tideline::designer {

class SetPipelineSettingsCommand final : public QUndoCommand
{
public:
    SetPipelineSettingsCommand(PipelineDocument &doc,
                               PipelineHeader after,
                               QUndoCommand *parent = nullptr);

    void redo() override;
    void undo() override;

private:
    PipelineDocument &m_doc;
    PipelineHeader m_before;
    PipelineHeader m_after;
};

} // namespace tideline::designer
