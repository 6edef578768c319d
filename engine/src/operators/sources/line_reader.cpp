#include "operators/sources/line_reader.hpp"

#include <tideline/engine/record_replay.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace tideline {

LineReader::~LineReader()
{
    if (m_fd >= 0)
        ::close(m_fd);
}

std::string LineReader::open(const std::string &path, std::size_t maxLine)
{
    m_fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (m_fd < 0)
        return std::strerror(errno);
    m_maxLine = maxLine;
    m_cap = std::max<std::size_t>(4u << 20, maxLine + 1);
    m_buf = std::make_unique_for_overwrite<char[]>(m_cap);
    return {};
}

bool LineReader::seek(std::uint64_t offset, std::uint64_t lineNumber)
{
    if (::lseek(m_fd, static_cast<off_t>(offset), SEEK_SET) < 0)
        return false;
    m_begin = m_end = 0;
    m_eof = false;
    m_offset = offset;
    m_lineNumber = lineNumber;
    return true;
}

bool LineReader::fill()
{
    if (m_eof)
        return false;
    if (m_begin > 0) {
        std::memmove(m_buf.get(), m_buf.get() + m_begin, m_end - m_begin);
        m_end -= m_begin;
        m_begin = 0;
    }
    if (m_end == m_cap)
        return false;
    // At most 256 KiB per read: the kernel's copy then cycles through a small part of the
    // buffer that stays in the core's cache, instead of streaming 4 MiB through it and
    // evicting the downstream operators' state (a window's pane table) every fill.
    const std::size_t want = std::min<std::size_t>(m_cap - m_end, std::size_t(256) << 10);
    ssize_t n;
    do {
        n = ::read(m_fd, m_buf.get() + m_end, want);
    } while (n < 0 && errno == EINTR);
    if (n < 0) {
        m_error = std::strerror(errno);
        m_eof = true;
        return false;
    }
    if (n == 0) {
        m_eof = true;
        return false;
    }
    m_end += static_cast<std::size_t>(n);
    return true;
}

LineReader::Result LineReader::read(std::string_view &line, std::uint64_t &fullLength)
{
    std::size_t scanFrom = m_begin;
    while (true) {
        const char *start = m_buf.get() + m_begin;
        const char *nl = findNewline(m_buf.get() + scanFrom, m_buf.get() + m_end);
        if (nl) {
            auto len = static_cast<std::size_t>(nl - start);
            line = std::string_view(start, len);
            m_begin += len + 1;
            m_offset += len + 1;
            ++m_lineNumber;
            fullLength = len;
            if (len > m_maxLine) {
                m_head.assign(start, 4096);
                line = m_head;
                return Result::TooLong;
            }
            return Result::Line;
        }
        if (m_end - m_begin > m_maxLine) {
            // Over-long line: keep its head, skip to the next newline without buffering it.
            m_head.assign(start, 4096);
            std::uint64_t len = m_end - m_begin;
            m_begin = m_end;
            while (true) {
                if (!fill()) {
                    break;
                }
                const void *p = std::memchr(m_buf.get() + m_begin, '\n', m_end - m_begin);
                if (p) {
                    auto more = static_cast<std::size_t>(static_cast<const char *>(p)
                                                         - (m_buf.get() + m_begin));
                    len += more;
                    m_begin += more + 1;
                    m_offset += len + 1;
                    ++m_lineNumber;
                    fullLength = len;
                    line = m_head;
                    return Result::TooLong;
                }
                len += m_end - m_begin;
                m_begin = m_end;
            }
            m_offset += len;
            ++m_lineNumber;
            fullLength = len;
            line = m_head;
            return Result::TooLong;
        }
        std::size_t have = m_end - m_begin;
        if (!fill()) {
            if (m_end > m_begin) {
                // Last line without a trailing newline.
                line = std::string_view(m_buf.get() + m_begin, m_end - m_begin);
                m_offset += m_end - m_begin;
                m_begin = m_end;
                ++m_lineNumber;
                fullLength = line.size();
                return Result::Line;
            }
            return Result::End;
        }
        scanFrom = m_begin + have;
    }
}

