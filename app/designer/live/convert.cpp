#include "convert.hpp"

#include <tideline/engine/catalog.hpp>
#include <tideline/observe/balance.hpp>

#include <QJsonDocument>

namespace tideline::designer::live {

namespace L = tideline::live;

namespace {
QString q(const std::string &s)
{
    return QString::fromStdString(s);
}
L::CheckpointFigures toLive(const observe::CheckpointInfo &c)
{
    return {c.id, q(c.status), c.durationMs, c.bytes, c.timeMs, q(c.failureCause), q(c.kind)};
}
} // namespace

L::Snapshot toLive(const observe::MetricsSnapshot &s)
{
    L::Snapshot out;
    out.takenAtMs = s.takenAtMs;
    out.startedAtMs = s.startedAtMs;
    switch (s.state) {
    case observe::JobState::Created:
        out.state = QStringLiteral("Created");
        break;
    case observe::JobState::Running:
        out.state = QStringLiteral("Running");
        break;
    case observe::JobState::Paused:
        out.state = QStringLiteral("Paused");
        break;
    case observe::JobState::Finished:
        out.state = QStringLiteral("Finished");
        break;
    case observe::JobState::Failed:
        out.state = QStringLiteral("Failed");
        break;
    case observe::JobState::Stopped:
        out.state = QStringLiteral("Stopped");
        break;
    }
    out.recordsRead = s.recordsRead;
    out.eventsPerSecond = s.eventsPerSecond;
    out.nodes.reserve(static_cast<qsizetype>(s.nodes.size()));
    for (const auto &n : s.nodes) {
        L::NodeFigures f;
        f.node = q(n.node);
        f.kind = q(n.kind);
        f.recordsIn = n.recordsIn;
        f.recordsOut = n.recordsOut;
        f.late = n.late;
        f.errors = n.errors;
        f.duplicatesDropped = n.duplicatesDropped;
        for (std::size_t i = 0; i < observe::kFateCount; ++i)
            if (n.fates[i] != 0)
                f.accounted.append(
                    {q(std::string(observe::fateName(static_cast<observe::Fate>(i)))), n.fates[i]});
        for (const auto &c : n.lateCauses)
            f.lateByReason.append({q(c.first), c.second});
        for (const auto &c : n.errorCauses)
            f.errorsByReason.append({q(c.first), c.second});
        f.held = n.held;
        {
            const NodeKind *kind = findNodeKind(n.kind);
            const observe::Balance b = observe::balanceOf(n, kind && kind->isSource);
            f.balanced = b.holds;
            f.balanceText = q(b.text);
        }
        f.watermark = n.watermark;
        f.maxEventTime = n.maxEventTime;
        f.stateEntries = n.stateEntries;
        f.stateBytes = n.stateBytes;
        f.openWindows = n.openWindows;
        for (const auto &in : n.inputs)
            f.inputs.push_back({q(in.name), in.watermark, in.idle, in.idleSinceMs,
                                in.lastActivityMs, in.lag, in.assigned});
        out.nodes.push_back(std::move(f));
    }
    if (s.lastCheckpoint)
        out.lastCheckpoint = toLive(*s.lastCheckpoint);
    for (const auto &c : s.checkpointHistory)
        out.checkpointHistory.push_back(toLive(c));
    out.failure = q(s.failure);
    return out;
}

L::TappedRecord toLive(const observe::TapEvent &e)
{
    L::TappedRecord r;
    r.node = q(e.node);
    r.port = q(e.port);
    r.from = q(e.from);
    r.input = e.direction == observe::TapDirection::In;
    r.role = e.role == observe::TapPortRole::Late     ? L::TapRole::Late
             : e.role == observe::TapPortRole::Errors ? L::TapRole::Errors
                                                      : L::TapRole::Data;
    r.eventTime = e.eventTime;
    r.watermark = e.watermark;
    r.json = q(e.recordJson);
    r.reason = q(e.reason);
    r.raw = q(e.raw);
    r.recordsRead = e.recordsRead;
    r.processingTimeMs = e.processingTimeMs;
    return r;
}

L::WatermarkChange toLive(const observe::WatermarkTapEvent &e)
{
    return {q(e.node), e.which == observe::WatermarkTapEvent::Which::Input, e.watermark,
            e.recordsRead, e.processingTimeMs};
}

QList<L::NodeInfo> nodeInfos(const PipelineSpec &spec)
{
    QList<L::NodeInfo> out;
    for (const auto &n : spec.nodes) {
        L::NodeInfo info;
        info.id = q(n.id);
        info.kind = q(n.kind);
        info.params = QJsonDocument::fromJson(QByteArray::fromStdString(n.params.dump())).object();
        if (const NodeKind *k = findNodeKind(n.kind))
            for (const auto &p : k->outputs)
                info.outputs << q(p.name);
        out.push_back(std::move(info));
    }
    return out;
}

QList<L::EdgeInfo> edgeInfos(const PipelineSpec &spec)
{
    QList<L::EdgeInfo> out;
    for (const auto &e : spec.edges)
        out.push_back({q(e.from.node), q(e.from.port), q(e.to.node), q(e.to.port)});
    return out;
}

} // namespace tideline::designer::live
