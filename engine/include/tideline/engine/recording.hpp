#pragma once
// A recording: every source's input records as they arrived, so a run can be replayed exactly
// (issue 19). This header is the on-disk format — writing and reading a recording folder — and
// nothing about how the runtime captures or replays.
//
//   DIR/manifest.json   what was recorded: format, pipeline name and hash, the sources (id,
//                       kind, partitions), counts, time span, whether it ended cleanly and why.
//                       Sealed (CRC32C of its content) and replaced atomically (write + rename).
//   DIR/records.tsv     the input records in arrival order across all sources. Since
//                       tideline-recording/2: blocks (see "Blocks" below), each a header line
//                       (source, at_ms, count, CRCs) and its records, a file's lines as read.
//                       tideline-recording/1 (still read): one line per record,
//                         crc32c  at_ms  source  partition  offset  timestamp  key  headers  value
//                       tab-separated; `\N` = absent; text fields escaped (\\ \t \n \r, and
//                       \xHH for control and non-UTF-8 bytes) so any bytes round-trip exactly.
//                       `at_ms` is processing time since the recording began, so gaps (and so
//                       idleness) replay; `value` is the raw input (a file's line, a Kafka
//                       message's payload) before any parsing, so malformed records replay as
//                       the same errors. crc32c (8 hex digits) covers the rest of the line.
//                       A value of `\N` is an absent value (a Kafka tombstone); a value of
//                       `\E` (no other field set) marks the end of that source's input, where
//                       the recorded run saw the source finish. For source.file, `offset` is
//                       the line number and a line over the record limit is recorded as its
//                       first 4 KiB with the header `length` = its full length.
//
// Why text and not a binary log: a student or an engineer can open it, grep it and cut it;
// errors can name a line; and a crash or a full disk can only tear the last line (/1) or block
// (/2), which the reader detects (its length) and leaves out. Why CRCs: an edit or a flipped
// bit is otherwise still a valid record and would replay silently wrong. Why blocks (/2): one
// CRC pass and one header per block instead of a CRC, a column scan and escapes per record
// let a replay hand a file's lines on with about the work source.file does (issue 19).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tideline::recording {

/// What new recordings are written as (blocks of records, docs/reference/recordings.md).
inline constexpr const char *kFormat = "tideline-recording/2";
/// One CRC-checked line per record: still read (and written when Manifest::version is 1).
inline constexpr const char *kFormatV1 = "tideline-recording/1";

struct SourceInfo
{
    std::string id;
    std::string kind;
    int partitions = 1;
    std::int64_t records = 0; ///< captured from this source
    bool operator==(const SourceInfo &) const = default;
};

struct Manifest
{
    int version = 2;            ///< of the records.tsv layout: 1 (a line per record) or 2 (blocks)
    std::string pipeline;       ///< the pipeline's name
    std::string pipelineSha256; ///< of its file as loaded (a changed pipeline replays, with a note)
    std::int64_t startedAtMs = 0; ///< wall clock (epoch ms) when recording began
    std::vector<SourceInfo> sources;
    std::int64_t records = 0;
    std::int64_t ends = 0;       ///< end markers (lines that are not records; "ends", since 19.1)
    std::int64_t bytes = 0;      ///< of records.tsv
    std::int64_t durationMs = 0; ///< processing time from the first to the last record
    bool complete = false;       ///< false while recording, or after a kill
    std::string stoppedBy;       ///< "end of input", "max records", "disk full", "stopped", ...
};

/// One captured input record. Absent optional fields were not known at capture (a file has no
/// partition, offset, timestamp, key or headers).
struct Entry
{
    std::int64_t atMs = 0;
    int source = 0; ///< index into Manifest::sources
    std::optional<std::int32_t> partition;
    std::optional<std::int64_t> offset;
    std::optional<std::int64_t> timestamp;
    std::optional<std::string> key;
    std::vector<std::pair<std::string, std::string>> headers;
    std::string value;
    bool valueAbsent = false; ///< no value at all (a Kafka tombstone), not an empty one
    bool end = false;         ///< an end marker: the source's input ended here
};

// --- Lines (exposed for tests and the fuzz harness) ---

