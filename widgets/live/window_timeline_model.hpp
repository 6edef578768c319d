#pragma once
// Rebuilds what a window node is doing from the records tapped at it, for the timeline view:
// - input records become dots at their event time, classified on time / late but accepted
//   (behind the watermark, yet some window still takes it) / too late (sent to `late`);
// - windows a record is assigned to (tumbling and sliding from the node's params, sessions
//   from the records, merging as the engine does) are open until an output record with their
//   window_start/window_end arrives: then fired ("final") or updated ("update"); with allowed
//   lateness they are also marked purged once W >= end - 1 + L (closed for good: they keep
//   whether they fired or were updated; the end of input, W = +inf, purges nothing);
// - the node's input watermark.
// Output records are authoritative: a fired session replaces every open bar it covers.

#include "live_types.hpp"

#include <QHash>
#include <QList>
#include <QMap>
#include <QStringList>

#include <deque>
#include <optional>
#include <tuple>

namespace tideline::live {

struct TimelineDot
{
    enum Status { OnTime, LateAccepted, TooLate };
    qint64 t = 0;
    QString key;
    Status status = OnTime;
    std::optional<qint64> watermark; ///< at arrival
    qint64 seq = 0;
    QString json; ///< the record as it arrived (for the tooltip)
};

struct TimelineWindow
{
    /// Purged is not a state a window is in but a mark on a fired or updated one: count them
    /// with windowCount(Purged); `purged` says it of one window.
    enum State { Open, Fired, Updated, Purged };
    QString key;
    qint64 start = 0;
    qint64 end = 0;
    State state = Open;
    bool purged = false; ///< closed for good: later records for it go to `late`
    int records = 0;
    int updates = 0;
    int parts = 1;                           ///< sessions: how many record windows merged
    QList<QPair<qint64, qint64>> partRanges; ///< sessions: the bars it merged (bounded)
    qint64 firedSeq = -1;                    ///< ordinal of the firing (for highlights)
    QString result;                          ///< the aggregates of the last output, short
};

class WindowTimelineModel
{
public:
    enum class Type { Tumbling, Sliding, Session, Unknown };

    void configure(const NodeInfo &node);
    void clear();
    QString nodeId() const { return m_node; }
    Type type() const { return m_type; }
    qint64 size() const { return m_size; }
    qint64 slide() const { return m_slide; }
    qint64 gap() const { return m_gap; }
    qint64 lateness() const { return m_lateness; }
    QStringList keyFields() const { return m_keyFields; }
    /// "session, gap 30 s, allowed lateness 20 s, key user" (`brief`: "session 30 s, +20 s late").
    QString describe(bool brief = false) const;

    void addRecord(const TappedRecord &r);
    void setWatermark(qint64 w);
    std::optional<qint64> watermark() const { return m_watermark; }
    std::optional<qint64> maxEventTime() const { return m_maxT; }

    /// Windows sorted by (end, start, key).
    using WindowKey = std::tuple<qint64, qint64, QString>;
    const QMap<WindowKey, TimelineWindow> &windows() const { return m_windows; }
    const std::deque<TimelineDot> &dots() const { return m_dots; }
    QStringList keys() const { return m_keys; }

    /// Windows in state `s` (Open, Fired, Updated); for Purged, those marked purged.
    int windowCount(TimelineWindow::State s) const;
    /// The windows of `key` that contain event time `t` (what a record at t fell into).
    QList<TimelineWindow> windowsAt(const QString &key, qint64 t) const;
    /// The windows a record at `t` belongs to by the node's params, whether or not they exist
    /// (still) in the model: tumbling / sliding [start, end); a session [t, t + gap).
    QList<QPair<qint64, qint64>> windowRangesFor(qint64 t) const;
    int dotCount(TimelineDot::Status s) const { return m_dotCounts[s]; }
    qint64 finalEmits() const { return m_finalEmits; }
    qint64 updateEmits() const { return m_updateEmits; }
    qint64 recordsIn() const { return m_recordsIn; }
    qint64 firings() const { return m_firedSeq; }
    /// Bounded memory: how many windows / dots were forgotten (oldest first).
    qint64 forgottenWindows() const { return m_forgottenWindows; }
    qint64 forgottenDots() const { return m_forgottenDots; }
    void setLimits(int maxWindows, int maxDots);

private:
    QString keyOf(const QJsonObject &record) const;
    void assign(const QString &key, qint64 t, std::optional<qint64> w);
    void assignSession(const QString &key, qint64 t, std::optional<qint64> w);
    void onOutput(const QJsonObject &o);
    void trim();
    bool closed(qint64 end, std::optional<qint64> w) const;

    QString m_node;
    Type m_type = Type::Unknown;
    qint64 m_size = 0;
    qint64 m_slide = 0;
    qint64 m_gap = 0;
    qint64 m_lateness = 0;
    QStringList m_keyFields;
    QStringList m_aggNames;

    std::optional<qint64> m_watermark;
    std::optional<qint64> m_maxT;
    QMap<WindowKey, TimelineWindow> m_windows;
    std::deque<TimelineDot> m_dots;
    QStringList m_keys;
    QHash<QString, int> m_keyIndex;
    int m_dotCounts[3] = {0, 0, 0};
    qint64 m_finalEmits = 0;
    qint64 m_updateEmits = 0;
    qint64 m_recordsIn = 0;
    qint64 m_firedSeq = 0;
    qint64 m_forgottenWindows = 0;
    qint64 m_forgottenDots = 0;
    int m_maxWindows = 20000;
    int m_maxDots = 50000;
};

} // namespace tideline::live
