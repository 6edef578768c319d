#pragma once
// What the Spark and Kafka Streams window operators (semantics != "flink") share: their state,
// folding a record in, emitting a set of rows ordered like the contract orders fired windows
// ((window_end, window_start, key)), and the checkpoint of that state (mode_window_state.cpp).
//
// The state is the keyed-state toolkit's, as the Flink-mode windows keep theirs: per task (Kafka
// Streams: one per input partition; Spark: one) the aligned windows are panes in a
// keys::WindowSet, each a keys::RowTable of key -> accumulators; what is per key (sessions, and
// Kafka Streams' record-aligned SlidingWindows with the records they are folded from) lives in a
// keys::KeyTable; and the times at which a session or a window closes, or a kept record is no
// longer needed, are timers in keys::ExpiryQueue (a timer names a key entry, its generation and
// the window; stale ones are skipped when they come up). So a record costs a hash probe and a
// timer, and closing looks only at what is due: the first versions of these operators scanned
// every key of the task per record (over 3 minutes on tests/parallel's 20,000-key stress
// pipeline under Kafka Streams).
//
// Outputs do not depend on the order state is kept in: every set of rows emitted together is
// sorted by (end, start, key) first (emitRows), and a record's own rows follow its windows.
// These operators never run in Flink mode (window_base.cpp's factory picks them only for the
// other modes).

#include "operators/keys/expiry_queue.hpp"
#include "operators/keys/key_table.hpp"
#include "operators/keys/row_table.hpp"
#include "operators/keys/window_set.hpp"
#include "operators/window/window_base.hpp"

#include <map>
#include <string>
#include <vector>

namespace tideline::semantics {
struct JobSemantics;
enum class Engine : std::uint8_t;
} // namespace tideline::semantics

namespace tideline::window {

/// One window's accumulators for one key (sessions, SlidingWindows) and whether they changed.
struct ModeCell
{
    std::vector<AggState> acc;
    bool dirty = false;
};

/// A session of one key: [start, end) in Spark (end = last + gap), [first, last] in Kafka
/// Streams (end = last).
struct ModeSession
{
    Timestamp start = 0;
    Timestamp end = 0;
    ModeCell cell;
    /// Kafka Streams on_close: written, kept while records may merge in. Spark: collected by
    /// the firing in progress (the session leaves the state right after it).
    bool emitted = false;
};

/// An aligned window of one task (tumbling, hopping): its keys and their accumulators.
struct ModePane
{
    Timestamp start = 0;
    Timestamp end = 0;
    keys::RowTable<AggState> table;
    std::vector<std::uint8_t> dirty;    ///< Spark update mode: row changed in this batch
    std::vector<std::uint32_t> changed; ///< the rows with dirty set, in the order they changed
};

/// What one key of one task keeps outside the panes.
struct ModeKeyState
{
    std::vector<ModeSession> sessions;        ///< by start
    std::multimap<Timestamp, Record> records; ///< SlidingWindows: the records, by time
    std::map<Timestamp, ModeCell> windows;    ///< SlidingWindows: by start (end = start + size)
};

/// A timer: key entry `entry` of generation `gen`, window or session [start, end].
struct ModeTimer
{
    std::uint32_t entry = 0;
    std::uint32_t gen = 0;
    Timestamp start = 0;
    Timestamp end = 0;
};

/// The state of one task (Kafka Streams: an input partition; Spark: the whole query).
struct ModeTask
{
    Timestamp streamTime = kMinTime; ///< Kafka Streams: the largest record time seen
    keys::WindowSet<ModePane> panes;
    keys::KeyTable<ModeKeyState> keys;
    std::vector<std::uint32_t> gens;    ///< per key entry: bumped when the entry is freed
    keys::ExpiryQueue<ModeTimer> close; ///< a window or session closes
    keys::ExpiryQueue<ModeTimer> gone;  ///< Kafka Streams: a session or a kept record expires
};

class ModeWindowBase : public WindowOperatorBase
{
public:
    ModeWindowBase(const OperatorContext &ctx, WindowConfig cfg);