/// Appends one line (with its trailing '\n') for `e`, naming its source `sourceId`.
void appendLine(std::string &out, const Entry &e, std::string_view sourceId);

/// Parses one line (without '\n'). Returns "" or what is wrong (without file and line number);
/// the source id is returned in `sourceId` for the caller to map to an index.
/// A replay reads every line through here: one SSE2 pass finds the separators and any escape,
/// and a line as the recorder writes it is read without a per-column search or a library call;
/// any other line goes to parseLineReference, so results and errors are the same.
[[nodiscard]] std::string parseLine(std::string_view line, Entry &e, std::string &sourceId);
/// The reference reading, column by column (the fuzz harness checks parseLine against it).
[[nodiscard]] std::string
parseLineReference(std::string_view line, Entry &e, std::string &sourceId);

/// A line read without a copy (a replay's source.file lines: the value is handed on as a view
/// of the recording's bytes). Only for a line with no key and no headers.
struct LineView
{
    std::int64_t atMs = 0;
    std::string_view sourceId;
    std::optional<std::int32_t> partition;
    std::optional<std::int64_t> offset;
    std::optional<std::int64_t> timestamp;
    std::string_view value; ///< into the line, or into `scratch` when it had escapes
    bool valueAbsent = false;
    bool end = false;
};

/// Reads `line` into `v` when it is a valid line with no key, no headers and a source id
/// without escapes; a value with escapes is unescaped into `scratch`. False for any other
/// line, valid or not: parseLine reads it (and says what is wrong). When true, `v` holds what
/// parseLineReference reads (the fuzz harness checks it).
[[nodiscard]] bool parseLineView(std::string_view line, LineView &v, std::string &scratch);

// --- Blocks: tideline-recording/2 (exposed for tests and the fuzz harness) ---
//
// records.tsv is a run of blocks, each a header line and its payload:
//   #HHHHHHHH <kind> <at_ms> <source> <count> <bytes> <partition> <first_offset> PPPPPPPP\n
// (tab-separated; H: CRC32C of the header from <kind> to P; P: CRC32C of the payload, the
// <bytes> bytes after the header). Every record of a block has the same source and at_ms.
//   R  raw lines: <count> values, each ended by '\n', as read (no escapes); the records have
//      the header's partition and offsets first_offset, +1, ... (`\N`: absent); no key,
//      timestamp or headers. A file source's lines: the replay hands them on as they are.
//   C  columns: <count> rows `partition offset timestamp key headers value`, escaped as in /1.
//   E  the source's end marker (count 0, bytes 0).

struct Block
{
    char kind = 0; ///< 'R', 'C' or 'E'
    std::int64_t atMs = 0;
    std::string sourceId;
    std::int64_t count = 0;                  ///< records (0 for an end marker)
    std::optional<std::int32_t> partition;   ///< R: of every record
    std::optional<std::int64_t> firstOffset; ///< R: of the first record, +1 per record after
    std::string_view payload;                ///< into the bytes given to readBlock
    std::size_t size = 0;                    ///< header and payload
    std::size_t headerSize = 0;
    std::uint32_t payloadCrc = 0; ///< as the header says
    /// The payload was checked (its CRC, its line count): lineEnds holds its lines' ends.
    bool checked = false;
    /// The offset in `payload` of each line's '\n' (readBlock finds them while it checks the
    /// count): taking a line is then a load, not a newline search.
    std::vector<std::size_t> lineEnds;
};

enum class BlockCheck {
    Whole, ///< a valid block
    Torn,  ///< the bytes end inside it (its header, if there is one, is valid)
    Bad    ///< not a valid block (`why` says what is wrong)
};
/// Reads the block at the start of `bytes`: checks its header, both CRCs and that the payload
/// holds `count` lines.
[[nodiscard]] BlockCheck readBlock(std::string_view bytes, Block &b, std::string &why);
/// readBlock's first half: the header and its CRC, and that the payload is all there (Torn
/// when not); the payload itself is not looked at (b.checked false).
[[nodiscard]] BlockCheck readBlockHeader(std::string_view bytes, Block &b, std::string &why);
/// readBlock's second half, on any thread: the payload's CRC against `crc` and that it holds
/// `count` lines, each ended by '\n', whose ends go into `ends`. False with `why` (readBlock's
/// words) when it does not.
[[nodiscard]] bool checkBlockPayload(std::string_view payload,
                                     std::uint32_t crc,
                                     std::int64_t count,
                                     std::vector<std::size_t> &ends,
                                     std::string &why);
