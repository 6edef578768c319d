// The fused path's source side (fused_source.hpp): chunks built into fused rounds, handed to
// the stage in order. Which chains take it: fused_plan.cpp.

#include "runtime/fused_source.hpp"

#include "runtime/runtime.hpp"
#include "runtime/write_prefetch.hpp"

#include <stdexcept>
#include <string_view>
#include <sys/stat.h>

namespace tideline::parallel {

BlockHome &BlockHomes::mine()
{
    const std::thread::id me = std::this_thread::get_id();
    std::lock_guard lock(m_mutex);
    for (auto &[id, home] : m_homes)
        if (id == me)
            return *home;
    return *m_homes.emplace_back(me, std::make_unique<BlockHome>()).second;
}

FusedChunk::FusedChunk(const FusedConfig &cfg)
    : m_cfg(cfg)
    , m_groupKey(cfg.keys)
    , m_dedupKey(cfg.keys)
    , m_inputs(cfg.aggs ? *cfg.aggs : std::vector<window::AggSpec>{})
{
    if (cfg.replay) {
        lines = std::make_unique<sources::LineList>();
    } else if (cfg.file) {
        file = std::make_unique<sources::FileChunk>(*cfg.file);
        file->scratch = cfg.aggs != nullptr; // one record parsed into again, line by line
        file->only = cfg.projection;
    }
}

namespace {
// How far ahead of its stores route() asks for lines: about the records it makes while a line
// comes over from the other core (4 and 8 items measured the same at parallelism 2).
constexpr std::size_t kItemsAhead = 8;   ///< FusedItems of the instance, a line each
constexpr std::size_t kBytesAhead = 128; ///< of its key bytes
constexpr std::size_t kInputsAhead = 8;  ///< of its aggregate inputs (24 bytes each)
constexpr std::size_t kTextAhead = 256;  ///< of a replay's line text (two lines' worth)
} // namespace

void FusedChunk::route(Round &r, Record &rec, std::uint32_t index, std::uint32_t step)
{
    Timestamp t = kMinTime;
    if (!m_cfg.watermark->eventTime(rec, t, m_why)) {
        if (m_cfg.projection) {
            // It goes to `errors` whole: the line again, every field (it was accepted once).
            if (!m_cfg.file->parse(m_lineText, rec, m_parser, m_error))
                throw std::logic_error("fused chunk: a line parsed with a projection fails "
                                       "whole: "
                                       + m_error);
        }
        SideError &e = r.side.emplace_back();
        e.step = step;
        e.localW = m_localW;
        e.reason = m_why;
        e.record = std::move(rec);
        rec = Record();
        return;
    }
    rec.time = t;
    if (m_cfg.window)
        m_groupKey.encode(rec, m_key);
    else
        m_dedupKey.encode(rec, m_key);
    const std::uint64_t hash = keys::hashFreshKey(m_key);
    const int k = instanceOfKeyGroup(keyGroupOfHash(hash), m_cfg.instances);
    InstanceIO &io = r.io[static_cast<std::size_t>(k)];
    if (io.used == io.fused.size())
        io.fused.resize(std::max<std::size_t>(64, 2 * io.fused.size()));
    // The lines this instance's next items, key bytes and inputs go to were read by its core
    // the last time the round was used: they are asked for now (write_prefetch.hpp).
    if (io.used + kItemsAhead < io.fused.size())
        prefetchForWrite(&io.fused[io.used + kItemsAhead]);
    if (io.keys.size() + kBytesAhead < io.keys.capacity())
        prefetchForWrite(io.keys.data() + io.keys.size() + kBytesAhead);
    FusedItem &item = io.fused[io.used++];
    item.hash = hash;
    item.time = t;
    item.w = m_localW;
    item.step = step;
    item.markTo = static_cast<std::uint32_t>(r.marks.size());
    io.marksEnd = item.markTo;
    item.index = index;
    item.key = static_cast<std::uint32_t>(io.keys.size());
    item.keySize = static_cast<std::uint32_t>(m_key.size());
    io.keys.append(m_key);
    if (m_cfg.aggs) {
        // Only the inputs cross to the instance; the record is made again if it is late.
        const std::size_t need = io.inputsUsed + m_inputs.size();
        if (need > io.inputs.size())
            io.inputs.resize(std::max(need, 2 * io.inputs.size()));
        if (need + kInputsAhead < io.inputs.size())
            prefetchForWrite(io.inputs.data() + need + kInputsAhead);
        item.inputs = static_cast<std::uint32_t>(io.inputsUsed);
        io.inputsUsed = need;
        m_inputs.readAll(rec, io.inputs.data() + item.inputs);
        item.lineSize = static_cast<std::uint32_t>(m_lineText.size());
        if (m_cfg.replay) {
            item.line = r.text.size();
            // Read by no one unless the record is late, but written on the other core when
            // the chunk before that used the round ran there.
            if (r.text.size() + kTextAhead < r.text.capacity())
                prefetchForWrite(r.text.data() + r.text.size() + kTextAhead);
            r.text.append(m_lineText);
        } else {
            item.line = m_lineOffset; // a file range's: read again if late (a generator's: 0)
        }
    }
    if (t > m_maxTs) {
        m_maxTs = t;
        const Timestamp w = satSub(satSub(t, m_cfg.delay), 1);
        if (w > m_localW) {
            m_localW = w;
            r.marks.push_back({step + 1, w});
        }
    }
}

void FusedChunk::lineRecord(std::size_t index, std::string_view text, std::uint64_t offset)
{
    const std::uint32_t step = 2 * m_next++ + 1;
    m_lineText = text;
    m_lineOffset = offset;
    route(*round, file->records[index], static_cast<std::uint32_t>(index), step);
}

void FusedChunk::lineError(const sources::ChunkLineError &e)
{
    sourceError(*round, e.reason, e.raw, e.line, e.tooLong, e.length);
}

void FusedChunk::sourceError(Round &r,
                             std::string reason,
                             std::string_view raw,
                             std::uint64_t line,
                             bool tooLong,
                             std::uint64_t length)
{
    SideError &s = r.side.emplace_back();
    s.step = 2 * m_next++ + 1;
    s.localW = m_localW;
    s.reason = std::move(reason);
    s.fromSource = true;
    s.raw.assign(raw);
    s.line = line;
    s.tooLong = tooLong;
    s.length = length;
}

RecordBlock &FusedChunk::takeBlock(Round &r)
{
    if (!r.block)
        r.block = m_cfg.homes->mine().take();
    return *r.block;
}

void FusedChunk::run() noexcept
{
    Round &r = *round;
    r.fused = true;
    r.marks.clear();
    r.marks.push_back({0, kMinTime}); // the chunk's start: wStart, set at hand-over
    r.side.clear();
    for (InstanceIO &io : r.io) {
        io.used = 0;
        io.marksEnd = 1;
        io.keys.clear();
        io.inputsUsed = 0;
    }
    r.text.clear();
    r.file = m_cfg.aggs ? m_cfg.file : nullptr;
    r.source = m_cfg.aggs ? m_cfg.source : nullptr;
    r.watermark = m_cfg.watermark;
    m_maxTs = m_localW = kMinTime;
    m_next = 0;
    error = nullptr;
    try {
        if (lines) {
            runLines(r);
        } else if (!file && m_cfg.aggs) {
            for (long long j = 0; j < r.count; ++j) { // one record, made into again
                m_cfg.source->makeInto(r.first + j, m_scratch);
                route(r, m_scratch, static_cast<std::uint32_t>(j),
                      static_cast<std::uint32_t>(2 * j + 1));
            }
        } else if (!file) {
            std::vector<Record> &records = takeBlock(r).records;
            if (records.size() < static_cast<std::size_t>(r.count))
                records.resize(static_cast<std::size_t>(r.count));
            for (long long j = 0; j < r.count; ++j) {
                Record &rec = records[static_cast<std::size_t>(j)];
                m_cfg.source->makeInto(r.first + j, rec);
                route(r, rec, static_cast<std::uint32_t>(j), static_cast<std::uint32_t>(2 * j + 1));
            }
        } else {
            RecordBlock &block = takeBlock(r);
            std::vector<Record> &records = block.records;
            // Parsed into the block's records (their buffers this thread's), each stamped and
            // routed as it is parsed (LineSink), errors in their place among them.
            std::swap(file->records, records);
            std::swap(file->spare, block.spare);
            file->sink = this;
            file->run();
            file->sink = nullptr;
            std::swap(file->records, records);
            std::swap(file->spare, block.spare);
            r.count = m_next;
        }
    } catch (...) {
        error = std::current_exception();
    }
    r.maxTs = m_maxTs;
    r.localW = m_localW;
}

FusedSource::FusedSource(std::unique_ptr<Operator> inner,
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
                         Counted counted)
    : m_inner(std::move(inner))
    , m_srcNode(sourceNode)
    , m_watermark(watermark)
    , m_watermarkNode(watermarkNode)
    , m_stage(stage)
    , m_stageNode(stageNode)
    , m_runtime(runtime)
    , m_counted(std::move(counted))
{
    m_cfg.replay = replay;
    if (file) {
        m_file = dynamic_cast<fusable::SplittableFile *>(m_inner.get());
        m_fileCfg = *file;
        m_cfg.file = &m_fileCfg;
        m_start = m_next = offset;
        m_baseLine = line;
        m_fileStart = line == 0;
        struct stat st
        {
        };
        if (::fstat(m_fileCfg.fd, &st) == 0 && st.st_size > 0)
            m_size = static_cast<std::uint64_t>(st.st_size);
    } else {
        m_indexed = dynamic_cast<fusable::IndexedSource *>(m_inner.get());
        m_cfg.source = m_indexed;
        m_count = m_indexed->indexedCount();
    }
    m_cfg.homes = &m_homes;
    m_cfg.watermark = &m_watermark;
    (void)m_watermark.prefixMax(m_cfg.delay);
    m_cfg.window = stage.config().window;
    m_cfg.aggs = stage.preAggregates();
    m_cfg.keys = stage.config().keys;
    m_cfg.instances = stage.instanceCount();
    if (m_cfg.aggs && file && !file->csv) {
        // A line is parsed into what route() reads; the record is made again whole wherever it
        // is emitted (late: MadeAgain; no event time: route()).
        std::vector<std::string> read = m_cfg.keys;
        read.push_back(watermark.timeField());
        for (const window::AggSpec &a : *m_cfg.aggs)
            if (!a.field.empty())
                read.push_back(a.field);
        std::string unused;
        m_projection = FieldProjection::of(read, unused); // null (whole records) if not paths
        m_cfg.projection = m_projection.get();
    }
    m_queue = std::make_unique<sources::ChunkQueue<FusedChunk>>(runner);
}

FusedSource::~FusedSource() = default;

int FusedSource::partitions() const
{
    return static_cast<const SourceOperator &>(*m_inner).partitions();
}

void FusedSource::snapshotState(StateWriter &w) const
{
    // The inner source is where the chunks handed over end (handFile, setPosition): chunks
    // made ahead are not in the state, and are made again after a restore.
    m_inner->snapshotState(w);
}

void FusedSource::restoreState(StateReader &r)
{
    drain();
    m_inner->restoreState(r);
    m_issued = -1;
    if (!m_file || m_cfg.replay)
        return; // (a replay takes no checkpoints: its lines go on from where the reader is)
    // Ranges again from the restored line on (a line start), unless the file can no longer be
    // split: then it reads on by itself.
    sources::FileChunkConfig cfg;
    std::uint64_t offset = 0, line = 0;
    m_sequential = !m_file->fuse(cfg, offset, line);
    m_start = m_next = offset;
    m_baseLine = line;
    m_fileStart = line == 0;
    m_issuedAll = false;
}

void FusedSource::drain()
{
    m_queue->drain();
}

std::unique_ptr<FusedChunk> FusedSource::makeChunk()
{
    std::unique_ptr<FusedChunk> c = m_queue->take();
    if (!c)
        c = std::make_unique<FusedChunk>(m_cfg);
    if (!c->round)
        c->round = m_stage.takeFusedRound();
    return c;
}

void FusedSource::topUp()
{
    if (m_cfg.replay) {
        // The lines due on the replay's clock, a chunk's worth at a time; none due: the chunk
        // waits for the next poll, and the loop idles (the clock moves on).
        while (!m_issuedAll && !m_queue->full()) {
            std::unique_ptr<FusedChunk> c = m_idle ? std::move(m_idle) : makeChunk();
            c->lines->clear();
            auto took = fusable::SplittableFile::Take::End;
            try {
                took = m_file->takeLines(*c->lines, kChunkBytes, m_ahead);
            } catch (...) {
                // A damaged recording: the lines before the damage (those taken into chunks)
                // are handed over first, as the sequential replay hands them on.
                m_failure = std::current_exception();
                m_issuedAll = true;
                if (!c->lines->lines.empty())
                    m_queue->submit(std::move(c));
                break;
            }
            if (took == fusable::SplittableFile::Take::Lines) {
                m_queue->submit(std::move(c));
                continue;
            }
            m_idle = std::move(c);
            m_issuedAll = took == fusable::SplittableFile::Take::End;
            break;
        }
        return;
    }
    if (m_file) {
        while (!m_issuedAll && !m_queue->full()) {
            std::unique_ptr<FusedChunk> c = makeChunk();
            const std::uint64_t begin = m_next;
            // The last range reads to the end, whatever the file has grown to meanwhile.
            c->last = m_size <= begin || m_size - begin <= kChunkBytes;
            const std::uint64_t end = c->last ? sources::FileChunk::kToEnd : begin + kChunkBytes;
            c->file->assign(begin, end, begin == m_start, begin == m_start && m_fileStart);
            m_issuedAll = c->last;
            m_next = end;
            m_queue->submit(std::move(c));
        }
        return;
    }
    if (m_issued < 0)
        m_issued = m_indexed->position();
    while (!m_queue->full() && m_issued < m_count) {
        std::unique_ptr<FusedChunk> c = makeChunk();
        c->round->first = m_issued;
        c->round->count = std::min(kChunkEvents, m_count - m_issued);
        m_issued += c->round->count;
        m_queue->submit(std::move(c));
    }
}

bool FusedSource::handFile(FusedChunk &c, Round &r)
{
    for (SideError &e : r.side)
        if (e.fromSource)
            e.where = m_file->where(m_baseLine + e.line, e.tooLong, e.length);
    m_baseLine += c.file->lines;
    if (!c.file->readError.empty())
        throw std::runtime_error(m_file->readFailure(c.file->readError));
    if (c.file->stop) {
        // A CSV record spans lines from here: the source reads on by itself, the ranges
        // after this one are dropped.
        m_file->resumeAt(c.file->stopOffset, m_baseLine);
        return true;
    }
    if (c.last)
        m_file->resumeAt(c.file->endOffset, m_baseLine); // anything appended since, then End
    else if (c.file->resumeOffset > 0)
        // The source's own position follows the chunks handed over, as a generator's does, so
        // a checkpoint here saves the line after this chunk's last one.
        m_file->resumeAt(c.file->resumeOffset, m_baseLine);
    return c.last;
}

SourceOperator::Poll FusedSource::poll(Output &out, int maxRecords)
{
    // A file reads on by itself after the fused ranges; a generator has handed over every event
    // (its own poll would not know: with TIDELINE_PARALLEL_SOURCES it counts chunks apart).
    if (m_sequential)
        return m_file ? static_cast<SourceOperator &>(*m_inner).poll(out, maxRecords)
                      : Poll::Finished;
    topUp();
    FusedChunk *c = m_queue->front(); // runs it here when no worker has started it
    if (!c) {
        if (m_failure)
            std::rethrow_exception(m_failure);
        if (m_cfg.replay && !m_issuedAll)
            return Poll::Waiting; // no line is due yet
        m_sequential = true;
        return poll(out, maxRecords);
    }
    if (c->error)
        std::rethrow_exception(c->error);
    std::unique_ptr<Round> r = std::move(c->round);
    if (m_cfg.replay) {
        for (SideError &e : r->side)
            if (e.fromSource)
                e.where = m_file->where(e.line, e.tooLong, e.length);
        if (!c->blockError.empty()) {
            // The records before the damaged block go on now; the chunks after it are dropped
            // and the next poll fails the replay, naming the block.
            m_failure = std::make_exception_ptr(std::runtime_error("--replay: " + c->blockError));
            m_issuedAll = true;
        }
    }
    const bool sequential = m_file && !m_cfg.replay && handFile(*c, *r);
    const bool failed = m_cfg.replay && !c->blockError.empty(); // what follows it is dropped
    m_queue->pop();
    if (failed)
        m_queue->drain();
    if (sequential) {
        m_queue->drain();
        m_sequential = true;
    }
    // The tiny serial step: the watermark before this chunk is the one after the chunks before.
    r->wStart = m_watermark.emitted();
    r->marks[0].w = r->wStart;
    r->wmNode = m_watermarkNode;
    r->srcNode = m_srcNode;
    long long made = r->count, passed = r->count; // records out of the source, of the watermark
    for (const SideError &e : r->side) {
        passed -= 1;
        made -= e.fromSource ? 1 : 0;
    }
    const Timestamp maxTs = r->maxTs;
    m_counted(made, passed, maxTs);
    if (m_indexed)
        m_indexed->setPosition(r->first + r->count);
    Output stageOut(m_runtime, m_stageNode);
    m_stage.submitFused(std::move(r), stageOut);
    if (maxTs != kMinTime) {
        Output wmOut(m_runtime, m_watermarkNode);
        m_watermark.advanceTo(maxTs, wmOut); // the stage ignores it: the round carried it
    }
    if (!m_sequential)
        topUp();
    return Poll::Produced;
}

} // namespace tideline::parallel
