#pragma once
// What the Spark and Kafka Streams window operators (semantics != "flink") share: their state
// (windows -> keys -> accumulators, and per-key sessions), folding a record in, and emitting a
// set of rows ordered like the contract orders fired windows: (window_end, window_start, key).
//
// These operators favour being obviously right over speed: they exist to show what another
// engine would output for the same records (teaching, comparing), not for the hot path, and
// they never run in Flink mode (window_base.cpp's factory picks them only for the other modes).

#include "operators/window/window_base.hpp"

#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace tideline::semantics {
struct JobSemantics;
enum class Engine : std::uint8_t;
} // namespace tideline::semantics

namespace tideline::window {

/// One (window, key)'s accumulators and whether the current batch / record changed them.
struct ModeCell
{
    std::vector<AggState> acc;
    bool dirty = false;
};

/// A window of one task: Kafka Streams keeps one per input partition (a task), Spark one.
struct ModeWindowId
{
    Timestamp end = 0;
    Timestamp start = 0;
    std::uint32_t part = 0;
    bool operator<(const ModeWindowId &o) const
    {
        return std::tie(end, start, part) < std::tie(o.end, o.start, o.part);
    }
};

/// A session of one key: [start, end) in Spark (end = last + gap), [first, last] in Kafka
/// Streams (end = last).
struct ModeSession
{
    Timestamp start = 0;
    Timestamp end = 0;
    ModeCell cell;
    bool emitted = false; ///< Kafka Streams on_close: written, kept while records may merge in
};

class ModeWindowBase : public WindowOperatorBase
{
public:
    ModeWindowBase(const OperatorContext &ctx, WindowConfig cfg);

    void reportMetrics(observe::NodeMetrics &m) const override;
    std::string stateFingerprint() const override;
    /// State stays in memory (validation rejects settings.state "rocksdb" in these modes).
    state::SpillStats spillStats() const override { return {}; }

protected:
    struct Row
    {
        Timestamp start;
        Timestamp end;
        std::string_view key;
        const AggState *acc;
        EmitKind kind;
    };

    void fold(ModeCell &c, const Record &rec);
    /// Emits `rows` ordered by (end, start, key value).
    void emitRows(std::vector<Row> &rows, Output &out);

    using Table = std::map<std::string, ModeCell>;
    std::map<ModeWindowId, Table> m_windows;
    /// Sessions per (task, key), each list ordered by start.
    std::map<std::pair<std::uint32_t, std::string>, std::vector<ModeSession>> m_sessions;
    std::int64_t m_delay = 0; ///< max_out_of_orderness_ms of the upstream watermark node

private:
    std::vector<std::uint32_t> m_order;
    std::vector<std::string_view> m_keys;
};

std::unique_ptr<Operator> makeSparkWindow(const OperatorContext &ctx, WindowConfig cfg);
/// `recordAligned`: "type": "sliding" without slide_ms, Kafka Streams' SlidingWindows.
std::unique_ptr<Operator>
makeKafkaWindow(const OperatorContext &ctx, WindowConfig cfg, bool recordAligned);

/// The params as readWindowConfig() should read them under `engine`: Kafka Streams' SlidingWindows
/// ("sliding" without slide_ms) read as slide = size, with `recordAligned` set.
Json paramsForEngine(const Json &params, semantics::Engine engine, bool &recordAligned);

/// The windows [k*slide, k*slide + size) that contain t, by start (tumbling: slide == size).
std::vector<std::pair<Timestamp, Timestamp>>
alignedWindowsOf(Timestamp t, Timestamp size, Timestamp slide);

} // namespace tideline::window