/// One row of a C block (without its '\n'). "" or what is wrong.
[[nodiscard]] std::string parseRow(std::string_view row, Entry &e);
/// The records of a whole block, appended to `out` (source left 0). "" or what is wrong,
/// naming the row ("row 3: has an invalid partition").
[[nodiscard]] std::string blockEntries(const Block &b, std::vector<Entry> &out);

/// Builds blocks from entries in arrival order: an entry that continues the open block (same
/// source and at_ms, the same kind, room left) is added to it; any other closes it. What a
/// Writer of a /2 recording uses, so that it can tell what an entry will cost on disk.
class BlockEncoder
{
public:
    static constexpr std::size_t kBlockBytes = 64 << 10; ///< a block is closed past this
    /// The bytes `e` adds to the recording (its row, and the header's growth or a new
    /// header), for add() right after with the same arguments. `sourceId`: escaped.
    [[nodiscard]] std::size_t cost(const Entry &e, std::string_view sourceId);
    /// Adds `e` (see cost()); a block it closes is appended to `out`.
    void add(const Entry &e, std::string_view sourceId, std::string &out);
    /// Closes the open block onto `out` (nothing when none is open).
    void close(std::string &out);

private:
    enum class Fit { Continue, Raw, Columns };
    [[nodiscard]] std::size_t headerSize(std::int64_t count, std::size_t bytes) const;
    char m_kind = 0; ///< of the open block; 0: none
    int m_source = -1;
    std::int64_t m_atMs = 0;
    std::optional<std::int32_t> m_partition;
    std::optional<std::int64_t> m_firstOffset;
    std::int64_t m_count = 0;
    std::string m_sourceId; ///< escaped
    std::string m_payload;
    // What cost() found for the entry it looked at.
    Fit m_fit = Fit::Raw;
    std::string m_row; ///< a C row (R rows are the value and '\n')
};

// --- Writing ---

struct Limits
{
    std::int64_t maxRecords = 0; ///< 0 = no limit
    std::int64_t maxBytes = 0;
    std::int64_t maxDurationMs = 0;
};

/// Writes a recording. Not thread-safe: one writer, one thread (the runtime's loop).
class Writer
{
public:
    /// Creates DIR (which must not hold a recording already) and writes an incomplete manifest.
    [[nodiscard]] static std::unique_ptr<Writer>
    create(const std::string &dir, Manifest manifest, Limits limits, std::string &error);
    ~Writer();

    /// Captures one record. False once the recording has stopped (a limit was reached or the
    /// disk is full; see stoppedBy()): the caller stops recording, the folder stays valid.
    [[nodiscard]] bool add(const Entry &e);
    /// Flushes buffered lines and rewrites the manifest with the counts so far (still
    /// incomplete): what a kill after this point leaves. Called every second or so.
    [[nodiscard]] std::string checkpoint();
    /// Flushes, fsyncs and writes the final manifest (complete, with `stoppedBy` unless a limit
    /// already set it). "" or the error.
    [[nodiscard]] std::string finish(const std::string &stoppedBy);

    const std::string &stoppedBy() const { return m_stoppedBy; }
    const Manifest &manifest() const { return m_manifest; }

private:
    Writer() = default;
    [[nodiscard]] bool flush();
    [[nodiscard]] std::string writeManifest();
    /// Appends `e` (a line, or into the open block); the bytes it adds to records.tsv.
    std::size_t append(const Entry &e);

