#include "window_timeline_model.hpp"

#include "json_text.hpp"
#include "time_text.hpp"

#include <QJsonArray>
#include <QJsonDocument>

#include <algorithm>
#include <cmath>

namespace tideline::live {

namespace {

qint64 floorDiv(qint64 a, qint64 b)
{
    qint64 q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0)))
        --q;
    return q;
}

QJsonValue fieldAt(const QJsonObject &o, const QString &path)
{
    const QStringList parts = path.split(QLatin1Char('.'));
    QJsonValue cur = o;
    for (const QString &p : parts) {
        if (!cur.isObject())
            return QJsonValue(QJsonValue::Undefined);
        cur = cur.toObject().value(p);
    }
    return cur;
}

qint64 intParam(const QJsonObject &p, const char *name)
{
    return static_cast<qint64>(p.value(QLatin1String(name)).toDouble(0));
}

} // namespace

void WindowTimelineModel::configure(const NodeInfo &node)
{
    clear();
    m_node = node.id;
    const QJsonObject &p = node.params;
    const QString type = p.value(QLatin1String("type")).toString();
    m_type = type == QLatin1String("tumbling")  ? Type::Tumbling
             : type == QLatin1String("sliding") ? Type::Sliding
             : type == QLatin1String("session") ? Type::Session
                                                : Type::Unknown;
    m_size = intParam(p, "size_ms");
    m_slide = intParam(p, "slide_ms");
    if (m_type == Type::Tumbling || m_slide <= 0)
        m_slide = m_size;
    m_gap = intParam(p, "gap_ms");
    m_lateness = intParam(p, "allowed_lateness_ms");
    m_keyFields.clear();
    const QJsonValue key = p.value(QLatin1String("key"));
    if (key.isArray())
        for (const auto &k : key.toArray())
            m_keyFields << k.toString();
    else if (key.isString())
        m_keyFields << key.toString();
    m_aggNames.clear();
    for (const auto &a : p.value(QLatin1String("aggregates")).toArray()) {
        const QJsonObject ao = a.toObject();
        QString as = ao.value(QLatin1String("as")).toString();
        if (as.isEmpty())
            as = ao.value(QLatin1String("op")).toString();
        m_aggNames << as;
    }
}

void WindowTimelineModel::clear()
{
    m_watermark.reset();
    m_maxT.reset();
    m_windows.clear();
    m_dots.clear();
    m_keys.clear();
    m_keyIndex.clear();
    m_dotCounts[0] = m_dotCounts[1] = m_dotCounts[2] = 0;
    m_finalEmits = m_updateEmits = m_recordsIn = m_firedSeq = 0;
    m_forgottenWindows = m_forgottenDots = 0;
}

void WindowTimelineModel::setLimits(int maxWindows, int maxDots)
{
    m_maxWindows = std::max(16, maxWindows);
    m_maxDots = std::max(16, maxDots);
    trim();
}

QString WindowTimelineModel::describe(bool brief) const
{
    QString s;
    if (brief) {
        switch (m_type) {
        case Type::Tumbling:
            s = QStringLiteral("tumbling %1").arg(durationText(m_size));
            break;
        case Type::Sliding:
            s = QStringLiteral("sliding %1/%2").arg(durationText(m_size), durationText(m_slide));
            break;
        case Type::Session:
            s = QStringLiteral("session %1").arg(durationText(m_gap));
            break;
        case Type::Unknown:
            s = QStringLiteral("?");
            break;
        }
        if (m_lateness > 0)
            s += QStringLiteral(", +%1 late").arg(durationText(m_lateness));
        return s;
    }
    switch (m_type) {
    case Type::Tumbling:
        s = QStringLiteral("tumbling %1").arg(durationText(m_size));
        break;
    case Type::Sliding:
        s = QStringLiteral("sliding %1 every %2").arg(durationText(m_size), durationText(m_slide));
        break;
    case Type::Session:
        s = QStringLiteral("session, gap %1").arg(durationText(m_gap));
        break;
    case Type::Unknown:
        s = QStringLiteral("unknown window type");
        break;
    }
    if (m_lateness > 0)
        s += QStringLiteral(", allowed lateness %1").arg(durationText(m_lateness));
    if (!m_keyFields.isEmpty())
        s += QStringLiteral(", key ") + m_keyFields.join(QStringLiteral(", "));
    return s;
}

