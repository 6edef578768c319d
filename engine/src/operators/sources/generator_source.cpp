// source.generator: synthetic events with controllable disorder.
//
// Every random decision about event i comes from a hash of (seed, i, purpose), so the output
// is a pure function of the params: identical seed, identical output, and a checkpoint needs
// only the position plus the events already scheduled but not yet emitted.
//
// Disorder model: event i has a true event time base(i) = start + i*1000/rate. It is emitted at
// "arrival time" base(i) + delay, where delay is uniform in [0, max_delay_ms], plus late_by_ms
// for a late_fraction of events. A duplicate_fraction of events arrive a second time, 1..1000 ms
// after the first. Emission follows arrival time, which is what makes the stream disordered.
//
// Because make(i) is a pure function of i, the arrival heap holds only (arrival, seq) pairs and
// the record is built when it is emitted: 16-byte heap entries instead of whole records keep
// the sift cheap, and a duplicate costs no record copy.
//
// With parallelism > 1 an ordered stream (no disorder) is made in index ranges on the job's
// workers (chunk_runner.hpp) and emitted here in index order: the same records, and the loop
// thread no longer builds them. A disordered one stays here (its order comes from the heap).

#include "operators/fusable.hpp"
#include "operators/operators.hpp"
#include "operators/params.hpp"
#include "operators/sources/chunk_runner.hpp"
#include "operators/sources/pacer.hpp"

#include <tideline/engine/record_replay.hpp>

#include <queue>

