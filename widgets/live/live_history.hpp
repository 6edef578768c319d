#pragma once
// Everything the charts plot, kept at full resolution for the whole run: one point per
// snapshot per node and figure (x = seconds of processing time since the run started).
// Also derives per-node in/out rates from consecutive snapshots.

#include "live_types.hpp"

#include <QHash>
#include <QList>
#include <QPointF>
#include <QSet>
#include <QStringList>

namespace tideline::live {

enum class Figure { Watermark, MaxEventTime, OpenWindows, StateEntries, StateBytes, Late, Errors };

class LiveHistory
{
public:
    void clear();
    /// Records `s` and fills in each node's inRate/outRate (records/s over about 3 seconds).
    void append(Snapshot &s);

    QStringList nodes() const { return m_order; }
    QString kind(const QString &node) const { return m_kinds.value(node); }
    const QList<QPointF> &series(const QString &node, Figure f) const;
    /// Exact last watermark of a node as the engine reported it (kEnded when ended).
    std::optional<qint64> lastWatermark(const QString &node) const;
    std::optional<qint64> lastMaxEventTime(const QString &node) const;
    bool everHadState(const QString &node) const { return m_stateful.contains(node); }
    bool everLateOrErrors(const QString &node) const { return m_lateOrErrors.contains(node); }
    const QList<CheckpointFigures> &checkpoints() const { return m_checkpoints; }
    int snapshotCount() const { return m_count; }
    qint64 lastTakenAtMs() const { return m_lastTaken; }

private:
    struct NodeSeries
    {
        QList<QPointF> figures[7];
        std::optional<qint64> watermark;
        std::optional<qint64> maxEventTime;
    };
    struct RatePoint
    {
        qint64 t = 0;
        qint64 in = 0;
        qint64 out = 0;
    };
    QStringList m_order;
    QHash<QString, QString> m_kinds;
    QHash<QString, NodeSeries> m_series;
    QHash<QString, QList<RatePoint>> m_rates;
    QSet<QString> m_stateful;
    QSet<QString> m_lateOrErrors;
    QList<CheckpointFigures> m_checkpoints;
    int m_count = 0;
    qint64 m_lastTaken = -1;
};

} // namespace tideline::live
