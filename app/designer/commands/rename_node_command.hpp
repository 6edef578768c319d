#pragma once

#include <QUndoCommand>

#include <string>

namespace tideline::designer {

class PipelineDocument;

/// Renames a node and rewrites the edges that name it.
class RenameNodeCommand final : public QUndoCommand
{
public:
    RenameNodeCommand(PipelineDocument &doc,
                      std::string oldId,
                      std::string newId,
                      QUndoCommand *parent = nullptr);

    void redo() override;
    void undo() override;

private:
    PipelineDocument &m_doc;
    std::string m_old;
    std::string m_new;
};

} // namespace tideline::designer
