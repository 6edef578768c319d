#pragma once
// Sets (or, with a null value, removes) one param of one node. Keeps the whole params object
// before and after, so key order is restored exactly on undo (files diff cleanly).

#include <tideline/engine/spec.hpp>

#include <QUndoCommand>

namespace tideline::designer {

class PipelineDocument;

class SetParamCommand final : public QUndoCommand
{
public:
    SetParamCommand(PipelineDocument &doc,
                    std::string nodeId,
                    std::string param,
                    Json value,
                    QUndoCommand *parent = nullptr);

    void redo() override;
    void undo() override;

private:
    PipelineDocument &m_doc;
    std::string m_nodeId;
    Json m_before;
    Json m_after;
};

} // namespace tideline::designer
