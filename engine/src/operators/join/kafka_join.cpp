// join under settings.semantics "kafka-streams": KStream-KStream join with JoinWindows and
// grace (KStreamImplJoin, KStreamJoinWindow, KStreamKStreamJoin), inner and left, as a
// TopologyTestDriver runs it with in-memory window stores and the outer-join emit interval 0.
//
// - JoinWindows: before = -lower_ms, after = upper_ms (a left record l takes right records with
//   l.t - before <= r.t <= l.t + after, the same pairs as every mode); grace = the largest
//   max_out_of_orderness_ms of the watermark nodes upstream (the join has no
//   allowed_lateness_ms). Seen from a right record, before and after swap.
// - Stream time: one for the node, shared by both inputs (KStreamImplJoin's TimeTracker), the
//   largest timestamp seen, the current record included. The join is one task: Kafka Streams
//   co-partitions the inputs by the join key (repartitioning when needed), so equal keys meet
//   whatever source partition they came from.
// - Each side's window store keeps a record while t > (the largest time put into that store) -
//   retention, retention = before + after + grace (JoinWindows.size() + grace). A record behind
//   stream time is stored and joins while that holds (no watermark drops it); one that is not
//   stored still joins what the other store holds, and goes to `late` only when it produced
//   nothing. Each side's window store expires its records by its own largest time.
// - A record joins the other store's records of its key with time in
//   [max(0, t - before), max(0, t + after)], in order of their time (the store's order), each
//   pair at max(l.t, r.t).
// - left join: a left record that matched nothing is written with "right": null at once when
//   its window already ended (t + after < stream time), else kept in the outer-join store; a
//   right record that joins it later takes it out. When a record arrives at stream time (not an
//   out-of-order one), every kept left record whose window closed — stream time > l.t + after +
//   grace — is written, in order of (time, key), before that record is joined. The check is
//   skipped, as in Kafka Streams, while the oldest kept record's time + the arriving side's
//   after + grace >= stream time.
// At the end of a bounded input every kept left record is written (stream time +inf).

#include "operators/join/mode_join.hpp"
#include "semantics/semantics.hpp"

#include <algorithm>
#include <map>
#include <tuple>

namespace tideline::join {

namespace {

constexpr const char *kDropped = "Kafka Streams drops this record (older than its join window "
                                 "store's retention: before + after + grace behind the store's "
                                 "stream time) and it joined nothing";

class KafkaJoin final : public ModeJoinBase
{
public:
    KafkaJoin(ModeJoinParams p, std::int64_t grace)
        : ModeJoinBase(std::move(p))
        , m_grace(grace)
    {
        m_before[kModeLeft] = satSub(0, m_p.lower);
        m_after[kModeLeft] = m_p.upper;
        m_before[kModeRight] = m_p.upper;
        m_after[kModeRight] = satSub(0, m_p.lower);
        m_retention = satAdd(satSub(m_p.upper, m_p.lower), m_grace);
    }

    void processRecord(int input, Record &&rec, Output &out) override
    {
        const int side = input == kModeRight ? kModeRight : kModeLeft;
        const Timestamp t = rec.time;
        m_streamTime = std::max(m_streamTime, t);
        const bool leftOuter = side == kModeLeft && m_p.outer;
        if (!encodeKey(side, rec)) { // a null key: a left join writes it at once, else skipped
            out.account(leftOuter ? observe::Fate::JoinUnmatched : observe::Fate::NullKey);
            if (leftOuter)
                emitUnmatched(rec, out);
            return;
        }
        m_storeTime[side] = std::max(m_storeTime[side], t);
        expire(kModeLeft, out);
        expire(kModeRight, out);
        if (m_p.outer && t == m_streamTime)
            emitClosed(side, out);

        const int other = 1 - side;
        const Timestamp from = std::max<Timestamp>(0, satSub(t, m_before[side]));
        const Timestamp to = std::max<Timestamp>(0, satAdd(t, m_after[side]));
        m_hits.clear();
        if (auto b = m_state[other].find(m_key); b != m_state[other].end())
            for (auto &[seq, e] : b->second)
                if (e.rec.time >= from && e.rec.time <= to)
                    m_hits.emplace_back(e.rec.time, seq, &e);
        std::sort(m_hits.begin(), m_hits.end(), [](const Hit &a, const Hit &b) {
            return std::tie(a.t, a.seq) < std::tie(b.t, b.seq);
        });
        for (const Hit &h : m_hits) {
            h.entry->matched = true;
            if (side == kModeLeft) {
                emitPair(rec, h.entry->rec, out);
            } else {
                emitPair(h.entry->rec, rec, out);
                m_outer.erase(OuterKey{h.t, m_key, h.seq}); // it has a partner now
            }
        }
        const bool matched = !m_hits.empty();
        const std::uint64_t seq = nextSeq();
        if (leftOuter && !matched) {
            if (to < m_streamTime)
                emitUnmatched(rec, out); // its window ended already: no need to keep it
            else
                m_outer.emplace(OuterKey{t, m_key, seq}, rec);
        }
        if (t > satSub(m_storeTime[side], m_retention)) {
            m_byTime[side].emplace(std::make_pair(t, seq), m_key);
            store(side, seq, std::move(rec), matched);
        } else if (matched || leftOuter) {
            out.account(matched ? observe::Fate::JoinMatched : observe::Fate::JoinUnmatched);
        } else {
            out.emitLate(kDropped, std::move(rec), satSub(m_storeTime[side], m_retention));
        }
    }

