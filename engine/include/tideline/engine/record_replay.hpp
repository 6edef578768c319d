#pragma once
// Recording a run and replaying one (issue 19), above the folder format (recording.hpp).
//
// Capture and Feed are what a source sees (OperatorContext::capture / ::feed): while a run is
// recorded, each source hands its RAW input to the Capture as it reads it (a file's lines, a
// Kafka message with its metadata, a generated record as JSON), before parsing, so a
// malformed line replays to `errors` too; the runtime adds an end marker when a source
// finishes. During a replay, the runtime builds each source from the Feed instead of its real
// input (source.file keeps its own parsing and reads its lines from the feed; source.kafka is
// a replay source that decodes the recorded messages like the consumer does, with no broker;
// generators parse their recorded JSON).
//
// Time. A replay runs on a ReplayClock, a virtual clock starting where the recording started:
// the loop's idle sleeps advance it (flat out: instantly; or paced against the wall clock, as
// recorded or ×N), and a recorded record is released when the clock reaches the processing
// time it arrived at, in the recorded order across sources and partitions (only the source
// whose record is next may emit). Every processing-time rule of the engine already reads the
// job's Clock (idleness, periodic watermarks, the checkpoint interval, pacing), so the same
// recording gives the same ticks, the same idleness and byte-identical outputs, run after run.
//
// [Threading] Recorder and Replayer are used on the loop thread only, except ReplayClock's
// speed and restartPacing(), which the designer may call from its thread.

#include <tideline/engine/recording.hpp>
#include <tideline/engine/time.hpp>

#include <atomic>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tideline {
struct PipelineSpec;
class Record;
} // namespace tideline

