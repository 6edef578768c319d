#include "operators/window/mode_window.hpp"

#include "semantics/semantics.hpp"

#include <algorithm>
#include <numeric>

namespace tideline::window {

ModeWindowBase::ModeWindowBase(const OperatorContext &ctx, WindowConfig cfg)
    : WindowOperatorBase(ctx, std::move(cfg))
{
    if (ctx.semantics)
        m_delay = ctx.semantics->delayOf(ctx.spec.id);
}

std::string ModeWindowBase::stateFingerprint() const
{
    return "mode-" + WindowOperatorBase::stateFingerprint();
}

void ModeWindowBase::reportMetrics(observe::NodeMetrics &m) const
{
    std::int64_t entries = 0;
    for (const auto &[id, t] : m_windows)
        entries += static_cast<std::int64_t>(t.size());
    std::int64_t sessions = 0;
    for (const auto &[k, list] : m_sessions)
        sessions += static_cast<std::int64_t>(list.size());
    m.stateEntries = entries + sessions;
    m.openWindows = static_cast<std::int64_t>(m_windows.size()) + sessions;
    m.stateBytes = (entries + sessions) * static_cast<std::int64_t>(64 + 32 * m_aggs.size());
    m.errors += m_ignoredValues;
}

void ModeWindowBase::fold(ModeCell &c, const Record &rec)
{
    if (c.acc.empty())
        c.acc.resize(m_aggs.size());
    m_ignoredValues += m_aggs.add(rec, c.acc.data());
    c.dirty = true;
}

void ModeWindowBase::emitRows(std::vector<Row> &rows, Output &out)
{
    if (rows.empty())
        return;
    m_order.resize(rows.size());
    std::iota(m_order.begin(), m_order.end(), 0u);
    m_keys.resize(rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i)
        m_keys[i] = rows[i].key;
    sortByKey(m_order, m_keys);
    std::stable_sort(m_order.begin(), m_order.end(), [&](std::uint32_t a, std::uint32_t b) {
        return std::tie(rows[a].end, rows[a].start) < std::tie(rows[b].end, rows[b].start);
    });
    for (std::uint32_t i : m_order)
        emitResult(rows[i].start, rows[i].end, rows[i].key, rows[i].acc, rows[i].kind, out);
    rows.clear();
}

Json paramsForEngine(const Json &params, semantics::Engine engine, bool &recordAligned)
{
    recordAligned = engine == semantics::Engine::KafkaStreams && params.is_object()
                    && params.value("type", "") == "sliding" && !params.contains("slide_ms");
    if (!recordAligned)
        return params;
    Json p = params;
    p["slide_ms"] = params.value("size_ms", Json(1));
    return p;
}

std::vector<std::pair<Timestamp, Timestamp>>
alignedWindowsOf(Timestamp t, Timestamp size, Timestamp slide)
{
    std::vector<std::pair<Timestamp, Timestamp>> w;
    Timestamp r = t % slide;
    if (r < 0)
        r += slide;
    const Timestamp lastStart = satSub(t, r);
    for (Timestamp s = lastStart; satAdd(s, size) > t; s = satSub(s, slide)) {
        w.emplace_back(s, satAdd(s, size));
        if (s == kMinTime)
            break;
    }
    std::reverse(w.begin(), w.end());
    return w;
}

} // namespace tideline::window