QString WindowTimelineModel::keyOf(const QJsonObject &record) const
{
    if (m_keyFields.isEmpty())
        return QStringLiteral("(all)");
    QStringList parts;
    for (const QString &f : m_keyFields)
        parts << jsonValueText(fieldAt(record, f));
    return parts.join(QStringLiteral(" | "));
}

bool WindowTimelineModel::closed(qint64 end, std::optional<qint64> w) const
{
    // Too late for a window when W >= end - 1 + L (its state is gone).
    return w && *w >= end - 1 + m_lateness;
}

void WindowTimelineModel::addRecord(const TappedRecord &r)
{
    if (r.node != m_node)
        return;
    if (r.input) {
        if (!r.eventTime)
            return;
        ++m_recordsIn;
        const qint64 t = *r.eventTime;
        const QJsonObject rec = QJsonDocument::fromJson(r.json.toUtf8()).object();
        const QString key = keyOf(rec);
        if (!m_keyIndex.contains(key)) {
            m_keyIndex.insert(key, static_cast<int>(m_keys.size()));
            m_keys.push_back(key);
        }
        if (!m_maxT || t > *m_maxT)
            m_maxT = t;
        TimelineDot d;
        d.t = t;
        d.key = key;
        d.watermark = r.watermark;
        d.seq = r.recordsRead;
        d.json = r.json;
        d.status
            = r.watermark && t <= *r.watermark ? TimelineDot::LateAccepted : TimelineDot::OnTime;
        m_dots.push_back(d);
        ++m_dotCounts[d.status];
        if (m_type == Type::Session)
            assignSession(key, t, r.watermark);
        else if (m_size > 0 && m_slide > 0)
            assign(key, t, r.watermark);
        trim();
        return;
    }
    if (r.role == TapRole::Late) {
        // The record just seen at the input went to `late`: too late for every window.
        if (!m_dots.empty() && m_dots.back().status != TimelineDot::TooLate) {
            --m_dotCounts[m_dots.back().status];
            m_dots.back().status = TimelineDot::TooLate;
            ++m_dotCounts[TimelineDot::TooLate];
        }
        return;
    }
    if (r.role == TapRole::Data)
        onOutput(QJsonDocument::fromJson(r.json.toUtf8()).object());
}

void WindowTimelineModel::assign(const QString &key, qint64 t, std::optional<qint64> w)
{
    // Every [k*p, k*p + s) containing t (tumbling: p == s).
    const qint64 last = floorDiv(t, m_slide);
    for (qint64 k = last; k * m_slide + m_size > t; --k) {
        const qint64 start = k * m_slide;
        const qint64 end = start + m_size;
        if (closed(end, w))
            continue;
        WindowKey wk{end, start, key};
        auto it = m_windows.find(wk);
        if (it == m_windows.end()) {
            TimelineWindow win;
            win.key = key;
            win.start = start;
            win.end = end;
            it = m_windows.insert(wk, win);
        }
        ++it->records;
    }
}

void WindowTimelineModel::assignSession(const QString &key, qint64 t, std::optional<qint64> w)
{
    if (closed(t + m_gap, w))
        return; // too late: its session [t, t + g) is already past end - 1 + L
    // [t, t + g) merges with every open session of the key it overlaps or touches.
    qint64 start = t, end = t + m_gap;
    int records = 1, parts = 1;
    QList<QPair<qint64, qint64>> ranges{{t, t + m_gap}};
    QList<WindowKey> merged;
    for (auto it = m_windows.begin(); it != m_windows.end(); ++it) {
        const TimelineWindow &open = it.value();
        if (open.key != key || open.state != TimelineWindow::Open)
            continue;
        if (open.start <= end && start <= open.end) {
            merged.push_back(it.key());
        }
    }
    for (const WindowKey &k : merged) {
        TimelineWindow part = m_windows.take(k);
        start = std::min(start, part.start);
        end = std::max(end, part.end);
        records += part.records;
        parts += part.parts;
        ranges += part.partRanges;
    }
    // A merge may make it touch further sessions; they were already merged with each other
    // when they touched, so one pass suffices for sessions the engine keeps disjoint.
    TimelineWindow win;
    win.key = key;
    win.start = start;
    win.end = end;
    win.records = records;
    win.parts = parts;
    std::sort(ranges.begin(), ranges.end());
    while (ranges.size() > 64)
        ranges.removeFirst();
    win.partRanges = ranges;
    m_windows.insert(WindowKey{end, start, key}, win);
}

