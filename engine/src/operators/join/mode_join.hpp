#pragma once
// What the Spark and Kafka Streams interval joins (settings.semantics != "flink") share: the
// join's parameters, the buffered records of both sides per key, and writing the rows exactly
// as the Flink-mode join writes them ({"left": {...}, "right": {...}} at max(l.t, r.t); a
// left_outer miss as {"left": {...}, "right": null} at l.t).
//
// Like the mode windows (window/mode_window.hpp), these operators favour being obviously right
// over speed: they show what another engine would output for the same records and never run
// in Flink mode (join.cpp's factory picks them only for the other modes), so the Flink join's
// flat blocks and spilling are not needed here. State stays in memory (validation rejects
// settings.state "rocksdb" in these modes); checkpoints write it canonically: each side's keys
// in byte order, a key's records in arrival order (snapshotSides / restoreSides), then what
// the mode keeps besides (its watermark or stream times, Kafka's outer-join store). The
// expiry orders are not written: they are rebuilt from the records (onRestoredEntry).
//
// Accounting (observe/accounting.hpp): every input record gets one fate — JoinMatched or
// JoinUnmatched when it leaves the state (or at once when it is never stored), NullKey, or
// `late` — and every output row JoinPair or JoinUnmatchedRow, as in Flink mode.

#include "operators/keys/key_encoder.hpp"
#include "operators/operators.hpp"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace tideline::join {

inline constexpr int kModeLeft = 0;
inline constexpr int kModeRight = 1;

struct ModeJoinParams
{
    std::vector<std::string> leftKey, rightKey;
    std::int64_t lower = 0; ///< lower_ms: l.t + lower <= r.t
    std::int64_t upper = 0; ///< upper_ms: r.t <= l.t + upper
    bool outer = false;     ///< type "left_outer"
};

/// One buffered record of one side.
struct ModeEntry
{
    Record rec; ///< as it arrived (time in rec.time)
    bool matched = false;
};

class ModeJoinBase : public Operator
{
public:
    explicit ModeJoinBase(ModeJoinParams p);

    void reportMetrics(observe::NodeMetrics &m) const override;

protected:
    /// Per key, the buffered records of one side by arrival number (the order the Flink join
    /// meets partners in; Kafka Streams re-orders by time where it needs to).
    using Bucket = std::map<std::uint64_t, ModeEntry>;
    using SideState = std::unordered_map<std::string, Bucket>;

    /// Encodes `r`'s key for `side` into m_key; false when a key field is missing or null
    /// (SQL: such a record matches nothing).
    [[nodiscard]] bool encodeKey(int side, const Record &r);
    /// l.t + lower <= r.t <= l.t + upper
    bool inBounds(Timestamp lt, Timestamp rt) const;

    void emitPair(const Record &l, const Record &r, Output &out);
    void emitUnmatched(const Record &l, Output &out);

    /// The arrival number of the current record (each record takes one, stored or not).
    std::uint64_t nextSeq() { return m_seq++; }
    /// Stores `rec` under m_key with arrival number `seq`.
    void store(int side, std::uint64_t seq, Record &&rec, bool matched);
    /// Removes an entry, accounting its fate (JoinMatched / JoinUnmatched); returns the record.
    Record remove(int side, const std::string &key, std::uint64_t seq, Output &out);

    /// The buffered records of both sides and the arrival counter, canonically.
    void snapshotSides(StateWriter &w) const;
    /// Reads what snapshotSides wrote, calling onRestoredEntry for each record; false when the
    /// state is cut short.
    [[nodiscard]] bool restoreSides(StateReader &r);
    /// A restored record of `side` under `key` (its expiry order is the mode's).
    virtual void
    onRestoredEntry(int side, const std::string &key, std::uint64_t seq, const ModeEntry &e)
        = 0;
    /// What shapes the state, for stateFingerprint(): keys, bounds, type.
    std::string paramsFingerprint() const;

    ModeJoinParams m_p;
    keys::KeyEncoder m_enc[2];
    std::string m_key; ///< encoded key of the current record
    SideState m_state[2];
    std::uint64_t m_seq = 0;
    std::size_t m_live = 0;
};

/// Reads the join's params (the Flink join's rules: key sizes agree, lower <= upper).
ModeJoinParams readModeJoinParams(const OperatorContext &ctx);

std::unique_ptr<Operator> makeSparkJoin(const OperatorContext &ctx, ModeJoinParams p);
std::unique_ptr<Operator> makeKafkaJoin(const OperatorContext &ctx, ModeJoinParams p);

} // namespace tideline::join