    std::string m_dir;
    Manifest m_manifest;
    Limits m_limits;
    int m_fd = -1;
    std::string m_buffer;                  ///< whole lines or blocks, not written yet
    BlockEncoder m_encoder;                ///< /2: the open block
    std::vector<std::string> m_escapedIds; ///< the sources' ids as a block header holds them
    std::int64_t m_durable = 0;            ///< bytes of records.tsv known written in whole lines
    std::int64_t m_durableDurationMs = 0;
    std::vector<std::int64_t> m_pending; ///< per source: lines buffered, not yet written
    std::int64_t m_pendingEnds = 0;      ///< end markers buffered, not yet written
    std::int64_t m_firstAt = -1;
    std::string m_stoppedBy; ///< set when capture stopped early
    bool m_finished = false;
};

// --- Reading ---

struct Opened
{
    Manifest manifest;
    /// Notes for the user (a recording cut short by a kill, a pipeline that changed since).
    std::vector<std::string> notes;
};

/// Reads records.tsv line by line.
class Reader
{
public:
    /// Opens DIR: reads and checks the manifest. nullptr with `error` naming the file.
    [[nodiscard]] static std::unique_ptr<Reader> open(const std::string &dir, std::string &error);
    ~Reader();

    const Opened &info() const { return m_info; }
    /// The next entry; false at the end or on an error (then error() names file and line).
    /// A torn last line of an incomplete recording (killed, or a full disk) is the end, with a
    /// note; the same in a recording marked complete, or any bad line before the last, is an
    /// error.
    [[nodiscard]] bool next(Entry &e);

    /// What nextView() read: a line as a view, a line parsed into the Entry, no whole line in
    /// the buffer without reading more (only when `mayRead` is false), or the end (or an error,
    /// then error() says it).
    enum class Got { View, Entry, NeedRead, End };
    /// The next line without copying it when it can be: `v` (and its value) views the buffer
    /// until the next call with `mayRead` true, or until `scratch` changes. A line a view does
    /// not cover (a key, headers) is parsed into `e`. `source` is set for both. A replay's
    /// batch of lines: the first with `mayRead`, the rest without, so earlier views stay valid.
    [[nodiscard]] Got
    nextView(LineView &v, Entry &e, int &source, std::string &scratch, bool mayRead);

    /// A run of raw lines: the rest of a /2 block of source.file lines (kind R), as they were
    /// read, each ended by '\n'. Valid as nextView()'s views are.
    struct RawRun
    {
        int source = -1;
        std::int64_t atMs = 0;
        std::optional<std::int32_t> partition;
        std::optional<std::int64_t> firstOffset; ///< of the first line, +1 per line after
        std::int64_t count = 0;
        const char *begin = nullptr;
        const char *end = nullptr;
        /// Each line's '\n', as offsets from `base` (the block's payload): count of them.
        const char *base = nullptr;
        const std::size_t *ends = nullptr; ///< null when `unchecked`
        /// A whole block whose payload is not checked yet (peekRun's `deferCheck`): whoever
        /// takes it checks it (checkBlockPayload with payloadCrc and count) before it uses any
        /// of its lines, and reports a failure as checkedWhere() + ": " + why.
        bool unchecked = false;
        std::uint32_t payloadCrc = 0;
    };
    enum class Run { Lines, Other, NeedRead, End };
    /// /2: when the next records are the rest of a block of raw lines, describes them (Lines)
    /// without taking them; takeRun() then takes them all. Other: the next record is not in
    /// such a block (or the recording is /1): nextView() reads it. End: as nextView's.
    /// `deferCheck`: a block none of whose lines is taken yet is described without checking
    /// its payload (RawRun::unchecked; a worker thread checks it where it parses it, so the
    /// loop thread never touches its bytes); otherwise the block is checked first, as always.
    [[nodiscard]] Run peekRun(RawRun &run, bool mayRead, bool deferCheck = false);
    void takeRun();
    /// "DIR/records.tsv line L (block B at byte X)" of the block peekRun described: what an
    /// unchecked run's failure is reported after.
    [[nodiscard]] std::string checkedWhere() const { return m_path + " " + blockWhere(false); }
    bool blocks() const { return m_blocks; }
    /// records.tsv is mapped: views of its bytes stay valid while the reader lives.
    bool mapped() const { return m_map != nullptr; }
    /// Read, not mapped: a share of the buffer the bytes read so far are in. While a share is
    /// held the reader reads on into another buffer instead of moving the unread bytes to the
    /// front of this one, so views of it (a whole block handed to a worker) stay valid until
    /// the share is dropped. Null when mapped (views stay valid anyway).
    [[nodiscard]] std::shared_ptr<const void> lendBuffer() const;

