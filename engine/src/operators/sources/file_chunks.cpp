// source.file's chunks (file_chunks.hpp): what a worker makes of a byte range, and the loop
// thread's reader that issues the ranges and hands out their records in file order. The line
// rules mirror FileSource::poll and LineReader::read one for one (a line over the limit, a
// blank line, the byte order mark, a CSV record spanning lines): the outputs must not tell
// whether the file was read in chunks.

#include "operators/sources/file_chunks.hpp"

#include "operators/sources/line_reader.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

namespace tideline::sources {

namespace {

/// Bytes per chunk: about 400 typical event lines, so that handing a chunk over (a lock, a
/// wake-up) is noise, while the records in flight stay in cache (1 MiB chunks cost the loop
/// thread a cache miss on every record: docs/benchmarks.md).
constexpr std::uint64_t kChunkBytes = 32u << 10;
/// Read step while skipping a line over the limit.
constexpr std::size_t kStep = 64u << 10;
/// Bytes read at a time within a range (parseRange).
constexpr std::size_t kSlice = 64u << 10;
/// Bytes read at a time past a range's end: the rest of its last line.
constexpr std::size_t kTail = 4u << 10;
/// What is kept of a line over the limit (as LineReader keeps).
constexpr std::size_t kHead = 4096;

} // namespace

FileChunk::FileChunk(const FileChunkConfig &cfg)
    : m_cfg(cfg)
{
}

void FileChunk::assign(std::uint64_t begin, std::uint64_t end, bool lineStart, bool fileStart)
{
    m_begin = begin;
    m_end = end;
    m_lineStart = lineStart;
    m_fileStart = fileStart;
}

void FileChunk::run() noexcept
{
    // The records of the last run (unless the loop thread moved them out) are parsed into
    // again: their buffers are reused as they are, with no trip through a buffer pool (a
    // thread's pool holds 512; a chunk has thousands of records).
    for (Record &r : records)
        spare.push_back(std::move(r));
    records.clear();
    errors.clear();
    lines = 0;
    stop = false;
    stopOffset = 0;
    readError.clear();
    resumeOffset = 0;
    try {
        parseRange();
        endOffset = m_base + m_len;
    } catch (const std::exception &e) {
        readError = e.what();
    } catch (...) {
        readError = "unknown error";
    }
}

bool FileChunk::readMore(std::size_t want)
{
    // The buffer only grows: resizing it down and up again for every range zero-filled each
    // range's bytes just before pread overwrote them (memset was 1.6 % of a P = 2 file run).
    const std::size_t old = m_len;
    if (m_buf.size() < old + want)
        m_buf.resize(old + want);
    std::size_t got = 0;
    while (got < want) {
        const ssize_t n = ::pread(m_cfg.fd, m_buf.data() + old + got, want - got,
                                  static_cast<off_t>(m_base + old + got));
        if (n < 0) {
            if (errno == EINTR)
                continue;
            m_len = old + got;
            throw std::runtime_error(std::strerror(errno));
        }
        if (n == 0) {
            m_eofSeen = true;
            break;
        }
        got += static_cast<std::size_t>(n);
    }
    m_len = old + got;
    return got > 0;
}

void FileChunk::discard(std::size_t n)
{
    std::memmove(m_buf.data(), m_buf.data() + n, m_len - n);
    m_len -= n;
    m_base += n;
}

bool FileChunk::readSlice()
{
    const std::uint64_t at = m_base + m_len;
    std::size_t want = kTail;
    if (m_end == kToEnd)
        want = kSlice;
    else if (at < m_end)
        want = static_cast<std::size_t>(std::min<std::uint64_t>(kSlice, m_end - at));
    return readMore(want);
}

void FileChunk::parseRange()
{
    m_len = 0;
    m_eofSeen = false;
    // From the byte before `begin` when it is not known to start a line: a line starts at p
    // exactly when the byte before p is a newline.
    m_base = m_lineStart ? m_begin : m_begin - 1;
    // A line is this chunk's when it starts before m_end: at a relative position < limit().
    auto limit = [&]() -> std::uint64_t {
        if (m_end == kToEnd)
            return kToEnd;
        return m_end > m_base ? m_end - m_base : 0;
    };
    // The range is read a slice at a time into a buffer that only ever holds a slice and the
    // line that crosses into the next one: the bytes are parsed while the read left them in
    // this core's cache (read whole, 512 KiB ranges were copied into lines another core had
    // used, then scanned again from L3: pread and memchr were 1.6x their single-threaded cost).
    readSlice();
    std::size_t pos = 0;
    if (!m_lineStart) {
        for (;;) {
            const auto *nl = static_cast<const char *>(std::memchr(m_buf.data(), '\n', m_len));
            if (nl) {
                pos = static_cast<std::size_t>(nl - m_buf.data()) + 1;
                break;
            }
            // No line starts in what was read: none of ours when that is the whole range.
            discard(m_len);
            if (limit() == 0 || m_eofSeen || !readSlice())
                return;
        }
    }
    while (pos < limit()) {
        if (pos >= m_len) {
            discard(pos); // every line before is parsed
            pos = 0;
            if (m_eofSeen || !readSlice())
                break; // the file ends at a line start
        }
        // The end of the line that starts at pos.
        std::size_t from = pos;
        const char *nl = nullptr;
        bool skipped = false;
        for (;;) {
            nl = findNewline(m_buf.data() + from, m_buf.data() + m_len);
            if (nl)
                break;
            if (m_len - pos > m_cfg.maxLine) {
                // Over the limit and not ended yet: keep its head only (LineReader's rule).
                ++lines;
                const std::string head(m_buf.data() + pos, std::min(kHead, m_len - pos));
                const std::uint64_t length = skipLongLine(pos);
                tooLong(head, length);
                skipped = true;
                break;
            }
            // The line goes on past what was read: it moves to the front, the next slice
            // comes after it.
            discard(pos);
            from = m_len;
            pos = 0;
            if (m_eofSeen || !readSlice())
                break;
        }
        if (skipped) {
            pos = 0; // the buffer now starts right after that line
            continue;
        }
        if (nl) {
            const auto len = static_cast<std::size_t>(nl - (m_buf.data() + pos));
            if (!line(std::string_view(m_buf.data() + pos, len), pos))
                return;
            pos += len + 1;
            continue;
        }
        // The file's last line, without a trailing newline.
        if (!line(std::string_view(m_buf.data() + pos, m_len - pos), pos))
            return;
        resumeOffset = m_base + m_len;
        return;
    }
    // The line start after the chunk's lines. (It stays 0 when no line starts in the range,
    // above: such a chunk moves the source's position nowhere. A chunk that stops at a CSV
    // record has stopOffset instead.)
    resumeOffset = m_base + pos;
}

std::uint64_t FileChunk::skipLongLine(std::size_t pos)
{
    std::uint64_t length = m_len - pos;
    m_base += m_len;
    m_len = 0;
    for (;;) {
        if (m_eofSeen || !readMore(kStep)) {
            m_len = 0;
            return length; // the file ends inside it
        }
        const auto *nl = static_cast<const char *>(std::memchr(m_buf.data(), '\n', m_len));
        if (nl) {
            const auto more = static_cast<std::size_t>(nl - m_buf.data());
            length += more;
            std::memmove(m_buf.data(), m_buf.data() + more + 1, m_len - more - 1);
            m_len -= more + 1;
            m_base += more + 1;
            return length;
        }
        length += m_len;
        m_base += m_len;
        m_len = 0;
    }
}

void FileChunk::tooLong(std::string_view head, std::uint64_t length)
{
    ChunkLineError &e = errors.emplace_back();
    e.before = static_cast<std::uint32_t>(records.size());
    e.line = lines;
    e.tooLong = true;
    e.length = length;
    e.reason = "record_too_large";
    e.raw.assign(head);
    if (sink)
        sink->lineError(e);
}

bool FileChunk::line(std::string_view text, std::size_t pos)
{
    ++lines;
    if (text.size() > m_cfg.maxLine) {
        tooLong(text.substr(0, kHead), text.size());
        return true;
    }
    if (m_fileStart && lines == 1 && text.substr(0, 3) == kByteOrderMark)
        text.remove_prefix(3); // a UTF-8 byte order mark is not part of the data
    if (isBlankLine(text))
        return true;
    if (m_cfg.csv && text.find('"') != std::string_view::npos) {
        CsvReader::QuoteScan scan;
        scan.feed(text);
        if (scan.open()) { // spans lines: the loop thread reads on from here
            --lines;
            stop = true;
            stopOffset = m_base + pos;
            return false;
        }
    }
    if (scratch && !records.empty()) {
        records[0].clear(); // the one record, parsed into again
    } else {
        records.emplace_back();
        if (!spare.empty()) {
            records.back() = std::move(spare.back());
            spare.pop_back();
            records.back().clear();
        }
    }
    Record &rec = records.back();
    const bool ok = m_cfg.parse(text, rec, m_parser, m_error, scratch ? only : nullptr);
    if (!ok) {
        records.pop_back();
        ChunkLineError &e = errors.emplace_back();
        e.before = static_cast<std::uint32_t>(records.size());
        e.line = lines;
        e.reason = m_error;
        e.raw.assign(text);
        if (sink)
            sink->lineError(e);
    } else if (sink) {
        sink->lineRecord(records.size() - 1, text,
                         m_base + static_cast<std::uint64_t>(text.data() - m_buf.data()));
    }
    return true;
}

FileChunkReader::FileChunkReader(ChunkRunner &runner,
                                 FileChunkConfig cfg,
                                 std::uint64_t offset,
                                 std::uint64_t lineNumber)
    : m_cfg(cfg)
    , m_queue(runner)
    , m_start(offset)
    , m_next(offset)
    , m_baseLine(lineNumber)
    , m_firstIsFileStart(lineNumber == 0)
{
    struct stat st
    {
    };
    if (::fstat(m_cfg.fd, &st) == 0 && st.st_size > 0)
        m_size = static_cast<std::uint64_t>(st.st_size);
}

bool FileChunkReader::splittable(int fd)
{
    struct stat st
    {
    };
    return ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
}

void FileChunkReader::topUp()
{
    while (!m_issuedAll && !m_queue.full()) {
        std::unique_ptr<FileChunk> c = m_queue.take();
        if (!c)
            c = std::make_unique<FileChunk>(m_cfg);
        const std::uint64_t begin = m_next;
        // The last range reads to the end, whatever the file has grown to meanwhile.
        const bool last = m_size <= begin || m_size - begin <= kChunkBytes;
        const std::uint64_t end = last ? FileChunk::kToEnd : begin + kChunkBytes;
        c->assign(begin, end, begin == m_start, begin == m_start && m_firstIsFileStart);
        m_queue.submit(std::move(c));
        m_issuedAll = last;
        m_next = end;
    }
}

FileChunkReader::Next
FileChunkReader::next(Record *&record, const ChunkLineError *&error, std::uint64_t &line)
{
    for (;;) {
        if (!m_cur) {
            topUp();
            m_cur = m_queue.front();
            if (!m_cur)
                return Next::End;
            m_rec = m_err = 0;
        }
        FileChunk &c = *m_cur;
        if (m_err < c.errors.size() && c.errors[m_err].before == m_rec) {
            error = &c.errors[m_err++];
            line = m_baseLine + error->line;
            return Next::Error;
        }
        if (m_rec < c.records.size()) {
            record = &c.records[m_rec++];
            return Next::Record;
        }
        // The chunk is handed out.
        m_cur = nullptr;
        m_baseLine += c.lines;
        // The chunks after a failed read or a stop are not read this way; after the last one
        // (the range to the end) nothing is in flight.
        if (!c.readError.empty() || c.stop) {
            m_readError = c.readError;
            m_resumeOffset = c.stopOffset;
            m_resumeLine = m_baseLine;
            const bool stop = c.stop && c.readError.empty();
            m_queue.pop();
            m_queue.drain();
            m_issuedAll = true;
            return stop ? Next::Sequential : Next::End;
        }
        m_queue.pop();
    }
}

} // namespace tideline::sources
