#pragma once
// LineReader: fast buffered reading of text lines with a hard length limit.
// A line longer than the limit is not accumulated: the reader keeps its first bytes (for the
// error record) and skips the rest, so a 10 MiB line costs no more memory than the limit.

#include <tideline/engine/record_replay.hpp>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace tideline {

/// The first '\n' in [p, end), or null: memchr, inlined for the lines of an event file. Called
/// once per line of about a hundred bytes, glibc's memchr cost its call and set-up on top of
/// the search (docs/benchmarks.md, "Session 20"); 32 bytes a step here, memchr for a tail.
inline const char *findNewline(const char *p, const char *end)
{
#ifdef __SSE2__
    const __m128i nl = _mm_set1_epi8('\n');
    while (end - p >= 32) {
        const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p));
        const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p + 16));
        const auto m
            = static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(a, nl)))
              | (static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(b, nl))) << 16);
        if (m != 0)
            return p + __builtin_ctz(m);
        p += 32;
    }
#endif
    return static_cast<const char *>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
}

class LineReader
{
public:
    ~LineReader();
    /// Opens the file; returns "" or the OS error.
    std::string open(const std::string &path, std::size_t maxLine);
    /// Positions the reader at a byte offset and line number (checkpoint restore).
    bool seek(std::uint64_t offset, std::uint64_t lineNumber);

    /// --record: every line read (and the end) is handed to `capture` as source `source`.
    void record(recording::Capture *capture, int source);
    /// --replay: the lines come from `feed` instead of a file (open() is not called).
    void replay(recording::Feed *feed, int source);

    /// Pending: only in a replay, the next recorded line is not due yet (try again later).
    enum class Result { Line, TooLong, End, Pending };
    /// The next line without its newline. For TooLong, `line` holds the first bytes and
    /// `fullLength` the real length. `recordStart` false: the line continues a record already
    /// begun (a replay then takes it without waiting).
    Result next(std::string_view &line, std::uint64_t &fullLength, bool recordStart = true)
    {
        if (!m_capture && !m_feed) [[likely]]
            return read(line, fullLength);
        return m_feed ? fromFeed(line, fullLength, recordStart) : captured(line, fullLength);
    }

    /// --replay, for a reader that parses lines on other threads: the next recorded lines
    /// as one whole block, unread (Feed::nextBlock), when the lines taken so far are used up;
    /// the line number and offset then stand after its last line. No: take lines with next().
    [[nodiscard]] recording::Feed::Whole takeBlock(recording::LineBatch *&block);

    std::uint64_t lineNumber() const { return m_lineNumber; }
    /// A replay's last line stays where it is until the feed is destroyed (a mapped
    /// recording's raw line, LineBatch::rawStays): no copy needed to parse it elsewhere.
    bool lineStays() const { return m_lineStays; }
    /// Byte offset of the start of the next line.
    std::uint64_t offset() const { return m_offset; }
    std::string error() const { return m_error; }
    /// The open file (pread only: reading through it would move the reader).
    int fd() const { return m_fd; }

private:
    Result read(std::string_view &line, std::uint64_t &fullLength);
    Result captured(std::string_view &line, std::uint64_t &fullLength);
    Result fromFeed(std::string_view &line, std::uint64_t &fullLength, bool recordStart);
    bool fill();
    recording::Capture *m_capture = nullptr;
    recording::Feed *m_feed = nullptr;
    /// A replay's lines, a batch per call into the feed (the feed's, views of its bytes).
    recording::LineBatch *m_batch = nullptr;
    int m_source = -1;
    int m_fd = -1;
    /// Not zero-filled: only what read() fills is ever touched (at most 256 KiB a fill, moved
    /// to the front), so the 4 MiB of room cost no page until a long line needs it, and none at
    /// all when the fused path reads the file in ranges instead.
    std::unique_ptr<char[]> m_buf;
    std::size_t m_cap = 0;
    std::size_t m_begin = 0, m_end = 0;
    std::size_t m_maxLine = 1 << 20;
    std::uint64_t m_offset = 0;
    std::uint64_t m_lineNumber = 0;
    bool m_eof = false;
    bool m_lineStays = false;
    std::string m_error;
    std::string m_head; ///< first bytes of an over-long line
};

} // namespace tideline