namespace tideline {

namespace {

std::uint64_t mix(std::uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

double unit(std::uint64_t h)
{
    return static_cast<double>(h >> 11) * 0x1.0p-53;
}

class GeneratorSource final : public SourceOperator,
                              public sources::ChunkedSource,
                              public fusable::IndexedSource
{
public:
    explicit GeneratorSource(const OperatorContext &ctx)
        : m_pacer(ctx.spec.params.value("pace", Json::object()), ctx.clock)
    {
        const NodeParams p(ctx);
        m_count = p.integer("count");
        m_rate = p.number("rate_per_s");
        m_keys = std::max<long long>(1, p.integer("keys"));
        m_seed = static_cast<std::uint64_t>(p.integer("seed"));
        m_start = p.integer("start_time");
        m_partitions = static_cast<int>(p.integer("partitions"));
        const NodeParams d = p.object("disorder");
        m_maxDelay = d.integer("max_delay_ms");
        m_lateFraction = d.number("late_fraction");
        m_lateBy = d.integer("late_by_ms");
        m_dupFraction = d.number("duplicate_fraction");
        int idle = static_cast<int>(d.integer("idle_partitions"));
        m_activePartitions = std::max(1, m_partitions - idle);
        m_ordered = m_maxDelay == 0 && m_lateFraction == 0 && m_dupFraction == 0;
        if (ctx.capture) { // --record: each record as JSON
            m_capture = ctx.capture;
            m_captureSource = m_capture->declare(ctx.spec.id, m_partitions);
        }
    }

    int partitions() const override { return m_partitions; }

    long long indexedCount() const override
    {
        return m_ordered && !m_capture && !m_pacer.active() && m_count > 0 ? m_count : -1;
    }
    long long position() const override { return m_next; }
    void setPosition(long long next) override { m_next = next; }
    void makeInto(long long i, Record &r) const override
    {
        std::uint64_t h = mix(m_seed * 0x100000001b3ULL ^ static_cast<std::uint64_t>(i));
        r.clear();
        r.reserve(5, 48);
        r.append(StaticPath("event_id"), Value::integer(i + 1));
        r.append(StaticPath("user_id"),
                 Value::integer(static_cast<std::int64_t>(h % static_cast<std::uint64_t>(m_keys))));
        r.append(StaticPath("value"),
                 Value::integer(static_cast<std::int64_t>((h >> 32) % 100) + 1));
        r.append(StaticPath("event_time"), Value::integer(baseTime(i)));
        int part = static_cast<int>(static_cast<std::uint64_t>(i)
                                    % static_cast<std::uint64_t>(m_activePartitions));
        r.append(StaticPath("partition"), Value::integer(part));
        r.partition = static_cast<std::uint32_t>(part);
    }

    bool runChunksOn(sources::ChunkRunner &runner) override
    {
        if (!m_ordered || m_capture || m_pacer.active())
            return false;
        m_chunks = std::make_unique<sources::ChunkQueue<Chunk>>(runner);
        return true;
    }

    Poll poll(Output &out, int maxRecords) override
    {
        int n = m_pacer.allowance(maxRecords);
        if (n == 0)
            return Poll::Waiting;
        if (m_chunks)
            return pollChunks(out, n);
        int emitted = 0;
        while (emitted < n) {
            if (m_ordered) {
                if (m_count > 0 && m_next >= m_count)
                    break;
                Record r = make(m_next);
                if (m_pacer.bySpeed() && !m_pacer.dueAt(r.get("event_time").i))
                    return emitted ? Poll::Produced : Poll::Waiting;
                ++m_next;
                if (m_capture) [[unlikely]]
                    recording::captureRecord(*m_capture, m_captureSource, r);
                out.emit(0, std::move(r));
            } else {
                refill();
                if (m_heap.empty())
                    break;
                const long long i = static_cast<long long>(m_heap.top().seq / 2);
                if (m_pacer.bySpeed() && !m_pacer.dueAt(baseTime(i)))
                    return emitted ? Poll::Produced : Poll::Waiting;
                m_heap.pop();
                Record r = make(i);
                if (m_capture) [[unlikely]]
                    recording::captureRecord(*m_capture, m_captureSource, r);
                out.emit(0, std::move(r));
            }
            ++emitted;
            m_pacer.emitted();
        }
        if (emitted > 0)
            return Poll::Produced;
        return Poll::Finished;
    }

    void reportMetrics(observe::NodeMetrics &m) const override
    {
        m.stateEntries = static_cast<std::int64_t>(m_heap.size());
    }

    void snapshotState(StateWriter &w) const override
    {
        w.i64(m_next);
        auto copy = m_heap;
        w.u64(copy.size());
        while (!copy.empty()) {
            // The record is written for readers of the state (and older restores); restore
            // rebuilds it from seq, so it is never read back.
            w.i64(copy.top().arrival);
            w.u64(copy.top().seq);
            w.record(make(static_cast<long long>(copy.top().seq / 2)));
            copy.pop();
        }
    }
    void restoreState(StateReader &r) override
    {
        m_next = r.i64();
        m_heap = {};
        // A corrupt blob must not restore events this generator never scheduled: their times
        // (baseTime) would overflow. Every pending event's index is below m_next, and m_next
        // is within count with a representable time.
        const bool nextOk
            = m_next >= 0 && (m_count == 0 || m_next <= m_count)
              && static_cast<double>(m_start) + static_cast<double>(m_next) * 1000.0 / m_rate
                     < 9.0e18;
        std::uint64_t n = r.u64();
        for (std::uint64_t i = 0; i < n && !r.failed(); ++i) {
            Pending p;
            p.arrival = r.i64();
            p.seq = r.u64();
            Record ignored; // rebuilt from seq by make() at emission
            r.record(ignored);
            if (!r.failed() && (!nextOk || p.seq / 2 >= static_cast<std::uint64_t>(m_next)))
                throw ConfigError("the checkpointed generator state is corrupt (an event it "
                                  "never scheduled)");
            m_heap.push(p);
        }
        if (!r.failed() && !nextOk)
            throw ConfigError("the checkpointed generator state is corrupt (next event "
                              + std::to_string(m_next) + ")");
    }
    std::string stateFingerprint() const override
    {
        return "generator/" + std::to_string(m_seed) + "/" + std::to_string(m_count);
    }

private:
    /// Events [first, first + count) made on a worker.
    struct Chunk final : sources::ChunkTask
    {
        explicit Chunk(const GeneratorSource &source)
            : src(source)
        {
        }
        void run() noexcept override
        {
            records.clear();
            records.reserve(static_cast<std::size_t>(count));
            for (long long i = first; i < first + count; ++i)
                records.push_back(src.make(i));
        }
        const GeneratorSource &src;
        long long first = 0, count = 0;
        std::vector<Record> records;
    };
    /// Events per chunk: a chunk's hand-over (a lock, a wake-up) is noise next to it.
    static constexpr long long kChunkEvents = 1024;

    Poll pollChunks(Output &out, int n)
    {
        int emitted = 0;
        while (emitted < n) {
            while (!m_chunks->full() && (m_count == 0 || m_issued < m_count)) {
                std::unique_ptr<Chunk> c = m_chunks->take();
                if (!c)
                    c = std::make_unique<Chunk>(*this);
                c->first = m_issued;
                c->count = m_count == 0 ? kChunkEvents : std::min(kChunkEvents, m_count - m_issued);
                m_issued += c->count;
                m_chunks->submit(std::move(c));
            }
            Chunk *c = m_chunks->front();
            if (!c)
                break;
            auto &records = c->records;
            while (emitted < n && m_inChunk < records.size()) {
                out.emit(0, std::move(records[m_inChunk++]));
                ++m_next;
                ++emitted;
            }
            if (m_inChunk == records.size()) {
                m_inChunk = 0;
                m_chunks->pop();
            }
        }
        return emitted > 0 ? Poll::Produced : Poll::Finished;
    }

    struct Pending
    {
        Timestamp arrival;
        std::uint64_t seq; ///< 2 * event index (+1 for the duplicate copy)
        bool operator>(const Pending &o) const
        {
            return arrival != o.arrival ? arrival > o.arrival : seq > o.seq;
        }
    };

    Timestamp baseTime(long long i) const
    {
        return m_start + static_cast<Timestamp>(static_cast<double>(i) * 1000.0 / m_rate);
    }

    Record make(long long i) const
    {
        Record r;
        makeInto(i, r);
        return r;
    }

    /// Schedules events until the earliest pending arrival cannot be overtaken by a future event
    /// (future events arrive no earlier than their base time, which only grows with i).
    void refill()
    {
        while (m_count == 0 || m_next < m_count) {
            if (!m_heap.empty() && baseTime(m_next) > m_heap.top().arrival)
                return;
            long long i = m_next++;
            std::uint64_t h = mix(m_seed ^ mix(static_cast<std::uint64_t>(i) + 0x51ed27));
            Timestamp delay
                = m_maxDelay > 0
                      ? static_cast<Timestamp>(h % static_cast<std::uint64_t>(m_maxDelay + 1))
                      : 0;
            if (m_lateFraction > 0 && unit(mix(h + 1)) < m_lateFraction)
                delay += m_lateBy;
            Timestamp arrival = baseTime(i) + delay;
            if (m_dupFraction > 0 && unit(mix(h + 2)) < m_dupFraction) {
                Timestamp later = arrival + 1 + static_cast<Timestamp>(mix(h + 3) % 1000);
                m_heap.push({later, static_cast<std::uint64_t>(i) * 2 + 1});
            }
            m_heap.push({arrival, static_cast<std::uint64_t>(i) * 2});
        }
    }

    Pacer m_pacer;
    recording::Capture *m_capture = nullptr;
    int m_captureSource = -1;
    long long m_count = 0;
    double m_rate = 1000;
    long long m_keys = 100;
    std::uint64_t m_seed = 1;
    Timestamp m_start = 0;
    int m_partitions = 1;
    int m_activePartitions = 1;
    long long m_maxDelay = 0;
    double m_lateFraction = 0;
    long long m_lateBy = 0;
    double m_dupFraction = 0;
    bool m_ordered = true;
    long long m_next = 0;
    std::priority_queue<Pending, std::vector<Pending>, std::greater<>> m_heap;
    /// Parallelism > 1, ordered: events made on the workers (null: made here). m_next counts
    /// the ones emitted, m_issued the ones handed to a chunk; m_inChunk: emitted of the front.
    long long m_issued = 0;
    std::size_t m_inChunk = 0;
    std::unique_ptr<sources::ChunkQueue<Chunk>> m_chunks; // last: its chunks read the above
};

} // namespace

std::unique_ptr<Operator> makeGeneratorSource(const OperatorContext &ctx)
{
    return std::make_unique<GeneratorSource>(ctx);
}

void validateGenerator(const NodeValidationContext &ctx)
{
    const NodeParams p(ctx);
    const NodeParams d = p.object("disorder");
    const std::int64_t partitions = p.integer("partitions");
    const std::int64_t idle = d.integer("idle_partitions");
    if (idle >= partitions)
        ctx.error("disorder.idle_partitions",
                  "must be less than partitions (" + std::to_string(partitions)
                      + "): at least one partition has to produce events");
    if (d.number("late_fraction") > 0 && d.integer("late_by_ms") == 0)
        ctx.warning("disorder.late_by_ms",
                    "late_fraction is set but late_by_ms is 0, so no event is actually late");
}

} // namespace tideline
