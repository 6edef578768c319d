// What a click on the window timeline asks Trace a Record for (issue 16): a dot, the record's
// path from the node on (the record as it reached the node, which the engine's lineage matches
// against the rows that arrived there); a bar, the rows the node made for that pane, matched
// by its window bounds and its key's fields. The key's values come from a record of that key
// still in the model (the lane's key text is for people, not a value).

#include "time_text.hpp"
#include "window_timeline_view.hpp"

#include <QJsonDocument>
#include <QJsonObject>

namespace tideline::live {

namespace {

QJsonValue valueAt(const QJsonObject &record, const QString &path)
{
    if (record.contains(path))
        return record.value(path);
    const QStringList parts = path.split(QLatin1Char('.'));
    QJsonValue v = record;
    for (const QString &p : parts) {
        if (!v.isObject())
            return QJsonValue::Undefined;
        v = v.toObject().value(p);
    }
    return v;
}

/// Sets `path` ("bid.auction") in `o` as nested objects, as the engine writes its rows.
void setAt(QJsonObject &o, QStringList parts, const QJsonValue &v)
{
    const QString head = parts.takeFirst();
    if (parts.isEmpty()) {
        o.insert(head, v);
        return;
    }
    QJsonObject inner = o.value(head).toObject();
    setAt(inner, parts, v);
    o.insert(head, inner);
}

} // namespace

WindowTimelineView::TraceQuery WindowTimelineView::traceQueryFor(const TimelineDot &dot) const
{
    TraceQuery q;
    q.node = m_model ? m_model->nodeId() : QString();
    q.match = dot.json;
    q.label
        = tr("the record at %1 that reached `%2`: %3").arg(eventTimeText(dot.t), q.node, dot.json);
    return q;
}

WindowTimelineView::TraceQuery WindowTimelineView::traceQueryFor(const TimelineWindow &w) const
{
    TraceQuery q;
    q.node = m_model ? m_model->nodeId() : QString();
    q.made = true;
    QJsonObject pane{{QStringLiteral("window_start"), w.start},
                     {QStringLiteral("window_end"), w.end}};
    if (m_model)
        for (auto it = m_model->dots().crbegin(); it != m_model->dots().crend(); ++it) {
            if (it->key != w.key)
                continue;
            const QJsonObject record = QJsonDocument::fromJson(it->json.toUtf8()).object();
            for (const QString &f : m_model->keyFields())
                if (const QJsonValue v = valueAt(record, f); !v.isUndefined())
                    setAt(pane, f.split(QLatin1Char('.')), v);
            break;
        }
    q.match = QString::fromUtf8(QJsonDocument(pane).toJson(QJsonDocument::Compact));
    q.label = tr("the pane [%1, %2) of %3 at `%4`")
                  .arg(eventTimeText(w.start), eventTimeText(w.end), w.key, q.node);
    return q;
}

} // namespace tideline::live
