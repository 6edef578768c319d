#pragma once
// One round of a parallel stage (parallel.hpp): the steps the loop thread appended (a record
// for one instance, or a watermark for all), each instance's input, and what each instance
// emitted, tagged with the step that caused it. Owned by the stage; a worker touches only its
// instance's InstanceIO, between submit and the round's pending count reaching zero.

#include "operators/window/aggregates.hpp"

#include <tideline/engine/operator.hpp>
#include <tideline/observe/accounting.hpp>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace tideline::sources {
struct FileChunkConfig;
}
namespace tideline::fusable {
class IndexedSource;
class PrefixWatermark;
} // namespace tideline::fusable

namespace tideline::parallel {

struct InItem
{
    Record record;
    Timestamp w = kMinTime;
    std::uint32_t step = 0;
    /// A watermark item stands for the round's watermark steps marks[markFrom, markTo): those
    /// the stage got since this instance's previous record (an instance needs only the latest
    /// before each of its records; its results are then told apart by end, see Capture).
    std::uint32_t markFrom = 0, markTo = 0;
    bool watermark = false;
};

/// A fused round's record in its instance's input (InstanceIO::fused): one cache line, written
/// on the chunk's thread and read once on the instance's, so that the hand-over costs about one
/// line per record (an InItem, 168 bytes with the Record it does not use here, cost three: in
/// `perf`, its stores were a third of the chunk's time at parallelism 2).
struct FusedItem
{
    std::uint64_t hash = 0;    ///< keys::hashBytes of the key: routed by it; the tables use it
    Timestamp time = kMinTime; ///< its event time
    Timestamp w = kMinTime;    ///< the chunk's watermark before it
    /// A record given as inputs (Round::aggregated()) is made again only if it is late, from
    /// its line: for a file range, `lineSize` bytes at this offset in the file (read again:
    /// a copy of every line was most of a round's memory); for a replay, at this offset in
    /// Round::text. A generator's is made again from `index`.
    std::uint64_t line = 0;
    std::uint32_t step = 0;
    /// The marks given with it are marks[the previous item's markTo (1 for the first), markTo).
    std::uint32_t markTo = 0;
    /// A record handed over (fusable::PreKeyed): Round::block->records[index]; one given as
    /// inputs: the generator's index - Round::first.
    std::uint32_t index = 0;
    std::uint32_t key = 0, keySize = 0; ///< its key as the stage encodes it: InstanceIO::keys
    std::uint32_t inputs = 0;           ///< InstanceIO::inputs[inputs] (Round::aggregated())
    std::uint32_t lineSize = 0;
    std::uint32_t unused = 0; ///< (the item is one cache line)
};
static_assert(sizeof(FusedItem) == 64);

struct BlockHome;

/// A fused round's records, made by one thread into buffers only that thread ever writes: a
/// block goes back to its home (the thread that made it) once the round is replayed, so the
/// next chunk that thread makes reuses buffers in its own cache. (Reused by whichever thread
/// ran the next chunk, every field written was a cache line another core held: the single
/// largest cost of the hand-over, docs/benchmarks.md "One crossing per record".)
struct RecordBlock
{
    std::vector<Record> records;
    std::vector<Record> spare; ///< a file's: FileChunk::spare, kept with the block
    BlockHome *home = nullptr;
};

/// The spare blocks of one thread (given back by the loop thread, taken by their thread).
struct BlockHome
{
    std::mutex mutex;
    std::vector<std::unique_ptr<RecordBlock>> free;

    std::unique_ptr<RecordBlock> take()
    {
        std::lock_guard lock(mutex);
        if (free.empty()) {
            auto b = std::make_unique<RecordBlock>();
            b->home = this;
            return b;
        }
        auto b = std::move(free.back());
        free.pop_back();
        return b;
    }
    void give(std::unique_ptr<RecordBlock> b)
    {
        std::lock_guard lock(mutex);
        free.push_back(std::move(b));
    }
};

enum class OutKind : std::uint8_t { Data, Late, Error, Watermark, Idle };

/// What a late/errors output carries besides the record.
struct Wrapped
{
    std::string reason, raw, where;
};

/// A window result emitted on a watermark step: what the merge across instances orders by,
/// the contract's (window_end, window_start, key), the key compared as the window compares it
/// (its fields' values, ties by the encoded bytes).
struct SortKey
{
    Timestamp end = 0, start = 0;
    std::string bytes;
    std::uint32_t values = 0; ///< offset into InstanceIO::values (key.size() of them)
};

struct OutItem
{
    OutKind kind = OutKind::Data;
    int port = 0;
    std::uint32_t step = 0;
    std::int32_t aux = -1;  ///< Wrapped or SortKey index, -1 none
    Timestamp w = kMinTime; ///< late/errors: the watermark in the wrapper; Watermark: its value
    bool idle = false;
    Record record;
};

struct InstanceIO
{
    std::vector<InItem> in;
    /// Left with its records after the replay (clearReplayed), until Capture::begin.
    std::vector<OutItem> out;
    std::vector<Wrapped> wrapped;
    std::vector<SortKey> sortKeys;
    std::vector<Value> values; ///< decoded key values of sortKeys (views into their bytes)
    /// A fused round's records ([0, used) this round's; the slots stay, their records' buffers
    /// reused by the next chunk built into the round), their keys back to back, and their
    /// aggregate inputs ([0, inputsUsed): growing the vector record by record was a resize,
    /// and its zeroing, per record).
    std::vector<FusedItem> fused;
    std::string keys;
    std::vector<window::AggInput> inputs;
    std::size_t inputsUsed = 0;
    observe::FateCounts fates{};
    observe::NodeMetrics metrics;
    std::exception_ptr error;
    /// A fused round (Round::fused): fused[0, used) are this round's records. marksEnd: the
    /// marks given to its records, so the end of the round gives it marks[marksEnd, size).
    std::size_t used = 0;
    std::uint32_t marksEnd = 1;