    void reportMetrics(observe::NodeMetrics &m) const override;
    std::string stateFingerprint() const override;
    /// State stays in memory (validation rejects settings.state "rocksdb" in these modes).
    state::SpillStats spillStats() const override { return {}; }

    /// Canonical: tasks by partition, panes by start with their rows in insertion order, keys
    /// by their bytes; timers are not written (restoreState arms them again from the state).
    void snapshotState(StateWriter &w) const override;
    void restoreState(StateReader &r) override;

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
    /// A retraction row (Kafka Streams' tombstone for a session merged away): the key fields,
    /// window_start and window_end of the session, every aggregate null, "emit": "retract".
    void emitRetraction(Timestamp start, Timestamp end, std::string_view key, Output &out);
    /// Emits `rows` ordered by (end, start, key value).
    void emitRows(std::vector<Row> &rows, Output &out);

    /// The task of partition `part`, created when new.
    ModeTask &task(std::uint32_t part);
    /// The pane [start, end) of `tk`, created when new (a reference valid until a pane is added
    /// or dropped).
    ModePane &pane(ModeTask &tk, Timestamp start, Timestamp end);
    /// Folds `rec` into the row of m_keyBuf (hash `h`) in `p`; returns the row.
    std::uint32_t foldPane(ModePane &p, std::uint64_t h, const Record &rec);
    /// Drops the oldest pane of `tk` (tables go back to a small pool).
    void dropFirstPane(ModeTask &tk);
    /// The entry of m_keyBuf in `tk`, created when new.
    std::uint32_t keyEntry(ModeTask &tk);
    /// Whether `t` still names a live entry (its key was not freed since).
    static bool live(const ModeTask &tk, const ModeTimer &t)
    {
        return t.entry < tk.keys.entryEnd() && tk.keys.entry(t.entry).used
               && tk.gens[t.entry] == t.gen;
    }
    /// Frees entry `e` of `tk` when it keeps nothing any more.
    void dropKeyIfEmpty(ModeTask &tk, std::uint32_t e);
    /// After restoreState: the timers of entry `e` of `tk` (its sessions, windows, records).
    virtual void armTimers(ModeTask &tk, std::uint32_t e) = 0;

    std::map<std::uint32_t, ModeTask> m_tasks;
    std::int64_t m_delay = 0;  ///< max_out_of_orderness_ms of the upstream watermark node
    bool m_trackDirty = false; ///< Spark update mode: panes remember the rows a batch changed
    const char *m_engine = ""; ///< in the state's fingerprint
    std::vector<Row> m_rows;   ///< the firing in progress
    std::vector<std::pair<Timestamp, Timestamp>> m_spans; ///< a record's aligned windows

private:
    std::vector<std::uint32_t> m_order;
    std::vector<std::string_view> m_keys;
    std::vector<keys::RowTable<AggState>> m_pool;
    ModeTask *m_lastTask = nullptr;
    std::uint32_t m_lastPart = 0;
    std::size_t m_expected = 16; ///< keys per pane seen last: a new pane's table size
};

std::unique_ptr<Operator> makeSparkWindow(const OperatorContext &ctx, WindowConfig cfg);
/// `recordAligned`: "type": "sliding" without slide_ms, Kafka Streams' SlidingWindows.
std::unique_ptr<Operator>
makeKafkaWindow(const OperatorContext &ctx, WindowConfig cfg, bool recordAligned);

/// The params as readWindowConfig() should read them under `engine`: Kafka Streams' SlidingWindows
/// ("sliding" without slide_ms) read as slide = size, with `recordAligned` set.
Json paramsForEngine(const Json &params, semantics::Engine engine, bool &recordAligned);

/// The windows [k*slide, k*slide + size) that contain t, by start (tumbling: slide == size),
/// into `out` (cleared first).
void alignedWindowsOf(Timestamp t,
                      Timestamp size,
                      Timestamp slide,
                      std::vector<std::pair<Timestamp, Timestamp>> &out);

} // namespace tideline::window
