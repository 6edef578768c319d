// The publisher: the only state the loop shares with other threads besides the stop flag and
// the checkpoint module's own (checkpoint/coordinator.hpp). publish() builds a MetricsSnapshot
// on the loop thread (spec nodes in file order; a node run as partition tasks folds its
// instances together) and swaps it in under m_publishMutex; snapshot() copies it out from any
// thread. Checkpoint outcomes and the run's failure are published under the same mutex.

#include "runtime/runtime.hpp"

#include <algorithm>

namespace tideline {

void Runtime::publish(bool final)
{
    std::int64_t now = m_clock->nowMs();
    observe::MetricsSnapshot s;
    s.takenAtMs = now;
    // Before the run opens (Job::create publishes once) no processing time has passed yet: a
    // snapshot never pairs one clock reading with a start that is still to come.
    s.startedAtMs = m_opened ? m_startMs : now;
    s.recordsRead = m_recordsRead;
    s.restarts = m_restarts;
    double secs = static_cast<double>(now - s.startedAtMs) / 1000.0;
    s.eventsPerSecond = secs > 0 ? static_cast<double>(m_recordsRead) / secs : 0;
    s.nodes.reserve(m_spec.nodes.size());
    // Spec nodes only, in file order; a node run as partition tasks reports its instances'
    // figures folded together.
    for (std::size_t i = 0; i < m_spec.nodes.size(); ++i) {
        const Node &node = m_nodes[i];
        if (node.task.isTemplate) {
            observe::NodeMetrics m;
            publishTemplate(node, m);
            s.nodes.push_back(std::move(m));
            continue;
        }
        observe::NodeMetrics m = node.metrics;
        if (i < m_fateRows.size())
            m.fates = m_fateRows[i];
        Timestamp w = node.kind->isSink ? node.combinedIn : node.outW;
        if (w == kMinTime)
            m.watermark.reset();
        else
            m.watermark = w;
        if (m.inputs.empty() && !node.kind->isSource && !node.kind->assignsEventTime)
            appendInboundInputs(node, m.inputs);
        if (node.source)
            m.partitions = node.source->partitions();
        if (node.op)
            node.op->reportMetrics(m);
        s.nodes.push_back(std::move(m));
    }
    if (m_done || final)
        s.state = m_final == Job::Status::Finished  ? observe::JobState::Finished
                  : m_final == Job::Status::Stopped ? observe::JobState::Stopped
                  : m_final == Job::Status::Failed  ? observe::JobState::Failed
                                                    : observe::JobState::Running;
    else
        s.state = observe::JobState::Running;
    {
        std::lock_guard lock(m_publishMutex);
        s.failure = m_failure;
        s.lastCheckpoint = m_published.lastCheckpoint;
        s.checkpointHistory = m_published.checkpointHistory;
        m_published = s;
    }
    m_lastPublishMs = now;
    if (m_options.onMetrics && (final || now - m_lastCallbackMs >= m_options.metricsIntervalMs)) {
        m_lastCallbackMs = now;
        m_options.onMetrics(s);
    }
}

void Runtime::publishTemplate(const Node &templ, observe::NodeMetrics &m) const
{
    const TaskSection &sec = m_tasks[static_cast<std::size_t>(templ.task.section)];
    // Counted by instances since reset (partitions that left), then the live instances.
    m.recordsIn = templ.metrics.recordsIn;
    m.recordsOut = templ.metrics.recordsOut;
    m.late = templ.metrics.late;
    m.errors = templ.metrics.errors;
    m.duplicatesDropped = templ.metrics.duplicatesDropped;
    m.lateCauses = templ.metrics.lateCauses;
    m.errorCauses = templ.metrics.errorCauses;
    m.held = templ.metrics.held;
    auto addFates = [&m](const observe::FateCounts &row) {
        for (std::size_t f = 0; f < row.size(); ++f)
            m.fates[f] += row[f];
    };
    addFates(templ.metrics.fates); // instances since reset
    m.node = templ.spec->id;
    m.kind = templ.spec->kind;
    const bool watermarkKind = templ.kind->assignsEventTime;
    Timestamp w = kMaxTime;
    bool anyOwned = false;
    for (std::size_t p = 0; p < templ.task.instances.size(); ++p) {
        const Node &inst = m_nodes[static_cast<std::size_t>(templ.task.instances[p])];
        observe::NodeMetrics im = inst.metrics;
        if (inst.op)
            inst.op->reportMetrics(im);
        m.recordsIn += im.recordsIn;
        m.recordsOut += im.recordsOut;
        m.late += im.late;
        m.errors += im.errors;
        m.duplicatesDropped += im.duplicatesDropped;
        if (static_cast<std::size_t>(templ.task.instances[p]) < m_fateRows.size())
            addFates(m_fateRows[static_cast<std::size_t>(templ.task.instances[p])]);
        for (const auto &c : im.lateCauses)
            observe::addCause(m.lateCauses, c.first, c.second);
        for (const auto &c : im.errorCauses)
            observe::addCause(m.errorCauses, c.first, c.second);
        m.held += im.held;
        m.stateEntries += im.stateEntries;
        m.stateBytes += im.stateBytes;
        m.stateSpilled += im.stateSpilled;
        m.openWindows += im.openWindows;
        m.checksum += im.checksum;
        if (im.maxEventTime && (!m.maxEventTime || *im.maxEventTime > *m.maxEventTime))
            m.maxEventTime = im.maxEventTime;
        const bool owned = sec.owned[p] != 0;
        if (owned) {
            anyOwned = true;
            w = std::min(w, inst.outW);
        }
        if (watermarkKind) {
            // "Why is the watermark here": one line per partition, as with one instance.
            observe::InputWatermark iw;
            if (!im.inputs.empty())
                iw = im.inputs.front();
            iw.name = "partition " + std::to_string(p);
            iw.assigned = owned;
            iw.watermark.reset();
            if (owned && inst.task.ownW != kMinTime)
                iw.watermark = inst.task.ownW;
            iw.idle = !owned || inst.task.ownIdle;
            if (!owned)
                iw.idleSinceMs = iw.lastActivityMs = 0;
            m.inputs.push_back(std::move(iw));
        } else if (owned) {
            appendInboundInputs(inst, m.inputs);
        }
    }
    if (anyOwned && w != kMinTime)
        m.watermark = w;
}

void Runtime::appendInboundInputs(const Node &node, std::vector<observe::InputWatermark> &out) const
{
    for (const auto &in : node.inbound) {
        std::string name = node.kind->inputs[static_cast<std::size_t>(in.input)].name + " <- "
                           + m_nodes[static_cast<std::size_t>(in.fromNode)].spec->id;
        std::optional<std::int64_t> w;
        if (in.watermark != kMinTime)
            w = in.watermark;
        // The instances of one upstream node (partition tasks) show as one input: the
        // minimum over those not idle, idle when all are.
        auto same = std::find_if(out.begin(), out.end(),
                                 [&](const observe::InputWatermark &e) { return e.name == name; });
        if (same == out.end()) {
            observe::InputWatermark iw;
            iw.name = std::move(name);
            iw.watermark = w;
            iw.idle = in.idle;
            out.push_back(std::move(iw));
            continue;
        }
        if (in.idle)
            continue;
        if (same->idle)
            same->watermark = w;
        else if (!w || (same->watermark && *w < *same->watermark))
            same->watermark = w;
        same->idle = false;
    }
}

observe::MetricsSnapshot Runtime::snapshot() const
{
    std::lock_guard lock(m_publishMutex);
    return m_published;
}

void Runtime::recordCheckpoint(const observe::CheckpointInfo &info, std::size_t historyLimit)
{
    if (info.status == "completed")
        ++m_checkpointsCompleted;
    std::lock_guard lock(m_publishMutex);
    m_published.lastCheckpoint = info;
    auto &h = m_published.checkpointHistory;
    h.push_back(info);
    if (h.size() > historyLimit)
        h.erase(h.begin(), h.begin() + static_cast<std::ptrdiff_t>(h.size() - historyLimit));
}

void Runtime::fail(const std::string &message)
{
    std::lock_guard lock(m_publishMutex);
    if (m_failure.empty())
        m_failure = message;
}

std::string Runtime::failure() const
{
    std::lock_guard lock(m_publishMutex);
    return m_failure;
}

} // namespace tideline
