// The runtime's side of checkpoint::RuntimePort (checkpoint/runtime_port.hpp): what the
// checkpoint module may see and do of the job. The rules for a node's watermarks on capture
// and restore live with the watermarks (watermarks.cpp); this file only answers questions.

#include "runtime/runtime.hpp"
#include "state/state_backend.hpp"

namespace tideline {

void Runtime::log(const std::string &line) const
{
    if (m_options.log)
        m_options.log(line);
}

checkpoint::NodeInfo Runtime::nodeInfo(int v) const
{
    const Node &node = m_nodes[static_cast<std::size_t>(v)];
    checkpoint::NodeInfo info;
    info.id = node.id;
    info.spec = node.spec;
    info.kind = node.kind;
    info.isTemplate = node.task.isTemplate;
    info.section = node.task.section;
    info.partition = node.task.partition;
    return info;
}

checkpoint::SectionInfo Runtime::section(int s) const
{
    const TaskSection &sec = m_tasks[static_cast<std::size_t>(s)];
    checkpoint::SectionInfo info;
    info.source = sec.source;
    info.partitions = sec.partitions;
    info.templates = sec.templates;
    info.owned = sec.owned;
    info.suspendedAt = sec.suspendedAt;
    return info;
}

int Runtime::instance(int templ, int p) const
{
    return m_nodes[static_cast<std::size_t>(templ)].task.instances[static_cast<std::size_t>(p)];
}

std::map<int, std::int64_t> Runtime::taskPositions(int s) const
{
    const int source = m_tasks[static_cast<std::size_t>(s)].source;
    return m_nodes[static_cast<std::size_t>(source)].source->taskPositions();
}

Status Runtime::configureState(const std::string &checkpointDir)
{
    m_stateBackend = std::make_unique<state::StateBackend>(m_spec.settings, checkpointDir);
    int stateful = 0;
    for (Node &node : m_nodes) {
        if (!node.op || !state::isStateful(*node.op))
            continue;
        if (Status s = m_stateBackend->configure(node.id, *node.op); !s.ok())
            return s;
        ++stateful;
    }
    if (std::string line = m_stateBackend->describe(stateful); !line.empty() && m_options.log)
        m_options.log(line);
    return {};
}

void Runtime::logSpillSummary()
{
    if (!m_options.log)
        return;
    for (const Node &node : m_nodes)
        if (node.op)
            if (auto line = state::spillSummary(node.id, *node.op))
                m_options.log(*line);
}

} // namespace tideline
