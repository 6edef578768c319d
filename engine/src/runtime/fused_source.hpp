#pragma once
// The fused path of a parallel run (ARCHITECTURE.md "One crossing per record"): for the chain
// source.generator (ordered, bounded) or source.file (a regular file) -> watermark (a prefix
// maximum) -> one parallel keyed stage,
// the source node's operator is replaced by a FusedSource that makes the records in chunks on
// the workers (and on the loop thread when it would wait), stamps their event time, computes
// their key group and puts each straight into its instance's input of a fused round
// (parallel_round.hpp), so a record crosses threads once, in bulk, instead of being made,
// stamped, routed and replayed on the loop thread. The loop thread only sets each chunk's
// watermark before it (the prefix maximum of the chunks before) and hands the round to the
// stage; the stage's instances and its replay do the rest (parallel_fused.cpp).
//
// The source's and watermark node's own operators stay in the graph: the watermark node is
// advanced chunk by chunk (fusable.hpp), the generator's position set, so metrics, savepoints
// and the end of input work as before. A file is cut into ranges at line boundaries and parsed
// by file_chunks.hpp's FileChunk (the loop-thread reader's line rules); its malformed lines
// become side errors of the round, their line numbers completed at hand-over. After the last
// range, or at a CSV record whose quoted cell spans lines (which a range cannot cut), the file
// source reads on by itself on the loop thread from there, through the graph as without the
// fused path. The inner source's position follows the chunks handed over (the generator's
// index, the file's line start after the chunk's last line), so a checkpoint or savepoint saves
// what the single-threaded source would after the same records.
//
// [Threading] A FusedChunk is run by one thread between submit and finish (chunk_runner.hpp);
// it reads the source's and watermark node's configuration only, and writes only its round.

#include "operators/fusable.hpp"
#include "operators/keys/group_key_codec.hpp"
#include "operators/keys/key_encoder.hpp"
#include "operators/sources/chunk_runner.hpp"
#include "runtime/parallel.hpp"
#include "runtime/parallel_round.hpp"

#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

namespace tideline::parallel {

/// One BlockHome per thread that runs chunks (parallel_round.hpp), owned by the source.
class BlockHomes
{
public:
    BlockHome &mine();

private:
    std::mutex m_mutex;
    std::vector<std::pair<std::thread::id, std::unique_ptr<BlockHome>>> m_homes;
};

struct FusedConfig
{
    BlockHomes *homes = nullptr;
    const fusable::IndexedSource *source = nullptr; ///< a generator, or
    const sources::FileChunkConfig *file = nullptr; ///< a file's chunks
    /// A replayed file: its lines come as a LineList taken on the loop thread (takeLines), not
    /// as ranges.
    bool replay = false;
    const fusable::PrefixWatermark *watermark = nullptr;
    Timestamp delay = 0;
    bool window = true; ///< the stage's key as the window encodes it (else as dedup does)
    /// The stage's window takes aggregate inputs instead of records (fusable::PreAggregated):
    /// its aggregates; null: records are handed over.
    const std::vector<window::AggSpec> *aggs = nullptr;
    std::vector<std::string> keys;
    int instances = 1;
    /// With aggs, for JSON lines: the fields route() reads (event time, key, aggregate inputs);
    /// a line is parsed into only those. Null: whole records.
    const FieldProjection *projection = nullptr;
};

class FusedChunk final : public sources::ChunkTask, private sources::LineSink
{
public:
    explicit FusedChunk(const FusedConfig &cfg);
    void run() noexcept override;

    std::unique_ptr<Round> round; ///< built by run(), handed to the stage after
    std::exception_ptr error;
    std::unique_ptr<sources::FileChunk> file; ///< a file's range (FusedConfig::file)
    bool last = false;                        ///< a file's range to its end
    std::unique_ptr<sources::LineList> lines; ///< a replay's lines (FusedConfig::replay)
    /// A replay's block failed its check (where and why): the chunk's lines stop before it,
    /// and the replay fails once they are handed over, as the sequential replay would.
    std::string blockError;

private:
    /// Stamps `rec` (block record `index`) and gives it to its instance as the item `step`.
    void route(Round &r, Record &rec, std::uint32_t index, std::uint32_t step);
    /// The round's block of this thread's records (a generator's handing over inputs needs none).
    RecordBlock &takeBlock(Round &r);
    /// A replay's lines into records (FileSource::poll's rules for recorded lines), each
    /// stamped and routed as it is made.
    void runLines(Round &r);
    /// One replayed line (FileSource::poll's rules), numbered `number` in the file.
    void replayedLine(Round &r,
                      std::vector<Record> &records,
                      std::size_t &used,
                      std::string_view text,
                      std::uint64_t number);
    /// A line that goes to `errors` from the source (its `where` is written at hand-over):
    /// a file range's (lineError) or a replayed one's.
    void sourceError(Round &r,
                     std::string reason,
                     std::string_view raw,
                     std::uint64_t line,
                     bool tooLong,
                     std::uint64_t length);
    // A file's lines as FileChunk makes them (LineSink): stamped and routed while in cache.
    void lineRecord(std::size_t index, std::string_view text, std::uint64_t offset) override;
    void lineError(const sources::ChunkLineError &e) override;
    Timestamp m_maxTs = kMinTime, m_localW = kMinTime;
    std::uint32_t m_next = 0; ///< the next item's position in the chunk
    const FusedConfig &m_cfg;
    keys::GroupKeyCodec m_groupKey;
    keys::KeyEncoder m_dedupKey;
    std::string m_key;
    std::string m_why;
    window::AggInputReader m_inputs; ///< FusedConfig::aggs's, read on this chunk's thread
    Record m_scratch;                ///< a generator's record when inputs are handed over
    std::string_view m_lineText;     ///< a file's: the line the routed record was parsed from
    std::uint64_t m_lineOffset = 0;  ///< a file range's: where that line is in the file
    RecordParser m_parser;           ///< a replay's lines (a parser is one thread's)
    std::vector<std::size_t> m_ends; ///< a replayed block's line ends, found as it is checked
    std::string m_error;
};

class FusedSource final : public SourceOperator
{
public:
    /// Bumps the metrics of the nodes the chunk's records skipped (made, reached the stage).
    using Counted = std::function<void(long long made, long long passed, Timestamp maxTs)>;

