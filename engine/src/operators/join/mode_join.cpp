#include "operators/join/mode_join.hpp"

#include "operators/keys/params.hpp"
#include "operators/params.hpp"

#include <algorithm>
#include <vector>

namespace tideline::join {

ModeJoinBase::ModeJoinBase(ModeJoinParams p)
    : m_p(std::move(p))
{
    m_enc[kModeLeft] = keys::KeyEncoder(m_p.leftKey);
    m_enc[kModeRight] = keys::KeyEncoder(m_p.rightKey);
}

void ModeJoinBase::reportMetrics(observe::NodeMetrics &m) const
{
    m.stateEntries = static_cast<std::int64_t>(m_live);
    m.held = static_cast<std::int64_t>(m_live);
    // A rough figure (the records are kept as Records, not measured one by one).
    m.stateBytes = static_cast<std::int64_t>(m_live) * 160;
}

bool ModeJoinBase::encodeKey(int side, const Record &r)
{
    return m_enc[side].encode(r, m_key);
}

bool ModeJoinBase::inBounds(Timestamp lt, Timestamp rt) const
{
    return satAdd(lt, m_p.lower) <= rt && rt <= satAdd(lt, m_p.upper);
}

void ModeJoinBase::emitPair(const Record &l, const Record &r, Output &out)
{
    Record o;
    o.appendNested("left", l);
    o.appendNested("right", r);
    o.time = std::max(l.time, r.time);
    out.account(observe::Fate::JoinPair);
    out.emit(std::move(o));
}

void ModeJoinBase::emitUnmatched(const Record &l, Output &out)
{
    Record o;
    o.appendNested("left", l);
    o.append("right", Value::null());
    o.time = l.time;
    out.account(observe::Fate::JoinUnmatchedRow);
    out.emit(std::move(o));
}

void ModeJoinBase::store(int side, std::uint64_t seq, Record &&rec, bool matched)
{
    ModeEntry &e = m_state[side][m_key][seq];
    e.rec = std::move(rec);
    e.matched = matched;
    ++m_live;
}

Record ModeJoinBase::remove(int side, const std::string &key, std::uint64_t seq, Output &out)
{
    auto b = m_state[side].find(key);
    Record rec;
    if (b == m_state[side].end())
        return rec;
    auto e = b->second.find(seq);
    if (e == b->second.end())
        return rec;
    out.account(e->second.matched ? observe::Fate::JoinMatched : observe::Fate::JoinUnmatched);
    rec = std::move(e->second.rec);
    b->second.erase(e);
    if (b->second.empty())
        m_state[side].erase(b);
    --m_live;
    return rec;
}

void ModeJoinBase::snapshotSides(StateWriter &w) const
{
    w.u64(m_seq);
    for (int side : {kModeLeft, kModeRight}) {
        std::vector<const SideState::value_type *> keys;
        keys.reserve(m_state[side].size());
        for (const auto &kv : m_state[side])
            keys.push_back(&kv);
        std::sort(keys.begin(), keys.end(),
                  [](const auto *a, const auto *b) { return a->first < b->first; });
        w.u64(keys.size());
        for (const auto *kv : keys) {
            w.str(kv->first);
            w.u64(kv->second.size());
            for (const auto &[seq, e] : kv->second) {
                w.u64(seq);
                w.u8(e.matched ? 1 : 0);
                w.record(e.rec);
            }
        }
    }
}

bool ModeJoinBase::restoreSides(StateReader &r)
{
    m_state[kModeLeft].clear();
    m_state[kModeRight].clear();
    m_live = 0;
    m_seq = r.u64();
    for (int side : {kModeLeft, kModeRight}) {
        const std::uint64_t keys = r.u64();
        for (std::uint64_t k = 0; k < keys && !r.failed(); ++k) {
            const std::string key = r.str();
            const std::uint64_t n = r.u64();
            for (std::uint64_t i = 0; i < n && !r.failed(); ++i) {
                const std::uint64_t seq = r.u64();
                ModeEntry &e = m_state[side][key][seq];
                e.matched = r.u8() != 0;
                r.record(e.rec);
                ++m_live;
                onRestoredEntry(side, key, seq, e);
            }
        }
    }
    return !r.failed();
}

std::string ModeJoinBase::paramsFingerprint() const
{
    return "left=" + keys::joinList(m_enc[kModeLeft].paths()) + " right="
           + keys::joinList(m_enc[kModeRight].paths()) + " lower=" + std::to_string(m_p.lower)
           + " upper=" + std::to_string(m_p.upper) + (m_p.outer ? " left_outer" : " inner");
}

ModeJoinParams readModeJoinParams(const OperatorContext &ctx)
{
    const NodeParams p(ctx);
    ModeJoinParams m;
    m.leftKey = p.fieldList("left_key");
    m.rightKey = p.fieldList("right_key");
    m.lower = p.integer("lower_ms");
    m.upper = p.integer("upper_ms");
    m.outer = p.string("type") == "left_outer";
    if (m.leftKey.empty() || m.leftKey.size() != m.rightKey.size())
        throw ConfigError("params.right_key: must list as many fields as left_key");
    if (m.lower > m.upper)
        throw ConfigError("params.lower_ms: must be <= upper_ms");
    return m;
}

} // namespace tideline::join