// --- Record and replay (record_replay.hpp) ---

void LineReader::record(recording::Capture *capture, int source)
{
    m_capture = source >= 0 ? capture : nullptr;
    m_source = source;
}

void LineReader::replay(recording::Feed *feed, int source)
{
    m_feed = feed;
    m_source = source;
}

recording::Feed::Whole LineReader::takeBlock(recording::LineBatch *&block)
{
    if (!m_feed || m_eof || (m_batch && m_batch->source == m_source && m_batch->left()))
        return recording::Feed::Whole::No; // the lines taken first come first
    const recording::Feed::Whole got = m_feed->nextBlock(m_source, block);
    if (got != recording::Feed::Whole::Taken)
        return got;
    m_batch = block;
    const auto count = static_cast<std::uint64_t>(block->count);
    m_lineNumber = block->rawHasOffset ? static_cast<std::uint64_t>(block->rawOffset) + count - 1
                                       : m_lineNumber + count;
    m_offset += static_cast<std::uint64_t>(block->rawEnd - block->rawAt);
    m_lineStays = block->rawStays;
    return got;
}

LineReader::Result LineReader::captured(std::string_view &line, std::uint64_t &fullLength)
{
    const Result r = read(line, fullLength);
    if (r == Result::End)
        return r; // the runtime marks the end when the source finishes
    recording::Entry e;
    e.offset = static_cast<std::int64_t>(m_lineNumber);
    e.value.assign(line);
    if (r == Result::TooLong)
        e.headers.emplace_back("length", std::to_string(fullLength));
    m_capture->add(m_source, e);
    return r;
}

LineReader::Result
LineReader::fromFeed(std::string_view &line, std::uint64_t &fullLength, bool recordStart)
{
    if (m_eof)
        return Result::End;
    if (!m_batch || m_batch->source != m_source || !m_batch->left()) [[unlikely]] {
        switch (m_feed->nextLines(m_source, !recordStart, m_batch)) {
        case recording::Feed::Next::Pending:
            if (recordStart)
                return Result::Pending;
            m_error = m_feed->where()
                      + ": the rest of a record that spans lines is missing from the recording";
            m_eof = true;
            return Result::End;
        case recording::Feed::Next::End:
            m_eof = true;
            return Result::End;
        case recording::Feed::Next::Entry:
            break;
        }
    }
    // Taken from the batch: a line that continues a record (recordStart false) is the next
    // line of this source whatever its time, and the batch's lines are that.
    recording::LineBatch &batch = *m_batch;
    if (batch.rawAt) [[likely]] {
        // A run of raw lines (/2): each ends where the reader found its '\n' when it checked
        // the block, so taking one is a load.
        const char *at = batch.rawAt;
        const char *nl = batch.rawBase + *batch.rawEnds++;
        line = std::string_view(at, static_cast<std::size_t>(nl - at));
        m_lineStays = batch.rawStays;
        batch.rawAt = nl + 1;
        ++batch.taken;
        m_lineNumber
            = batch.rawHasOffset ? static_cast<std::uint64_t>(batch.rawOffset++) : m_lineNumber + 1;
        fullLength = line.size();
        m_offset += line.size() + 1;
        return Result::Line;
    }
    const recording::LineBatch::Line l = batch.take();
    m_lineStays = false;
    m_lineNumber = l.offset ? static_cast<std::uint64_t>(*l.offset) : m_lineNumber + 1;
    line = l.value;
    fullLength = line.size();
    m_offset += line.size() + 1;
    if (l.entry) // headers: a line over the record limit, recorded as its head and `length`
        for (const auto &[name, value] : l.entry->headers)
            if (name == "length") {
                fullLength = std::stoull(value);
                return Result::TooLong;
            }
    return Result::Line;
}

} // namespace tideline