    /// `file`: the configuration SplittableFile::fuse gave (from `offset`, `line`), or
    /// fuseReplay gave (`replay`), else null.
    FusedSource(std::unique_ptr<Operator> inner,
                const sources::FileChunkConfig *file,
                bool replay,
                std::uint64_t offset,
                std::uint64_t line,
                int sourceNode,
                fusable::PrefixWatermark &watermark,
                int watermarkNode,
                ParallelStage &stage,
                int stageNode,
                sources::ChunkRunner &runner,
                OutputTarget &runtime,
                Counted counted);
    ~FusedSource() override;

    Poll poll(Output &out, int maxRecords) override;
    int partitions() const override;
    void onTick(std::int64_t nowMs, Output &out) override { m_inner->onTick(nowMs, out); }
    void finish(Output &out) override { m_inner->finish(out); }
    void reportMetrics(observe::NodeMetrics &m) const override { m_inner->reportMetrics(m); }
    void snapshotState(StateWriter &w) const override;
    void restoreState(StateReader &r) override;
    /// Waits for the chunks in flight and drops them (they read the stage's configuration:
    /// before the stage goes, reopenOperators drains).
    void drain();
    /// A replay of the run's only source: lines are taken ahead of the replay's clock when it
    /// runs flat out (SplittableFile::takeLines), so that chunks fill up.
    void takeReplayAhead() { m_ahead = true; }
    std::string stateFingerprint() const override { return m_inner->stateFingerprint(); }

    /// Events per chunk: a round's hand-over (a lock, a wake-up per worker) is noise next to it.
    static constexpr long long kChunkEvents = 8192;
    /// Bytes per file range: about as many lines of typical events.
    static constexpr std::uint64_t kChunkBytes = 512u << 10;

private:
    void topUp();
    std::unique_ptr<FusedChunk> makeChunk();
    /// A file's chunk handed over: its errors' `where`, the lines, and whether the source reads
    /// on by itself from here. Returns whether it does.
    bool handFile(FusedChunk &c, Round &r);

    std::unique_ptr<Operator> m_inner;
    int m_srcNode;
    fusable::IndexedSource *m_indexed = nullptr;
    fusable::SplittableFile *m_file = nullptr;
    sources::FileChunkConfig m_fileCfg;
    fusable::PrefixWatermark &m_watermark;
    int m_watermarkNode;
    ParallelStage &m_stage;
    int m_stageNode;
    OutputTarget &m_runtime;
    Counted m_counted;
    BlockHomes m_homes;
    FusedConfig m_cfg;
    long long m_count = 0;
    long long m_issued = -1; ///< -1: from the source's position, at the first poll
    // A file: where chunking began, the next range, the size then, the lines before the front.
    std::uint64_t m_start = 0, m_next = 0, m_size = 0, m_baseLine = 0;
    bool m_fileStart = false, m_issuedAll = false;
    bool m_sequential = false;          ///< the fused chunks are done: the source reads by itself
    bool m_ahead = false;               ///< takeReplayAhead()
    std::unique_ptr<FusedChunk> m_idle; ///< a replay's chunk that got no lines (none due)
    /// A replay's failure on the loop thread (takeLines threw: a damaged block header) or on
    /// a worker (a chunk's blockError): thrown once the chunks before it are handed over.
    std::exception_ptr m_failure;
    std::unique_ptr<FieldProjection> m_projection;            ///< FusedConfig::projection
    std::unique_ptr<sources::ChunkQueue<FusedChunk>> m_queue; // last: its chunks read the above
};

} // namespace tideline::parallel
