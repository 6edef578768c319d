// join under settings.semantics "spark": Spark Structured Streaming's stream-stream join with
// a time-range condition (StreamingSymmetricHashJoinExec), inner and left outer.
//
// - One global watermark W (semantics/spark_clock.hpp), computed at the end of a micro-batch
//   and handed to this node in the no-data batch right after it; W starts at 0.
// - A row with event time at or below W is dropped (Spark drops it silently and only counts
//   it; here it goes to `late` with a reason that says so, the wrapper's watermark = W).
// - l and r join when their keys are equal and l.t + lower <= r.t <= l.t + upper (the bounds are
//   inclusive, as `BETWEEN` / `<=` in the join condition).
// - State: a left row is removed once W > l.t + upper, a right row once W > r.t - lower. The
//   condition's bounds are inclusive, so Spark keeps a row whose bound equals W (its state
//   watermark is "slightly less than" W - upper); Flink mode removes it at W >= l.t + upper.
//   A row whose bound is already below W when it arrives joins what is there and is not stored
//   (Spark's shouldAddToState).
// - left_outer: a left row that never matched is written with "right": null when it is removed
//   (in the no-data batch that moved W past its bound), or at once if it is never stored.
// - Output watermark: W (held back by max(upper, 0) for left_outer, as in Flink mode, so the
//   null rows are on time downstream).
// At the end of a bounded input W = +inf: every row leaves, the unmatched left rows of a
// left_outer join are written.

#include "operators/join/mode_join.hpp"

#include <map>

namespace tideline::join {

namespace {

constexpr const char *kDropped = "Spark drops this row silently (at or below the watermark)";

class SparkJoin final : public ModeJoinBase
{
public:
    explicit SparkJoin(ModeJoinParams p)
        : ModeJoinBase(std::move(p))
    {
    }

    void processRecord(int input, Record &&rec, Output &out) override
    {
        const int side = input == kModeRight ? kModeRight : kModeLeft;
        if (rec.time <= m_w) {
            out.emitLate(kDropped, std::move(rec), m_w);
            return;
        }
        const bool leftOuter = side == kModeLeft && m_p.outer;
        if (!encodeKey(side, rec)) {
            out.account(leftOuter ? observe::Fate::JoinUnmatched : observe::Fate::NullKey);
            if (leftOuter)
                emitUnmatched(rec, out);
            return;
        }
        const Timestamp t = rec.time;
        bool matched = false;
        // The other side's rows of the key, in arrival order (all of them are above W - bound:
        // the ones below were removed in the last no-data batch).
        if (auto other = m_state[1 - side].find(m_key); other != m_state[1 - side].end()) {
            for (auto &[seq, e] : other->second) {
                const bool hit
                    = side == kModeLeft ? inBounds(t, e.rec.time) : inBounds(e.rec.time, t);
                if (!hit)
                    continue;
                matched = true;
                e.matched = true;
                if (side == kModeLeft)
                    emitPair(rec, e.rec, out);
                else
                    emitPair(e.rec, rec, out);
            }
        }
        const std::uint64_t seq = nextSeq();
        const Timestamp bound = boundOf(side, t);
        if (bound < m_w) { // W > bound already: no later row can join it, Spark does not store it
            out.account(matched ? observe::Fate::JoinMatched : observe::Fate::JoinUnmatched);
            if (leftOuter && !matched)
                emitUnmatched(rec, out);
            return;
        }
        m_expiry[side].emplace(std::make_pair(bound, seq), m_key);
        store(side, seq, std::move(rec), matched);
    }

    void processWatermark(Timestamp w, Output &out) override
    {
        if (w > m_w) {
            m_w = w;
            evict(out);
        }
        out.emitWatermark(outputWatermark(w));
    }

    std::string stateFingerprint() const override
    {
        return "mode-join/spark/2 " + paramsFingerprint();
    }

    void snapshotState(StateWriter &w) const override
    {
        w.i64(m_w);
        snapshotSides(w);
    }

    void restoreState(StateReader &r) override
    {
        m_expiry[kModeLeft].clear();
        m_expiry[kModeRight].clear();
        m_w = r.i64();
        (void)restoreSides(r); // a state cut short: the restorer sees r.failed() and refuses it
    }

private:
    void onRestoredEntry(int side,
                         const std::string &key,
                         std::uint64_t seq,
                         const ModeEntry &e) override
    {
        m_expiry[side].emplace(std::make_pair(boundOf(side, e.rec.time), seq), key);
    }

    /// The time W must pass for a row to leave: l.t + upper (left), r.t - lower (right).
    Timestamp boundOf(int side, Timestamp t) const
    {
        return side == kModeLeft ? satAdd(t, m_p.upper) : satSub(t, m_p.lower);
    }

    Timestamp outputWatermark(Timestamp w) const
    {
        if (!m_p.outer || w == kMaxTime || m_p.upper <= 0)
            return w;
        return satSub(w, m_p.upper);
    }

    /// The no-data batch: rows whose bound W has passed leave, left side first (an unmatched
    /// left row of a left_outer join is written), in order of bound, then arrival.
    void evict(Output &out)
    {
        for (int side : {kModeLeft, kModeRight}) {
            auto &q = m_expiry[side];
            while (!q.empty() && (m_w == kMaxTime || q.begin()->first.first < m_w)) {
                const std::uint64_t seq = q.begin()->first.second;
                const std::string key = std::move(q.begin()->second);
                q.erase(q.begin());
                bool unmatched = false;
                if (auto b = m_state[side].find(key); b != m_state[side].end())
                    if (auto it = b->second.find(seq); it != b->second.end())
                        unmatched = side == kModeLeft && m_p.outer && !it->second.matched;
                Record rec = remove(side, key, seq, out);
                if (unmatched)
                    emitUnmatched(rec, out);
            }
        }
    }

    Timestamp m_w = 0; ///< Spark's global watermark starts at 0
    /// Per side: (bound, arrival) -> key, the order rows leave in.
    std::map<std::pair<Timestamp, std::uint64_t>, std::string> m_expiry[2];
};

} // namespace

std::unique_ptr<Operator> makeSparkJoin(const OperatorContext &, ModeJoinParams p)
{
    return std::make_unique<SparkJoin>(std::move(p));
}

} // namespace tideline::join