namespace tideline::recording {

/// What a source hands its raw input to while the run is recorded.
class Capture
{
public:
    /// A source declares itself when it opens (its partition count known). Returns the index to
    /// add() with, or -1 when the recording does not know `nodeId` (not a source).
    virtual int declare(const std::string &nodeId, int partitions) = 0;
    /// One raw input record; `e.atMs` and `e.source` are set here.
    virtual void add(int source, Entry &e) = 0;
    /// The source finished its input (the loop saw Poll::Finished).
    virtual void endOf(const std::string &nodeId) = 0;

protected:
    ~Capture() = default;
};

/// Convenience for generator sources: captures a built record as its JSON text.
void captureRecord(Capture &capture, int source, const Record &record);

/// A batch of a source's recorded lines (source.file's replay): views of the recording's
/// bytes, handed over in one call instead of one next() (and one Entry copy) per line. The
/// feed owns it (it outlives the job's sources); the source it was handed to counts `taken`.
struct LineBatch
{
    struct Line
    {
        std::string_view value;
        std::optional<std::int64_t> offset;
        const Entry *entry = nullptr; ///< the whole entry, when the line has headers
    };
    std::vector<Line> lines; ///< [0, count) handed over; its size is the most per call
    int source = -1;         ///< whose lines they are
    int count = 0;
    int taken = 0; ///< how many the source has used: the rest are still the feed's next
    /// A run of raw lines instead of `lines` (a tideline-recording/2 block of a file's lines,
    /// as they were read): [rawAt, rawEnd) holds the count - taken lines left, each ended by
    /// '\n' at rawBase + *rawEnds (the next line's; the reader found them when it checked the
    /// block), so taking one is a load and a step.
    const char *rawAt = nullptr;
    const char *rawEnd = nullptr;
    const char *rawBase = nullptr;
    const std::size_t *rawEnds = nullptr;
    std::int64_t rawOffset = 0; ///< of the next raw line, when rawHasOffset
    bool rawHasOffset = false;
    /// The raw lines stay valid after the next call, until the feed is destroyed (the
    /// recording is mapped): a reader on another thread may parse them where they are.
    bool rawStays = false;
    /// A whole block handed over unchecked (Feed::nextBlock): rawEnds is null, and whoever
    /// parses [rawAt, rawEnd) first checks it with checkBlockPayload(rawCrc, count), reporting
    /// a failure as rawWhere + ": " + why (the loop thread's reader would have said the same).
    bool rawUnchecked = false;
    /// With rawUnchecked, when the recording is read (not mapped): a share of the reader's
    /// buffer (Reader::lendBuffer) that keeps [rawAt, rawEnd) valid while it is held, so the
    /// taker parses the block where it is instead of copying it.
    std::shared_ptr<const void> rawKeep;
    std::uint32_t rawCrc = 0;
    std::string rawWhere;
    bool left() const { return taken < count; }
    /// The next line (left() must be true).
    Line take()
    {
        if (rawAt) {
            const char *nl = rawBase + *rawEnds++;
            Line l{std::string_view(rawAt, static_cast<std::size_t>(nl - rawAt)),
                   rawHasOffset ? std::optional<std::int64_t>(rawOffset++) : std::nullopt, nullptr};
            rawAt = nl + 1;
            ++taken;
            return l;
        }
        return lines[static_cast<std::size_t>(taken++)];
    }
};

/// Where replayed sources take their input from.
class Feed
{
public:
    enum class Next {
        Entry,   ///< `e` is the source's next record (valid until the next call)
        Pending, ///< not yet: another source's record comes first, or its time is not reached
        End      ///< the source's recorded input ended
    };
    /// -1 when the recording has no source `nodeId` (Replayer::open refuses that before).
    virtual int sourceIndex(const std::string &nodeId) const = 0;
    virtual int partitions(int source) const = 0;
    /// The next record of `source`. `anyTime`: the rest of a record already started (a CSV
    /// cell spanning lines, a header) is taken without waiting for its time. Throws
    /// std::runtime_error naming the file and line when the recording is corrupt.
    virtual Next next(int source, bool anyTime, const Entry *&e) = 0;
    /// Points `batch` at `source`'s next records that are due (as next() would return them
    /// one by one; `anyTime` for the first only). Entry: batch->count > 0, its lines valid
    /// until the next call into the feed. Until the source has taken them all (taken ==
    /// count), no other source's record comes next: the order across sources stays the
    /// recorded one; a call while they are not all taken hands the same batch back. Throws
    /// like next().
    virtual Next nextLines(int source, bool anyTime, LineBatch *&batch) = 0;
    /// A flat-out replay (speed 0, now) whose next record is `source`'s moves its clock on at
    /// once to the time that record arrived, as the loop's idle ticks would one by one; true
    /// when it did (the record is due now). For a reader that takes lines ahead of the loop
    /// (the fused path of a run with this one source, whose outputs no clock reading changes).
    [[nodiscard]] virtual bool skipToNext(int source) = 0;
    enum class Whole {
        Taken,  ///< `batch` is a whole block of `source`'s raw lines, due and all taken
        NotDue, ///< the next records are such a block, not due yet on the replay's clock
        No      ///< they are not (another source's, not raw, not a whole block, the end)
    };
    /// For a reader that parses lines on other threads (a parallel replay of a file): when
    /// `source`'s next records are a whole block of raw lines, hands it over without reading
    /// its payload (LineBatch::rawUnchecked: the thread that parses it checks it), all taken
    /// (taken == count); the loop thread touches none of its bytes. They stay where they are:
    /// mapped (rawStays), or in a read recording's buffer that rawKeep holds a share of.
    /// No: nextLines() as before; the default for a feed without blocks.
    [[nodiscard]] virtual Whole nextBlock(int source, LineBatch *&batch)
    {
        (void)source;
        batch = nullptr;
        return Whole::No;
    }
    /// A bounded Kafka source's partition still has recorded records (so it is slow, not
    /// idle: SourceOperator::hasRecordsLeft).
    virtual bool hasRecordsLeft(int source, int partition) const = 0;
    /// "DIR/records.tsv line N" of the last entry returned (for errors).
    virtual std::string where() const = 0;

protected:
    ~Feed() = default;
};

/// Hex SHA-256 of `bytes` (the manifest's pipeline hash).
[[nodiscard]] std::string sha256Hex(std::string_view bytes);

/// The pipeline's sources as a recording lists them (id, kind; partitions 1).
[[nodiscard]] std::vector<SourceInfo> pipelineSources(const PipelineSpec &spec);

/// Records a run into a folder. Give it to the job as JobOptions::capture, call begin() just
/// before the run starts and finish() after it ended.
class Recorder final : public Capture
{
public:
    /// Refuses a folder that already holds a recording. `pipelineText` is the file as loaded.
    [[nodiscard]] static std::unique_ptr<Recorder> create(const std::string &dir,
                                                          const PipelineSpec &spec,
                                                          std::string_view pipelineText,
                                                          Limits limits,
                                                          Clock &clock,
                                                          std::string &error);
    ~Recorder();

    int declare(const std::string &nodeId, int partitions) override;
    void add(int source, Entry &e) override;
    void endOf(const std::string &nodeId) override;

    /// Processing time starts now; creates records.tsv and writes what the sources captured
    /// while opening (a CSV header). "" or the error.
    [[nodiscard]] std::string begin();
    /// Flushes and rewrites the manifest (what a kill leaves). Cheap when nothing changed;
    /// call it every second or so from the loop thread (the runner: each metrics interval).
    void checkpoint();
    /// Closes the recording. "" or the error.
    [[nodiscard]] std::string finish(const std::string &stoppedBy);

    /// Called once when a limit (records, bytes, duration) or a full disk stopped the
    /// capture: the runner stops the run there, so what ran is what was recorded.
    std::function<void()> onStopped;
    /// Why capture stopped early ("" while it runs).
    const std::string &stoppedBy() const;
    /// The manifest as it stands (counts so far).
    Manifest manifest() const;

private:
    Recorder() = default;
    void stopped();

