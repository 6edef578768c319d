#include "move_nodes_command.hpp"

#include "../pipeline_document.hpp"
#include "command_ids.hpp"

#include <QCoreApplication>

#include <cmath>

namespace tideline::designer {

MoveNodesCommand::MoveNodesCommand(PipelineDocument &doc,
                                   std::vector<std::string> ids,
                                   std::vector<QPointF> positions,
                                   int serial,
                                   QUndoCommand *parent)
    : QUndoCommand(parent)
    , m_doc(doc)
    , m_ids(std::move(ids))
    , m_new(std::move(positions))
    , m_serial(serial)
{
    for (const auto &id : m_ids) {
        const NodeSpec *n = doc.spec().node(id);
        m_oldUi.push_back(n ? n->ui : Json());
    }
    setText(m_ids.size() == 1
                ? QCoreApplication::translate("Commands", "Move %1")
                      .arg(QString::fromStdString(m_ids.front()))
                : QCoreApplication::translate("Commands", "Move %1 nodes").arg(m_ids.size()));
}

void MoveNodesCommand::redo()
{
    for (std::size_t i = 0; i < m_ids.size(); ++i) {
        Json ui = m_oldUi[i].is_object() ? m_oldUi[i] : Json::object();
        ui["x"] = std::int64_t(std::lround(m_new[i].x()));
        ui["y"] = std::int64_t(std::lround(m_new[i].y()));
        m_doc.setNodeUi(m_ids[i], ui);
    }
}

void MoveNodesCommand::undo()
{
    for (std::size_t i = 0; i < m_ids.size(); ++i)
        m_doc.setNodeUi(m_ids[i], m_oldUi[i]);
}

int MoveNodesCommand::id() const
{
    return m_serial < 0 ? -1 : CmdMoveNodes;
}

bool MoveNodesCommand::mergeWith(const QUndoCommand *other)
{
    const auto *o = static_cast<const MoveNodesCommand *>(other);
    if (o->m_serial != m_serial)
        return false;
    // A drag may add nodes to the moved set step by step (snapping): merge by id.
    for (std::size_t j = 0; j < o->m_ids.size(); ++j) {
        auto it = std::find(m_ids.begin(), m_ids.end(), o->m_ids[j]);
        if (it == m_ids.end()) {
            m_ids.push_back(o->m_ids[j]);
            m_oldUi.push_back(o->m_oldUi[j]);
            m_new.push_back(o->m_new[j]);
        } else {
            m_new[std::size_t(it - m_ids.begin())] = o->m_new[j];
        }
    }
    return true;
}

} // namespace tideline::designer
