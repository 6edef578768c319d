#pragma once
// source.file with parallelism > 1 (chunk_runner.hpp): the file from the current position on is
// cut into byte ranges of 32 KiB (512 KiB on the fused path); a line belongs to the range it
// starts in. A worker reads its range with pread, 64 KiB at a time, then a little more for the
// rest of its last line, and turns each line into what the
// loop-thread reader (file_source.cpp) would have made of it: a record, or an error item
// (malformed line, line over the limit) with its line number counted from the chunk's first
// line. Blank lines are skipped, the byte order mark of the file's first line dropped, as
// there. The loop thread takes the chunks in file order and emits their items in line order,
// adding the line count of the chunks before to make the line numbers of error records.
//
// A CSV record whose quoted cell spans lines cannot be cut at line boundaries: at the first one
// the chunk stops, and the source goes on reading on the loop thread from that line (the
// chunks after it are dropped), so a multi-line record is joined exactly as without chunks.
//
// [Threading] See chunk_runner.hpp: a FileChunk is written by one worker while in flight and
// read by the loop thread after; the configuration (fd, CSV header, limits) is fixed before
// the first chunk and read-only after.

#include "operators/sources/chunk_runner.hpp"

#include <tideline/engine/record.hpp>
#include <tideline/engine/record_json.hpp>

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace tideline::sources {

struct FileChunkConfig
{
    int fd = -1;
    std::string path;               ///< as the source names it in its messages
    const CsvReader *csv = nullptr; ///< its header read; null: JSON lines
    std::size_t maxLine = 1u << 20; ///< longer lines go to `errors` as record_too_large
    /// One line made into a record as the file source makes it: a CSV row by the header, else
    /// a JSON object by `json` (the caller's: a parser is one thread's), keeping at least
    /// the fields `only` keeps (RecordParser::parse; null: all).
    [[nodiscard]] bool parse(std::string_view line,
                             Record &out,
                             RecordParser &json,
                             std::string &error,
                             const FieldProjection *only = nullptr) const
    {
        return csv ? csv->parse(line, out, error) : json.parse(line, out, error, only);
    }
};

/// Spaces, tabs and carriage returns only: source.file skips such a line.
inline bool isBlankLine(std::string_view line)
{
    for (char c : line)
        if (c != ' ' && c != '\t' && c != '\r')
            return false;
    return true;
}

/// The UTF-8 byte order mark: not part of the data when a file's first line starts with it.
inline constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";

/// Lines a replay took from its recording on the loop thread, for a worker to make records of
/// with the file source's line rules (the fused path of a replayed source.file,
/// runtime/fused_source.cpp): views of a mapped recording's raw lines, which stay valid, and
/// copies of the others (the recording's reader reuses their buffers).
struct LineList
{
    struct Line
    {
        const char *stays = nullptr;  ///< the line where it stays, else
        std::size_t at = 0, size = 0; ///< in text (a block: `at` indexes blocks)
        std::uint64_t number = 0;     ///< the file's line number, as recorded
        bool tooLong = false;         ///< over the limit: text is its head, length the real size
        std::uint64_t length = 0;
        bool block = false; ///< a whole recorded block of lines, blocks[at]
    };
    /// A recording's block of raw lines, not checked yet (Feed::nextBlock): whoever makes its
    /// lines into records checks it first (recording::checkBlockPayload).
    struct Block
    {
        /// count lines, each ended by '\n', where they stay: a mapped recording, or a read
        /// one's buffer that `keep` holds a share of (LineBatch::rawKeep)
        std::string_view payload;
        std::shared_ptr<const void> keep;
        std::int64_t count = 0;
        std::uint32_t crc = 0;
        std::uint64_t firstLine = 0; ///< the file's line number of its first line
        std::string where;           ///< what a failed check is reported after
    };
    std::string text;
    std::vector<Line> lines;
    std::vector<Block> blocks;
    std::size_t bytes = 0; ///< of all lines, viewed or copied
    void clear()
    {
        text.clear();
        lines.clear();
        blocks.clear();
        bytes = 0;
    }
    std::string_view textOf(const Line &l) const
    {
        return l.stays ? std::string_view(l.stays, l.size)
                       : std::string_view(text).substr(l.at, l.size);
    }
};

/// A line that went to `errors` instead of becoming a record.
struct ChunkLineError
{
    std::uint32_t before = 0; ///< records of the chunk that come before it
    std::uint64_t line = 0;   ///< line in the chunk, 1 = its first line
    bool tooLong = false;     ///< over the limit: raw is its first 4 KiB
    std::uint64_t length = 0; ///< tooLong: the line's real length
    std::string reason;
    std::string raw;
};

/// Told of each line as the chunk makes it (the fused path stamps and routes a record while
/// it is still in cache, runtime/fused_source.cpp). On the chunk's thread, during run().
class LineSink
{
public:
    /// records[index] was just parsed (the vector may still grow: keep the index) from `text`
    /// (the line without a byte order mark, in the chunk's buffer: valid during the call),
    /// which starts at `offset` in the file.
    /// Given as an argument, not a member the sink reads back: a 16-byte load of a view just
    /// stored as two words cannot be forwarded from the store buffer, and waited for the
    /// parser's stores to drain (8 % of a file-window run at parallelism 2).
    virtual void lineRecord(std::size_t index, std::string_view text, std::uint64_t offset) = 0;
    virtual void lineError(const ChunkLineError &e) = 0;

protected:
    ~LineSink() = default;
};

class FileChunk final : public ChunkTask
{
public:
    static constexpr std::uint64_t kToEnd = std::numeric_limits<std::uint64_t>::max();

    explicit FileChunk(const FileChunkConfig &cfg);
    /// The lines that start in [begin, end) (end kToEnd: to the end of the file);
    /// `lineStart`: begin is known to start a line; `fileStart`: its first line is the file's.
    void assign(std::uint64_t begin, std::uint64_t end, bool lineStart, bool fileStart);
    void run() noexcept override;

    // Results (loop thread, after the runner said it finished).
    std::vector<Record> records;
    std::vector<ChunkLineError> errors;
    std::uint64_t lines = 0; ///< lines that start in the range, blank ones included
    /// A CSV record spans lines here: the loop thread reads on from stopOffset, the start of
    /// that record's first line, which is line `lines + 1` of the chunk.
    bool stop = false;
    std::uint64_t stopOffset = 0;
    std::string readError;    ///< the OS error of a failed read
    LineSink *sink = nullptr; ///< told of each line as it is made (null: none)
    /// Each line parsed into records[0] again (the sink reads what it needs of it before the
    /// next line): no record per line is kept, records holds one. With a sink only.
    bool scratch = false;
    /// With scratch: the fields the sink reads (the record is not emitted); null: all.
    const FieldProjection *only = nullptr;
    std::vector<Record> spare; ///< the last run's records, parsed into again
    /// Where reading ended (the range to the end: the file's end as read).
    std::uint64_t endOffset = 0;
    /// Where the first line after this chunk's lines starts (the next range's first line, or
    /// the end): the source's position once this chunk is handed over, for a checkpoint.
    std::uint64_t resumeOffset = 0;

private:
    void parseRange();
    /// Appends up to `want` bytes read at m_base + m_len; false when none (end).
    bool readMore(std::size_t want);
    /// Appends the next slice of the range (past its end: a little, for its last line).
    bool readSlice();
    /// Drops the first n bytes of the buffer (parsed, or before the first line).
    void discard(std::size_t n);
    /// pos: relative start of the line; returns false when the chunk must stop there.
    bool line(std::string_view text, std::size_t pos);
    /// A line over the limit that the buffer does not hold: skips to its end without keeping
    /// it; returns its length and rebases the buffer to what follows it.
    std::uint64_t skipLongLine(std::size_t pos);
    void tooLong(std::string_view head, std::uint64_t length);

    const FileChunkConfig &m_cfg;
    RecordParser m_parser;
    std::string m_error;
    std::string m_buf; ///< [0, m_len) read; the rest is room (never read)
    std::size_t m_len = 0;
    std::uint64_t m_base = 0; ///< file offset of m_buf[0]
    std::uint64_t m_begin = 0, m_end = 0;
    bool m_lineStart = true, m_fileStart = false;
    bool m_eofSeen = false;
};

/// The loop thread's side: keeps chunks in flight and hands out their items in file order.
class FileChunkReader
{
public:
    FileChunkReader(ChunkRunner &runner,
                    FileChunkConfig cfg,
                    std::uint64_t offset,
                    std::uint64_t lineNumber);

    /// Can this file be read in chunks? Only a regular file can be read at offsets (pread):
    /// a pipe or a device is read on the loop thread.
    static bool splittable(int fd);

    enum class Next {
        Record,    ///< `record` is the next record (move it out)
        Error,     ///< `error` is the next malformed line, at file line `line`
        End,       ///< the file is read (readError() tells a failed read)
        Sequential ///< read on from resumeOffset()/resumeLine() on the loop thread
    };
    Next next(Record *&record, const ChunkLineError *&error, std::uint64_t &line);

    const std::string &readError() const { return m_readError; }
    std::uint64_t resumeOffset() const { return m_resumeOffset; }
    /// Lines before the resume offset (LineReader::seek's line number).
    std::uint64_t resumeLine() const { return m_resumeLine; }

private:
    void topUp();

    FileChunkConfig m_cfg;
    ChunkQueue<FileChunk> m_queue;
    std::uint64_t m_start = 0;  ///< where chunking began (a line start)
    std::uint64_t m_next = 0;   ///< start of the next range to issue
    std::uint64_t m_size = 0;   ///< the file's size when chunking began
    bool m_issuedAll = false;   ///< the range to the end is in flight
    std::uint64_t m_baseLine;   ///< lines before the front chunk
    bool m_firstIsFileStart;    ///< chunking began at line 0
    FileChunk *m_cur = nullptr; ///< the front chunk, being handed out
    std::size_t m_rec = 0, m_err = 0;
    std::string m_readError;
    std::uint64_t m_resumeOffset = 0, m_resumeLine = 0;
};

} // namespace tideline::sources