void WindowTimelineModel::onOutput(const QJsonObject &o)
{
    if (!o.contains(QLatin1String("window_start")) || !o.contains(QLatin1String("window_end")))
        return;
    const qint64 start = static_cast<qint64>(o.value(QLatin1String("window_start")).toDouble());
    const qint64 end = static_cast<qint64>(o.value(QLatin1String("window_end")).toDouble());
    const bool update = o.value(QLatin1String("emit")).toString() == QLatin1String("update");
    const QString key = keyOf(o);
    (update ? m_updateEmits : m_finalEmits) += 1;
    QStringList result;
    for (const QString &a : m_aggNames)
        if (o.contains(a))
            result << a + '=' + jsonValueText(o.value(a));
    const WindowKey wk{end, start, key};
    TimelineWindow win;
    auto it = m_windows.find(wk);
    if (it != m_windows.end())
        win = m_windows.take(wk);
    else {
        win.key = key;
        win.start = start;
        win.end = end;
    }
    if (m_type == Type::Session) {
        // The session that fired covers every open bar of the key inside it.
        QList<WindowKey> covered;
        // An update may also have grown an already fired session: that bar is replaced too.
        for (auto jt = m_windows.begin(); jt != m_windows.end(); ++jt)
            if (jt->key == key && jt->start >= start && jt->end <= end)
                covered.push_back(jt.key());
        for (const WindowKey &k : covered) {
            // Open bars merge in; a fired bar being grown by an update keeps its history.
            TimelineWindow w = m_windows.take(k);
            win.records += w.records;
            win.parts += w.parts;
            win.partRanges += w.partRanges;
            win.updates += w.updates;
        }
        std::sort(win.partRanges.begin(), win.partRanges.end());
    }
    win.state = update ? TimelineWindow::Updated : TimelineWindow::Fired;
    if (update)
        ++win.updates;
    win.firedSeq = ++m_firedSeq;
    win.result = result.join(QStringLiteral(", "));
    if (!m_keyIndex.contains(key)) {
        m_keyIndex.insert(key, static_cast<int>(m_keys.size()));
        m_keys.push_back(key);
    }
    win.purged
        = m_lateness > 0 && m_watermark && *m_watermark != kEnded && closed(end, m_watermark);
    m_windows.insert(wk, win);
    trim();
}

void WindowTimelineModel::setWatermark(qint64 w)
{
    m_watermark = w;
    // Without lateness a window's state goes when it fires: "fired" says it all. The end of
    // input (W = +inf) closes everything at once: marking it all purged would hide nothing
    // new and grey out which windows fired and which were updated.
    if (m_lateness <= 0 || w == kEnded)
        return;
    for (auto it = m_windows.begin(); it != m_windows.end(); ++it) {
        if (it->end - 1 + m_lateness > w)
            break; // sorted by end
        if (it->state == TimelineWindow::Fired || it->state == TimelineWindow::Updated)
            it->purged = true;
    }
}

int WindowTimelineModel::windowCount(TimelineWindow::State s) const
{
    int n = 0;
    for (const auto &w : m_windows)
        n += s == TimelineWindow::Purged ? w.purged : w.state == s;
    return n;
}

QList<TimelineWindow> WindowTimelineModel::windowsAt(const QString &key, qint64 t) const
{
    QList<TimelineWindow> out;
    for (const auto &w : m_windows)
        if (w.key == key && w.start <= t && t < w.end)
            out.push_back(w);
    return out;
}

QList<QPair<qint64, qint64>> WindowTimelineModel::windowRangesFor(qint64 t) const
{
    QList<QPair<qint64, qint64>> out;
    if (m_type == Type::Session) {
        if (m_gap > 0)
            out.push_back({t, t + m_gap});
        return out;
    }
    if (m_size <= 0 || m_slide <= 0)
        return out;
    for (qint64 k = floorDiv(t, m_slide); k * m_slide + m_size > t; --k)
        out.push_front({k * m_slide, k * m_slide + m_size});
    return out;
}

void WindowTimelineModel::trim()
{
    while (static_cast<int>(m_dots.size()) > m_maxDots) {
        m_dots.pop_front();
        ++m_forgottenDots;
    }
    // Forget the oldest closed windows first; open ones are what people are watching.
    auto it = m_windows.begin();
    while (m_windows.size() > m_maxWindows && it != m_windows.end()) {
        if (it->state != TimelineWindow::Open) {
            it = m_windows.erase(it);
            ++m_forgottenWindows;
        } else
            ++it;
    }
}

} // namespace tideline::live
