#pragma once
// What the runtime's fused path needs of a source and of the watermark node (runtime/
// fused_source.hpp; ARCHITECTURE.md "One crossing per record"): with parallelism > 1 the chain
// source -> watermark -> keyed stage is run on the workers a chunk at a time, each record made,
// stamped with its event time and given its key group on the thread that made it, and handed to
// its instance once. The operators keep their own single-threaded paths; these interfaces only
// let the runtime make and stamp records the way those paths would.
//
// [Threading] makeInto() and eventTime() are called on worker threads while the run goes: they
// read only the operator's configuration, never its running state.

#include "operators/sources/file_chunks.hpp"
#include "operators/window/aggregates.hpp"

#include <tideline/engine/operator.hpp>

#include <string>
#include <vector>

namespace tideline::fusable {

/// A source whose records are a pure function of their index (source.generator without
/// disorder).
class IndexedSource
{
public:
    /// Records in all when they may be made by index on other threads (ordered, bounded, not
    /// paced, not recorded); -1 otherwise.
    virtual long long indexedCount() const = 0;
    /// The next index to emit (after a restore: where to go on from).
    virtual long long position() const = 0;
    /// Records before `next` were emitted elsewhere: the position its checkpoint saves.
    virtual void setPosition(long long next) = 0;
    /// Record i, exactly as poll() would emit it, built into `r` (its buffers reused).
    virtual void makeInto(long long i, Record &r) const = 0;

protected:
    ~IndexedSource() = default;
};

/// A file source that may be read in chunks at line boundaries elsewhere (source.file on a
/// regular file, not replayed, recorded or paced): the chunks are file_chunks.hpp's, so every
/// line rule is the one the loop-thread reader applies.
class SplittableFile
{
public:
    /// True, with the chunks' configuration and where reading is now (byte offset, lines
    /// before it), when the file may be read in chunks; the source then reads nothing until
    /// resumeAt(). False: it reads on its own, line by line.
    [[nodiscard]] virtual bool
    fuse(sources::FileChunkConfig &cfg, std::uint64_t &offset, std::uint64_t &line)
        = 0;
    /// Read on from byte `offset` (a line start, `line` lines before it) with poll().
    virtual void resumeAt(std::uint64_t offset, std::uint64_t line) = 0;
    /// An error record's `where` for file line `line` (with the length of a line over the
    /// limit), as poll() writes it.
    virtual std::string where(std::uint64_t line, bool tooLong, std::uint64_t length) const = 0;
    /// The run's failure for a failed read, as poll() words it.
    virtual std::string readFailure(const std::string &error) const = 0;

    /// A replay (--replay): true, with the configuration that parses its lines, when the
    /// recorded lines may be made into records elsewhere (JSON lines: a CSV record may span
    /// lines, which only the reader on the loop thread joins). The source then reads nothing
    /// by itself until its lines run out (takeLines said End).
    [[nodiscard]] virtual bool fuseReplay(sources::FileChunkConfig &cfg) = 0;
    enum class Take {
        Lines,   ///< `out` holds lines (up to about maxBytes)
        Pending, ///< none due yet on the replay's clock
        End      ///< the recorded lines ended
    };
    /// Appends the replay's next lines that are due to `out`, as poll() would read them
    /// (loop thread). `ahead`: lines not due yet are taken too, the replay's clock moved on to
    /// them, when it runs flat out (Feed::skipToNext). Throws like poll() on a damaged
    /// recording.
    [[nodiscard]] virtual Take takeLines(sources::LineList &out, std::size_t maxBytes, bool ahead)
        = 0;

protected:
    ~SplittableFile() = default;
};

/// A keyed operator that can take a record with its key already encoded (by the fused path,
/// which encodes it anyway to route it): the same as processRecord, without reading the key
/// fields again. On the instance's worker, the record made on another core: not touching its
/// fields is what keeps the hand-over to one cache miss per record (docs/benchmarks.md).
class PreKeyed
{
public:
    /// `key`: the record's key as the operator encodes it (the window's GroupKeyCodec), `hash`
    /// its keys::hashBytes (routing hashed it already: the tables need not again); `time`:
    /// rec.time, so that an on-time record whose aggregates read no field is never touched.
    virtual void processKeyed(
        Record &&rec, Timestamp time, std::string_view key, std::uint64_t hash, Output &out)
        = 0;

protected:
    ~PreKeyed() = default;
};

/// Makes a record again on the thread that needs it (PreAggregated: only when the record
/// itself must be emitted, a late one): from its line, or from its generator index.
class RecordMaker
{
public:
    virtual Record make() = 0;

protected:
    ~RecordMaker() = default;
};

/// A keyed window whose on-time records need nothing but their time, key and aggregate
/// inputs: the fused path reads those on the thread that parsed the record and hands the
/// window only them (a few dozen bytes instead of the record's fields, which on another core
/// were a cache miss each: docs/benchmarks.md "Lines, not records"). The record is made again,
/// by `maker`, only when the window emits it (late).
class PreAggregated
{
public:
    /// The aggregates, for the parsing thread's AggInputReader; null when this window cannot
    /// take inputs (state spilled to disk: a spill reads back per record).
    virtual const std::vector<window::AggSpec> *preAggregates() const = 0;
    /// processKeyed with the record's inputs (preAggregates().size() of them) instead of it.
    virtual void processInputs(Timestamp time,
                               std::string_view key,
                               std::uint64_t hash,
                               const window::AggInput *inputs,
                               RecordMaker &maker,
                               Output &out)
        = 0;
    /// A hint, no effect on results: records with these times and key hashes are a few
    /// items ahead (`soon` first, `sooner` nearer). A window asks the CPU for the slot of
    /// `soon`'s key and, already there by now, for the row `sooner`'s slot names, so that
    /// the row a record folds into is in cache when it comes (parallel_fused.cpp).
    virtual void prefetchAhead(Timestamp soon,
                               std::uint64_t soonHash,
                               Timestamp sooner,
                               std::uint64_t soonerHash) const
    {
        (void)soon, (void)soonHash, (void)sooner, (void)soonerHash;
    }

protected:
    ~PreAggregated() = default;
};

/// The watermark node when its watermark is a prefix maximum: W = max(W, maxTs - delay - 1)
/// after each record (one partition, no idle timeout, no max_lead_ms, Flink's rules).
class PrefixWatermark
{
public:
    /// True, with the delay, when the rule above is the node's whole behaviour.
    virtual bool prefixMax(Timestamp &delay) const = 0;
    /// The event time processRecord would give `rec`; false with the reason its `errors`
    /// record would carry.
    virtual bool eventTime(const Record &rec, Timestamp &t, std::string &why) const = 0;
    /// The one field eventTime reads (a canonical path): a record made only to be stamped
    /// needs no other (FieldProjection).
    virtual const std::string &timeField() const = 0;
    /// Records up to event time maxTs were stamped elsewhere (eventTime): advance W as if they
    /// had passed through, emitting it through `out`.
    virtual void advanceTo(Timestamp maxTs, Output &out) = 0;
    /// The watermark it has emitted (kMinTime before the first).
    virtual Timestamp emitted() const = 0;

protected:
    ~PrefixWatermark() = default;
};

} // namespace tideline::fusable