    /// After the loop thread replayed the round: everything but the input (a fused round's
    /// records stay for reuse) and the output items. Those hold records that a worker made
    /// (a window's results, thousands per firing); the worker that next runs this instance
    /// destroys them (Capture::begin), so their buffers go back to that worker's pool
    /// (record.cpp) and make its next results. Destroyed here, they were freed on the loop
    /// thread into the worker's malloc arena: a sixth of the loop thread's time at P = 2, and
    /// fresh memory for every firing on the worker (docs/benchmarks.md, "Session 20").
    void clearReplayed()
    {
        wrapped.clear();
        sortKeys.clear();
        values.clear();
        fates = {};
        error = nullptr;
    }
};

/// Hands one instance output to the stage's Output on the loop thread (the replay of a round,
/// fused or not): data to its port, late and error records with their wrapper, watermarks and
/// idleness as they were recorded.
template<class StageOutput>
void replayItem(StageOutput &out, InstanceIO &io, OutItem &o)
{
    switch (o.kind) {
    case OutKind::Data:
        out.emit(o.port, std::move(o.record));
        break;
    case OutKind::Late: {
        const Wrapped &w = io.wrapped[static_cast<std::size_t>(o.aux)];
        out.emitLate(w.reason, std::move(o.record), o.w);
        break;
    }
    case OutKind::Error: {
        const Wrapped &w = io.wrapped[static_cast<std::size_t>(o.aux)];
        out.emitError(w.reason, std::move(o.record), o.w, w.raw, w.where);
        break;
    }
    case OutKind::Watermark:
        out.emitWatermark(o.w);
        break;
    case OutKind::Idle:
        out.emitIdle(o.idle);
        break;
    }
}

inline constexpr int kWatermarkStep = -1; ///< a watermark advance, for every instance
inline constexpr int kPassStep = -2;      ///< a record passed through to a sink
inline constexpr int kFinishStep = -3;    ///< the instances' finish()

struct Step
{
    /// The one instance a record went to, or one of the k*Step kinds.
    int instance;
    std::uint32_t pass = 0; ///< kPassStep: index into Round::passthrough
    Timestamp w = kMinTime; ///< kWatermarkStep: the watermark
};

/// A watermark step of the round: its index and value.
struct Mark
{
    std::uint32_t step;
    Timestamp w;
};

struct Passthrough
{
    int entry; ///< StageConfig::deliverDeferred's entry (which sink input)
    Record record;
};

/// A fused round's item that did not reach the stage, emitted in the replay at its place: a
/// line the source could not read (its `errors`), or a record the watermark node rejected.
struct SideError
{
    std::uint32_t step;
    Timestamp localW; ///< the chunk's W before it (the replay takes the max with wStart)
    std::string reason;
    Record record;
    bool fromSource = false; ///< the source's error (a line), not the watermark node's
    std::string raw;
    std::string where;      ///< set at hand-over (the line number needs the chunks before)
    std::uint64_t line = 0; ///< in the chunk, 1 = its first
    bool tooLong = false;
    std::uint64_t length = 0;
};

struct Round
{
    explicit Round(int n)
        : io(static_cast<std::size_t>(n))
    {
    }
    std::vector<Step> steps;
    std::vector<InstanceIO> io;
    std::vector<Passthrough> passthrough;
    std::vector<Mark> marks;
    int pending = 0; ///< instances still running it (WorkerPool's mutex)

    // A fused round (runtime/fused_source.hpp): one chunk of a source, made, stamped and routed
    // on a worker. Steps are positions, not entries of `steps`: record j of the chunk is step
    // 2j + 1, the watermark it raised 2j + 2, the chunk's start 0. marks[0] is the start, at
    // wStart (the watermark before the chunk, set on the loop thread at hand-over); marks[1..]
    // are the chunk's own rises, W = maxTs - delay - 1 of the chunk alone, so each instance's
    // watermark before each record is max(wStart, item.w), what the single thread had there.
    bool fused = false;
    Timestamp wStart = kMinTime; ///< set at hand-over
    Timestamp localW = kMinTime; ///< the chunk's own W after its last record
    Timestamp maxTs = kMinTime;  ///< the chunk's largest event time
    long long first = 0, count = 0;
    int wmNode = -1;  ///< the watermark node (its side errors go out of its `errors` port)
    int srcNode = -1; ///< the source (its side errors go out of its `errors` port)
    std::vector<SideError> side;
    std::unique_ptr<RecordBlock> block; ///< the records handed over (FusedItem::index)
    /// Set when the items carry aggregate inputs (fusable::PreAggregated), not records: a late
    /// one is made again, from its line with `file`'s parser (its event time checked by
    /// `watermark` against the item's), or by `source` from its index.
    const sources::FileChunkConfig *file = nullptr;
    const fusable::IndexedSource *source = nullptr;
    /// A replay's lines, copied (the chunk's LineList is reused once it is handed over); a
    /// file range's stay in the file (FusedItem::line).
    std::string text;
    const fusable::PrefixWatermark *watermark = nullptr;
    Timestamp wEnd() const { return std::max(wStart, localW); }
    bool aggregated() const { return file != nullptr || source != nullptr; }
};

} // namespace tideline::parallel
