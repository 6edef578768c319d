#pragma once
// Moves nodes (layout `ui` {x, y}). All steps of one drag carry the same serial and merge into
// one undo entry; positions are whole numbers so that files stay tidy.

#include <tideline/engine/spec.hpp>

#include <QPointF>
#include <QUndoCommand>

namespace tideline::designer {

class PipelineDocument;

class MoveNodesCommand final : public QUndoCommand
{
public:
    /// `serial` < 0 never merges (auto layout).
    MoveNodesCommand(PipelineDocument &doc,
                     std::vector<std::string> ids,
                     std::vector<QPointF> positions,
                     int serial,
                     QUndoCommand *parent = nullptr);

    void redo() override;
    void undo() override;
    int id() const override;
    bool mergeWith(const QUndoCommand *other) override;

private:
    PipelineDocument &m_doc;
    std::vector<std::string> m_ids;
    std::vector<Json> m_oldUi;
    std::vector<QPointF> m_new;
    int m_serial;
};

} // namespace tideline::designer
