// Replayer and ReplayClock: a recording read back in its arrival order on a virtual clock
// (record_replay.hpp).
//
// One entry of lookahead (the head) decides who may emit: only the source whose record is
// next, and only once the clock reached the time it arrived at. So the order across sources
// and partitions is the recorded one whatever order the loop polls the sources in, and a gap
// in the recording is a gap on the clock, which the loop crosses by its idle sleeps (one tick
// per millisecond, like the recorded run's loop) so idleness timeouts fire as they did.

#include <tideline/engine/record_replay.hpp>
#include <tideline/engine/spec.hpp>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <thread>

namespace tideline::recording {

namespace {

std::int64_t wallMs()
{
    using namespace std::chrono;
    return duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count();
}

} // namespace

// --- ReplayClock ---

ReplayClock::ReplayClock(std::int64_t startMs, double speed)
    : m_now(startMs)
    , m_speed(speed)
{
}

void ReplayClock::setSpeed(double speed)
{
    m_speed.store(speed);
}

void ReplayClock::skipMs(std::int64_t ms)
{
    m_now += std::max<std::int64_t>(ms, 0);
    m_wallAnchorMs = -1; // the next paced sleep anchors again from there
}

void ReplayClock::sleepMs(std::int64_t ms)
{
    m_now += std::max<std::int64_t>(ms, 0);
    const double speed = m_speed.load();
    if (speed <= 0) {
        m_wallAnchorMs = -1; // flat out: the clock only moves when the loop is idle
        return;
    }
    const std::int64_t wall = wallMs();
    if (m_restart.exchange(false) || m_wallAnchorMs < 0 || speed != m_anchorSpeed) {
        m_wallAnchorMs = wall;
        m_virtualAnchorMs = m_now;
        m_anchorSpeed = speed;
        return;
    }
    // The virtual time may run ahead of the wall clock (times the speed) by nothing: sleep
    // off the difference.
    // In double, clamped before the cast: a tiny speed makes the quotient overflow int64.
    const double ahead = static_cast<double>(m_wallAnchorMs - wall)
                         + static_cast<double>(m_now - m_virtualAnchorMs) / speed;
    if (ahead >= 1.0)
        std::this_thread::sleep_for(
            std::chrono::milliseconds(static_cast<std::int64_t>(std::min(ahead, 1000.0))));
}

// --- Replayer ---

Replayer::Replayer(std::int64_t startMs, double speed)
    : m_clock(startMs, speed)
{
}

Replayer::~Replayer() = default;

std::unique_ptr<Replayer> Replayer::open(const std::string &dir,
                                         const PipelineSpec &spec,
                                         std::string_view pipelineText,
                                         double speed,
                                         std::string &error)
{
    std::string why;
    auto reader = Reader::open(dir, why);
    if (!reader) {
        error = "--replay: " + why;
        return nullptr;
    }
    const Manifest &m = reader->info().manifest;
    if (auto bad = sourceMismatches(m, pipelineSources(spec)); !bad.empty()) {
        error = "--replay: the recording in " + dir + " was made for other sources (pipeline `"
                + m.pipeline + "`): ";
        for (std::size_t i = 0; i < bad.size(); ++i)
            error += (i ? "; " : "") + bad[i];
        return nullptr;
    }
    std::unique_ptr<Replayer> r(new Replayer(m.startedAtMs, speed));
    r->m_changedPipeline = m.pipelineSha256 != sha256Hex(pipelineText);
    r->m_ended.assign(m.sources.size(), false);
    r->m_left.resize(m.sources.size());
    r->m_reader = std::move(reader);
    if (std::string e = r->countPartitions(dir); !e.empty()) {
        error = "--replay: " + e;
        return nullptr;
    }
    return r;
}

/// A bounded source.kafka asks whether a partition still has records (hasRecordsLeft): that
/// needs the recorded count per partition, so such recordings are read once ahead.
std::string Replayer::countPartitions(const std::string &dir)
{
    const Manifest &m = m_reader->info().manifest;
    bool need = false;
    for (const auto &s : m.sources)
        need |= s.kind == "source.kafka";
    if (!need)
        return {};
    std::string error;
    auto scan = Reader::open(dir, error);
    if (!scan)
        return error;
    for (std::size_t i = 0; i < m.sources.size(); ++i)
        m_left[i].assign(static_cast<std::size_t>(std::max(1, m.sources[i].partitions)), 0);
    Entry e;
    while (scan->next(e)) {
        if (e.end || !e.partition)
            continue;
        auto &left = m_left[static_cast<std::size_t>(e.source)];
        if (static_cast<std::size_t>(*e.partition) >= left.size())
            left.resize(static_cast<std::size_t>(*e.partition) + 1, 0);
        ++left[static_cast<std::size_t>(*e.partition)];
    }
    return scan->error();
}

const Opened &Replayer::info() const
{
    return m_reader->info();
}

std::vector<std::string> Replayer::notes() const
{
    std::vector<std::string> out = m_reader->info().notes;
    if (m_changedPipeline)
        out.insert(out.begin(), "the pipeline file changed since the recording was made (its "
                                "sources still match): replaying it on the recorded input");
    return out;
}

int Replayer::sourceIndex(const std::string &nodeId) const
{
    const auto &sources = m_reader->info().manifest.sources;
    for (std::size_t i = 0; i < sources.size(); ++i)
        if (sources[i].id == nodeId)
            return static_cast<int>(i);
    return -1;
}

int Replayer::partitions(int source) const
{
    return std::max(1,
                    m_reader->info().manifest.sources[static_cast<std::size_t>(source)].partitions);
}

bool Replayer::fillHead()
{
    while (!m_haveHead && !m_exhausted) {
        if (!m_reader->next(m_head)) {
            if (!m_reader->error().empty())
                throw std::runtime_error("--replay: " + m_reader->error());
            m_exhausted = true;
            break;
        }
        m_line = m_reader->line();
        if (m_head.end) {
            m_ended[static_cast<std::size_t>(m_head.source)] = true;
            continue;
        }
        m_haveHead = true;
    }
    if (m_exhausted && !m_exhaustedCalled) {
        m_exhaustedCalled = true;
        bool open = false;
        for (bool ended : m_ended)
            open |= !ended;
        if (open && onExhausted)
            onExhausted();
    }
    return m_haveHead;
}

Feed::Next Replayer::next(int source, bool anyTime, const Entry *&e)
{
    if (source < 0 || static_cast<std::size_t>(source) >= m_ended.size())
        return Next::End;
    if (m_batch.left()) // a batch's lines come first
        return m_ended[static_cast<std::size_t>(source)] ? Next::End : Next::Pending;
    // The previous entry handed out is consumed now (it stayed valid until this call).
    if (!fillHead())
        // The recording ran out: a source that ended in it ends; one that did not (the run was
        // stopped) waits, and onExhausted stopped the run.
        return m_ended[static_cast<std::size_t>(source)] ? Next::End : Next::Pending;
    if (m_head.source != source)
        return m_ended[static_cast<std::size_t>(source)] ? Next::End : Next::Pending;
    if (!anyTime && m_reader->info().manifest.startedAtMs + m_head.atMs > m_clock.nowMs())
        return Next::Pending;
    m_haveHead = false; // handed out: the next call reads the one after
    if (m_head.partition) {
        auto &left = m_left[static_cast<std::size_t>(source)];
        if (static_cast<std::size_t>(*m_head.partition) < left.size())
            --left[static_cast<std::size_t>(*m_head.partition)];
    }
    ++m_replayed;
    e = &m_head;
    return Next::Entry;
}

void Replayer::viewToHead(const LineView &v, int source)
{
    m_head.atMs = v.atMs;
    m_head.source = source;
    m_head.partition = v.partition;
    m_head.offset = v.offset;
    m_head.timestamp = v.timestamp;
    m_head.key.reset();
    m_head.headers.clear();
    m_head.value.assign(v.value);
    m_head.valueAbsent = v.valueAbsent;
    m_head.end = v.end;
}

// The batch hand-over of source.file's lines: what next() does line by line (end markers,
// the time check, the counts), with each line a view of the reader's buffer instead of a copy
// into the head. The first line of a batch may make the reader read on; the others may not,
// so the views already handed over stay valid. The first line that is not the batch's (another
// source's, or not due) becomes the head, as next() would have left it.
Feed::Next Replayer::nextLines(int source, bool anyTime, LineBatch *&out)
{
    out = &m_batch;
    if (source < 0 || static_cast<std::size_t>(source) >= m_ended.size())
        return Next::End;
    const auto ended = [&] {
        return m_ended[static_cast<std::size_t>(source)];
    };
    if (m_batch.left()) // the batch's source takes the rest first
        return m_batch.source == source ? Next::Entry : ended() ? Next::End : Next::Pending;
    LineBatch &batch = m_batch;
    batch.source = source;
    batch.count = batch.taken = 0;
    batch.rawAt = batch.rawEnd = batch.rawBase = nullptr;
    batch.rawEnds = nullptr;
    batch.rawStays = false;
    batch.rawUnchecked = false;
    batch.rawKeep.reset();
    if (batch.lines.empty()) // as many as the loop pulls from a source per turn (batchSize)
        batch.lines.resize(256);
    if (m_haveHead || m_exhausted) {
        // A head already parsed as an Entry (after another source's turn, or a line not due
        // yet), or the end of the recording: the line-by-line way, for this one line.
        const Entry *e = nullptr;
        const Next n = next(source, anyTime, e);
        if (n == Next::Entry) {
            batch.lines[0] = {e->value, e->offset, e};
            batch.count = 1;
        }
        return n;
    }
    if (takeRun(source, batch))
        return Next::Entry;
    const std::size_t cap = batch.lines.size();
    if (m_spare.size() < cap) {
        m_spare.resize(cap);
        m_scratch.resize(cap);
    }
    const std::int64_t startedAt = m_reader->info().manifest.startedAtMs;
    const std::int64_t now = m_clock.nowMs();
    while (static_cast<std::size_t>(batch.count) < cap) {
        const auto k = static_cast<std::size_t>(batch.count);
        int from = -1;
        const Reader::Got got
            = m_reader->nextView(m_view, m_spare[k], from, m_scratch[k], batch.count == 0);
        if (got == Reader::Got::NeedRead)
            break; // the rest in the next batch
        if (got == Reader::Got::End) {
            const bool bad = !m_reader->error().empty();
            m_exhausted = !bad; // the reader is not asked again at its end
            if (batch.count > 0)
                break; // the lines before first; the next call reports the error or the end
            if (bad)
                throw std::runtime_error("--replay: " + m_reader->error());
            fillHead(); // calls onExhausted as next() does
            return ended() ? Next::End : Next::Pending;
        }
        m_line = m_reader->line();
        const bool isView = got == Reader::Got::View;
        const Entry &entry = m_spare[k];
        if (isView ? m_view.end : entry.end) {
            m_ended[static_cast<std::size_t>(from)] = true;
            continue;
        }
        const std::int64_t at = isView ? m_view.atMs : entry.atMs;
        if (from != source || (!(anyTime && batch.count == 0) && startedAt + at > now)) {
            if (isView)
                viewToHead(m_view, from);
            else
                std::swap(m_head, m_spare[k]);
            m_haveHead = true;
            break;
        }
        const std::optional<std::int32_t> &partition = isView ? m_view.partition : entry.partition;
        if (partition) {
            auto &left = m_left[static_cast<std::size_t>(source)];
            if (static_cast<std::size_t>(*partition) < left.size())
                --left[static_cast<std::size_t>(*partition)];
        }
        ++m_replayed;
        batch.lines[k] = isView ? LineBatch::Line{m_view.value, m_view.offset, nullptr}
                                : LineBatch::Line{entry.value, entry.offset, &entry};
        ++batch.count;
    }
    if (batch.count > 0)
        return Next::Entry;
    // Only the head was read: another source's record, or this source's not due yet.
    return m_head.source != source && ended() ? Next::End : Next::Pending;
}

// /2: the rest of a block of raw lines, due and of this source, is the batch as it is: no
// line is looked at here (the source takes them at the ends the reader found), only the
// block's counts.
bool Replayer::takeRun(int source, LineBatch &batch)
{
    Reader::RawRun run;
    if (m_reader->peekRun(run, true) != Reader::Run::Lines || run.source != source
        || m_reader->info().manifest.startedAtMs + run.atMs > m_clock.nowMs())
        return false; // line by line: another source's, not due, not raw, or the end
    handOver(source, run, batch);
    return true;
}

// A whole block for a worker to check and parse: as takeRun, with the block's payload not read
// here (peekRun's deferCheck) and its lines all counted taken at once. A read (not mapped)
// recording's block is in the reader's buffer: the batch holds a share of it (rawKeep), and
// the reader reads on into another buffer while the share is held, so the worker parses the
// block where it was read (no copy on the loop thread).
Feed::Whole Replayer::nextBlock(int source, LineBatch *&out)
{
    out = &m_batch;
    Reader::RawRun run;
    if (m_batch.left() || m_haveHead || m_exhausted || source < 0
        || static_cast<std::size_t>(source) >= m_ended.size()
        || m_reader->peekRun(run, true, true) != Reader::Run::Lines || !run.unchecked
        || run.source != source)
        return Whole::No;
    if (m_reader->info().manifest.startedAtMs + run.atMs > m_clock.nowMs())
        return Whole::NotDue;
    m_batch.rawWhere = m_reader->checkedWhere();
    handOver(source, run, m_batch);
    m_batch.taken = m_batch.count;
    m_batch.rawUnchecked = true;
    m_batch.rawKeep = m_reader->lendBuffer();
    m_batch.rawCrc = run.payloadCrc;
    return Whole::Taken;
}

void Replayer::handOver(int source, const Reader::RawRun &run, LineBatch &batch)
{
    m_reader->takeRun();
    m_line = m_reader->line();
    batch.source = source;
    batch.count = static_cast<int>(run.count);
    batch.taken = 0;
    batch.rawAt = run.begin;
    batch.rawEnd = run.end;
    batch.rawBase = run.base;
    batch.rawEnds = run.ends;
    batch.rawStays = m_reader->mapped();
    batch.rawUnchecked = false;
    batch.rawKeep.reset();
    batch.rawHasOffset = run.firstOffset.has_value();
    batch.rawOffset = run.firstOffset.value_or(0);
    if (run.partition) {
        auto &left = m_left[static_cast<std::size_t>(source)];
        if (static_cast<std::size_t>(*run.partition) < left.size())
            left[static_cast<std::size_t>(*run.partition)] -= run.count;
    }
    m_replayed += run.count;
}

bool Replayer::skipToNext(int source)
{
    if (m_clock.speed() > 0 || m_batch.left() || source < 0
        || static_cast<std::size_t>(source) >= m_ended.size())
        return false; // paced; or a batch's lines come first (they are due)
    std::int64_t at = 0;
    Reader::RawRun run;
    // (deferCheck: a block not started is not read here; whoever takes its lines checks it.)
    if (!m_haveHead && !m_exhausted && m_reader->peekRun(run, true, true) == Reader::Run::Lines) {
        if (run.source != source)
            return false;
        at = run.atMs;
    } else {
        if (!fillHead() || m_head.source != source)
            return false;
        at = m_head.atMs;
    }
    const std::int64_t due = m_reader->info().manifest.startedAtMs + at;
    if (due > m_clock.nowMs())
        m_clock.skipMs(due - m_clock.nowMs());
    return true;
}

bool Replayer::hasRecordsLeft(int source, int partition) const
{
    if (source < 0 || static_cast<std::size_t>(source) >= m_left.size())
        return false;
    const auto &left = m_left[static_cast<std::size_t>(source)];
    return partition >= 0 && static_cast<std::size_t>(partition) < left.size()
           && left[static_cast<std::size_t>(partition)] > 0;
}

std::string Replayer::where() const
{
    return m_reader->line() > 0 ? "recording line " + std::to_string(m_line) : "recording";
}

} // namespace tideline::recording