    void processWatermark(Timestamp w, Output &out) override
    {
        if (w == kMaxTime) { // the input ended: every window closes
            for (auto &[k, rec] : m_outer)
                emitUnmatched(rec, out);
            m_outer.clear();
            for (int side : {kModeLeft, kModeRight})
                while (!m_byTime[side].empty())
                    popOldest(side, out);
        }
        out.emitWatermark(w);
    }

    std::string stateFingerprint() const override
    {
        return "mode-join/kafka-streams/2 " + paramsFingerprint()
               + " grace=" + std::to_string(m_grace);
    }

    /// The window stores (the records of both sides), their and the task's stream times, and
    /// the outer-join store in its order (time, key, arrival).
    void snapshotState(StateWriter &w) const override
    {
        w.i64(m_streamTime);
        w.i64(m_storeTime[kModeLeft]);
        w.i64(m_storeTime[kModeRight]);
        snapshotSides(w);
        w.u64(m_outer.size());
        for (const auto &[k, rec] : m_outer) {
            w.i64(std::get<0>(k));
            w.str(std::get<1>(k));
            w.u64(std::get<2>(k));
            w.record(rec);
        }
    }

    void restoreState(StateReader &r) override
    {
        m_byTime[kModeLeft].clear();
        m_byTime[kModeRight].clear();
        m_outer.clear();
        m_streamTime = r.i64();
        m_storeTime[kModeLeft] = r.i64();
        m_storeTime[kModeRight] = r.i64();
        const bool ok = restoreSides(r);
        const std::uint64_t n = ok ? r.u64() : 0;
        for (std::uint64_t i = 0; i < n && !r.failed(); ++i) {
            const Timestamp t = r.i64();
            std::string key = r.str();
            const std::uint64_t seq = r.u64();
            r.record(m_outer[OuterKey{t, std::move(key), seq}]);
        }
        // A state cut short: the restorer sees r.failed() and refuses it.
    }

private:
    struct Hit
    {
        Timestamp t;
        std::uint64_t seq;
        ModeEntry *entry;
        Hit(Timestamp time, std::uint64_t s, ModeEntry *e)
            : t(time)
            , seq(s)
            , entry(e)
        {
        }
    };
    /// The outer-join store's order: time, then key (then arrival).
    using OuterKey = std::tuple<Timestamp, std::string, std::uint64_t>;

    void onRestoredEntry(int side,
                         const std::string &key,
                         std::uint64_t seq,
                         const ModeEntry &e) override
    {
        m_byTime[side].emplace(std::make_pair(e.rec.time, seq), key);
    }

    /// The in-memory window store drops what is retention or more behind its largest time.
    void expire(int side, Output &out)
    {
        const Timestamp gone = satSub(m_storeTime[side], m_retention);
        while (!m_byTime[side].empty() && m_byTime[side].begin()->first.first <= gone)
            popOldest(side, out);
    }

    void popOldest(int side, Output &out)
    {
        auto it = m_byTime[side].begin();
        const std::uint64_t seq = it->first.second;
        const std::string key = std::move(it->second);
        m_byTime[side].erase(it);
        (void)remove(side, key, seq, out);
    }

    /// emitNonJoinedOuterRecords: the kept left records whose window closed, oldest first.
    void emitClosed(int arrivingSide, Output &out)
    {
        if (m_outer.empty())
            return;
        const Timestamp oldest = std::get<0>(m_outer.begin()->first);
        if (satAdd(satAdd(oldest, m_after[arrivingSide]), m_grace) >= m_streamTime)
            return;
        while (!m_outer.empty()) {
            auto it = m_outer.begin();
            if (satAdd(satAdd(std::get<0>(it->first), m_after[kModeLeft]), m_grace) >= m_streamTime)
                break; // the window of this one (and of every later one) is still open
            emitUnmatched(it->second, out);
            m_outer.erase(it);
        }
    }

    std::int64_t m_grace;
    std::int64_t m_before[2] = {0, 0};
    std::int64_t m_after[2] = {0, 0};
    std::int64_t m_retention = 0;
    Timestamp m_streamTime = kMinTime;
    Timestamp m_storeTime[2] = {kMinTime, kMinTime}; ///< the largest time put into each store
    /// Per side: (time, arrival) -> key, the window store's expiry order.
    std::map<std::pair<Timestamp, std::uint64_t>, std::string> m_byTime[2];
    std::map<OuterKey, Record> m_outer; ///< left records waiting for a partner or their null row
    std::vector<Hit> m_hits;
};

} // namespace

std::unique_ptr<Operator> makeKafkaJoin(const OperatorContext &ctx, ModeJoinParams p)
{
    const std::int64_t grace = ctx.semantics ? ctx.semantics->delayOf(ctx.spec.id) : 0;
    return std::make_unique<KafkaJoin>(std::move(p), grace);
}

} // namespace tideline::join