    std::string m_dir;
    Manifest m_manifest;
    Limits m_limits;
    Clock *m_clock = nullptr;
    std::unique_ptr<Writer> m_writer;
    std::vector<Entry> m_early; ///< captured before begin() (in open())
    std::int64_t m_lastCheckpointMs = 0;
    std::int64_t m_sinceCheck = 0;
    bool m_stopped = false;
    std::string m_reason; ///< why the Recorder itself stopped capture ("max records")
    std::string m_error;
};

/// The virtual clock of a replay. speed 0 = flat out; 1 = as recorded; N = N times faster.
class ReplayClock final : public Clock
{
public:
    explicit ReplayClock(std::int64_t startMs, double speed = 0);
    std::int64_t nowMs() override { return m_now; }
    void sleepMs(std::int64_t ms) override;
    void setSpeed(double speed); ///< any thread
    double speed() const { return m_speed.load(); }

    // Pause and Step (the designer holds the loop inside the job's clock while a replay is
    // paused). [Threading] restartPacing() from any thread; skipMs() on the loop thread only.

    /// Pacing starts afresh at the next sleep, as after a change of speed: the wall time the
    /// loop spent held (a paused replay) is not caught up in a burst afterwards.
    void restartPacing() { m_restart.store(true); }
    /// Advances the virtual clock by `ms` at once, whatever the speed, and restarts pacing:
    /// Step on a paced replay releases the next record without waiting for it on the wall
    /// clock (the loop's idle sleeps during the step go here instead of sleepMs()).
    void skipMs(std::int64_t ms);

private:
    std::int64_t m_now;
    std::atomic<double> m_speed;
    std::atomic<bool> m_restart{false};
    // Pacing: the wall clock and the virtual time at the last change of speed.
    std::int64_t m_wallAnchorMs = -1;
    std::int64_t m_virtualAnchorMs = 0;
    double m_anchorSpeed = 0;
};

/// Replays a recording. Give it to the job as JobOptions::feed and its clock() as
/// JobOptions::clock.
class Replayer final : public Feed
{
public:
    /// Opens DIR for `spec`: nullptr with `error` when it is unreadable or corrupt (naming the
    /// file) or made for other sources (naming each source that does not match).
    [[nodiscard]] static std::unique_ptr<Replayer> open(const std::string &dir,
                                                        const PipelineSpec &spec,
                                                        std::string_view pipelineText,
                                                        double speed,
                                                        std::string &error);
    ~Replayer();

    ReplayClock &clock() { return m_clock; }
    const Opened &info() const;
    /// Notes for the user: a changed pipeline, a recording cut short, a torn last line.
    std::vector<std::string> notes() const;
    /// Called once when the recording ran out while some source had not ended in it (the
    /// recorded run was stopped, or killed): the runner stops the replay there too.
    std::function<void()> onExhausted;
    /// Records handed to the sources (a batch's lines as they are taken).
    std::int64_t replayed() const
    {
        return m_replayed - (m_batch.left() ? m_batch.count - m_batch.taken : 0);
    }

    int sourceIndex(const std::string &nodeId) const override;
    int partitions(int source) const override;
    Next next(int source, bool anyTime, const Entry *&e) override;
    Next nextLines(int source, bool anyTime, LineBatch *&batch) override;
    Whole nextBlock(int source, LineBatch *&batch) override;
    bool skipToNext(int source) override;
    bool hasRecordsLeft(int source, int partition) const override;
    std::string where() const override;

private:
    explicit Replayer(std::int64_t startMs, double speed);
    bool fillHead();
    /// The line just read as the head (it is not the batch's).
    void viewToHead(const LineView &v, int source);
    /// nextLines' batch as a run of raw lines (/2), when the next records allow it.
    [[nodiscard]] bool takeRun(int source, LineBatch &batch);
    /// Takes the run peekRun described into `batch` and counts its lines replayed.
    void handOver(int source, const Reader::RawRun &run, LineBatch &batch);
    [[nodiscard]] std::string countPartitions(const std::string &dir);

    ReplayClock m_clock;
    std::unique_ptr<Reader> m_reader;
    Entry m_head;
    bool m_haveHead = false;
    bool m_exhausted = false;
    bool m_exhaustedCalled = false;
    bool m_changedPipeline = false;
    std::vector<bool> m_ended;
    /// Per source, per partition: recorded records not replayed yet (bounded Kafka only).
    std::vector<std::vector<std::int64_t>> m_left;
    std::int64_t m_replayed = 0;
    std::int64_t m_line = 0;
    LineBatch m_batch; ///< the last batch handed out: its lines left come before anything else
    LineView m_view;
    std::vector<Entry> m_spare;         ///< per batch line: one that needed an Entry
    std::vector<std::string> m_scratch; ///< per batch line: an unescaped value
};

} // namespace tideline::recording