    const std::string &error() const { return m_error; }
    /// The line of records.tsv of the last record read (/2: a block's header is a line, and
    /// each of its records one line after it).
    std::int64_t line() const { return m_line; }

private:
    Reader() = default;
    [[nodiscard]] bool fill();
    void map();
    /// Gives the mapped pages before m_pos back (no view of them is held any more).
    void releaseBehind();
    enum class Take { Line, NeedRead, End };
    /// The next whole line (without '\n'), reading more only when `mayRead`; at the end of the
    /// file, the checks of a torn or truncated tail (End, with error() set when it is one).
    [[nodiscard]] Take takeLine(std::string_view &line, bool mayRead);
    /// The manifest's index of `id`, or -1 with error() set.
    [[nodiscard]] int sourceOf(std::string_view id);
    // /2 (reader_blocks.cpp)
    /// The block the next record is in (its header read when the last one is used up; its
    /// payload checked by checkBlock, before the first line is taken).
    [[nodiscard]] Take takeBlock(bool mayRead);
    /// Checks the current block's payload unless that is done: false (error() set) when bad.
    [[nodiscard]] bool checkBlock();
    [[nodiscard]] bool nextInBlock(Entry &e);
    [[nodiscard]] Got nextViewInBlock(LineView &v, Entry &e, int &source, bool mayRead);
    /// "line L (block B at byte X)" of the block being read (`next`: of the one after it).
    [[nodiscard]] std::string blockWhere(bool next) const;

    std::string m_path;
    Opened m_info;
    int m_fd = -1;
    struct ReadBuffer
    {
        std::unique_ptr<char[]> bytes;
        std::size_t size = 0;
    };
    /// Read straight into (when the file is not mapped); shared while lent (lendBuffer).
    std::shared_ptr<ReadBuffer> m_buffer;
    /// Buffers lent before: reused by fill() once no share of them is held.
    std::vector<std::shared_ptr<ReadBuffer>> m_lent;
    /// The file's bytes: mapped (the whole file), or m_buffer's. [m_pos, m_end) is not parsed.
    const char *m_data = nullptr;
    const char *m_map = nullptr; ///< the mapping, when there is one
    std::size_t m_mapSize = 0;
    std::size_t m_released = 0;  ///< mapped bytes before this were given back (RSS)
    std::size_t m_populated = 0; ///< mapped bytes before this were populated ahead
    std::size_t m_pos = 0;
    std::size_t m_end = 0;
    std::size_t m_scan = 0; ///< no '\n' in [m_pos, m_scan)
    bool m_eof = false;
    std::int64_t m_line = 0;
    std::int64_t m_read = 0;
    std::string m_error;
    std::string m_sourceId;
    int m_lastSource = 0; ///< lines come in runs of one source: its id is compared first
    // /2: the block being read; its payload views m_data.
    bool m_blocks = false;
    bool m_atEnd = false; ///< the end (or an error) was reached: takeBlock says End again
    Block m_block;
    int m_blockSource = -1;
    std::int64_t m_blockYields = 0; ///< its records (an end marker's block: 1)
    std::int64_t m_blockTaken = 0;
    std::size_t m_blockAt = 0;     ///< in m_data, the next record's first byte
    std::int64_t m_blockIndex = 0; ///< 1-based
    std::int64_t m_blockLine = 0;  ///< the line its header is on
    std::uint64_t m_blockByte = 0; ///< where its header starts in the file
    std::int64_t m_nextLine = 1;   ///< of the next block's header
    std::uint64_t m_nextByte = 0;  ///< of the next block in the file
};

/// Which of the pipeline's sources (id, kind) the recording cannot stand in for: a source the
/// recording lacks, one it has that the pipeline does not, or a kind that differs. Empty when
/// every source matches.
[[nodiscard]] std::vector<std::string> sourceMismatches(const Manifest &m,
                                                        const std::vector<SourceInfo> &pipeline);

} // namespace tideline::recording
