// Reading records.tsv back (recording.hpp): the file mapped or read, and /1's lines; the
// blocks of /2 are in reader_blocks.cpp. Errors name the file and the line.

#include <tideline/engine/recording.hpp>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

namespace tideline::recording {

namespace {
constexpr std::size_t kRelease = 1 << 20; ///< a mapped reader gives its pages back per MiB
constexpr std::size_t kKeep = 4 << 20;    ///< and keeps this much behind it mapped
constexpr std::size_t kAhead = 4096;      ///< how far ahead a mapped reader prefetches
} // namespace

/// records.tsv is read with read() into a reused 256 KiB buffer (fill()), and mapped only with
/// TIDELINE_REPLAY_MAP=1 in the environment. Why read() by default: the page cache's bytes are
/// copied once into memory that stays mapped and cached, while a mapped reader touches every
/// page of the file for the first time. On the 4 Dec Intel VM the two were at parity (mapping
/// saved the copy and paid populating and unmapping, docs/benchmarks.md); on the 6 Dec AMD
/// VM, where a first touch of a mapped page costs about a microsecond (the line-end scan's
/// loads of the mapped bytes were a fifth of the replay), the mapped replay ran at 0.80-0.85 of
/// source.file and the read() one at 0.96-1.05 (docs/benchmarks.md, "Session 15"). Mapped, the
/// lines are what the file held when it was opened and pages behind the reader are given
/// back every MiB, so the resident size stays that of a buffer; where mapping fails, read().
void Reader::map()
{
    m_buffer = std::make_shared<ReadBuffer>();
    m_data = "";
    if (const char *on = std::getenv("TIDELINE_REPLAY_MAP"); !on || std::string_view(on) != "1")
        return;
    struct stat st;
    if (::fstat(m_fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0)
        return;
    const auto size = static_cast<std::size_t>(st.st_size);
    void *p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, m_fd, 0);
    if (p == MAP_FAILED)
        return;
    (void)::madvise(p, size, MADV_SEQUENTIAL);
    m_map = m_data = static_cast<const char *>(p);
    m_mapSize = m_end = size;
    m_eof = true; // nothing to read: the whole file is there
}

std::shared_ptr<const void> Reader::lendBuffer() const
{
    if (m_map)
        return nullptr;
    return m_buffer;
}

bool Reader::fill()
{
    // The unread tail moves to the front and the file is read straight into the buffer (no
    // bounce copy). 256 KiB stays in the L2 cache while its lines are parsed; a line longer
    // than the buffer doubles it. A lent buffer (views of it are held on other threads) is
    // left as it is: the tail goes to the front of one no longer lent, or of a new one.
    constexpr std::size_t kReadBytes = 256 << 10;
    const std::size_t tail = m_end - m_pos;
    const std::size_t want = std::max(kReadBytes, tail == m_buffer->size ? 2 * tail : tail);
    if (m_buffer.use_count() > 1) {
        std::shared_ptr<ReadBuffer> next;
        for (auto &b : m_lent)
            if (b.use_count() == 1) { // (the last share was dropped: see the fence below)
                next = std::move(b);
                b = std::move(m_lent.back());
                m_lent.pop_back();
                break;
            }
        // The drop of the last share (a release) happens before the bytes are written over.
        std::atomic_thread_fence(std::memory_order_acquire);
        if (!next)
            next = std::make_shared<ReadBuffer>();
        if (next->size < want) {
            next->bytes = std::make_unique_for_overwrite<char[]>(want);
            next->size = want;
        }
        std::memcpy(next->bytes.get(), m_buffer->bytes.get() + m_pos, tail);
        m_lent.push_back(std::exchange(m_buffer, std::move(next)));
    } else {
        if (m_pos > 0)
            std::memmove(m_buffer->bytes.get(), m_buffer->bytes.get() + m_pos, tail);
        if (m_buffer->size < want) {
            auto bigger = std::make_unique_for_overwrite<char[]>(want);
            std::memcpy(bigger.get(), m_buffer->bytes.get(), tail);
            m_buffer->bytes = std::move(bigger);
            m_buffer->size = want;
        }
    }
    m_end = tail;
    m_scan -= m_pos;
    m_pos = 0;
    m_data = m_buffer->bytes.get();
    ssize_t n;
    do
        n = ::read(m_fd, m_buffer->bytes.get() + m_end, m_buffer->size - m_end);
    while (n < 0 && errno == EINTR);
    if (n <= 0) {
        m_eof = true;
        return false;
    }
    m_end += static_cast<std::size_t>(n);
    return true;
}

void Reader::releaseBehind()
{
    if (!m_map || m_pos < m_released + kRelease + kKeep)
        return;
    // The pages more than kKeep behind the reader go back (they stay in the page cache; only
    // this process's resident size shrinks). kKeep: a fused replay's workers still parse the
    // lines of the chunks in flight where they are (LineBatch::rawStays); a page given back
    // under them would be faulted in again.
    const std::size_t upTo = (m_pos - kKeep) / kRelease * kRelease;
    (void)::madvise(const_cast<char *>(m_map) + m_released, upTo - m_released, MADV_DONTNEED);
    m_released = upTo;
#ifdef MADV_POPULATE_READ
    // And the next MiBs are mapped in one call instead of a fault per 64 KiB (the kernel's
    // fault-around): a replay's page faults were about 3 % of its CPU. Where the kernel has
    // no MADV_POPULATE_READ (before Linux 5.14) the call fails and the faults stay.
    const std::size_t ahead = std::min(m_mapSize, (m_pos / kRelease + 3) * kRelease);
    if (ahead > m_populated) {
        (void)::madvise(const_cast<char *>(m_map) + m_populated, ahead - m_populated,
                        MADV_POPULATE_READ);
        m_populated = ahead;
    }
#endif
}

Reader::Take Reader::takeLine(std::string_view &line, bool mayRead)
{
    const Manifest &m = m_info.manifest;
    if (mayRead)
        releaseBehind();
    if (m_map && m_scan + kAhead < m_end)
        // The mapped bytes come from memory, not from a copy just made: ask for the lines a
        // few KiB ahead now (the hardware prefetcher stops at each page's end).
        __builtin_prefetch(m_data + m_scan + kAhead);
    for (;;) {
        const char *from = m_data + m_scan;
        const auto *nlp = static_cast<const char *>(std::memchr(from, '\n', m_end - m_scan));
        if (!nlp) {
            m_scan = m_end;
            if (!m_eof && !mayRead)
                return Take::NeedRead; // the caller still holds views of the buffer
            if (!m_eof && fill())
                continue;
            const bool torn = m_pos < m_end;
            if (m.complete && (torn || m_read != m.records + m.ends)) {
                m_error
                    = m_path
                      + (torn ? " line " + std::to_string(m_line + 1) + ": cut off (no end of line)"
                              : "")
                      + (torn ? "; " : ": ") + "the manifest says the recording is complete with "
                      + std::to_string(m.records) + " records"
                      + (m.ends ? " and " + std::to_string(m.ends) + " end markers" : "") + " but "
                      + std::to_string(m_read) + " whole lines are there (truncated?)";
                return Take::End;
            }
            if (torn)
                m_info.notes.push_back(m_path + " line " + std::to_string(m_line + 1)
                                       + " was cut off by the interruption and is left out");
            return Take::End;
        }
        const auto nl = static_cast<std::size_t>(nlp - m_data);
        line = std::string_view(m_data + m_pos, nl - m_pos);
        m_pos = m_scan = nl + 1;
        ++m_line;
        return Take::Line;
    }
}

int Reader::sourceOf(std::string_view id)
{
    const auto &sources = m_info.manifest.sources;
    if (sources[static_cast<std::size_t>(m_lastSource)].id == id)
        return m_lastSource;
    for (std::size_t i = 0; i < sources.size(); ++i)
        if (sources[i].id == id)
            return m_lastSource = static_cast<int>(i);
    m_error = m_path + " line " + std::to_string(m_line) + ": source `" + std::string(id)
              + "` is not one of the manifest's sources";
    return -1;
}

bool Reader::next(Entry &e)
{
    if (!m_error.empty())
        return false;
    if (m_blocks)
        return nextInBlock(e);
    std::string_view line;
    if (takeLine(line, true) != Take::Line)
        return false;
    if (std::string why = parseLine(line, e, m_sourceId); !why.empty()) {
        m_error = m_path + " line " + std::to_string(m_line) + ": " + why;
        return false;
    }
    e.source = sourceOf(m_sourceId);
    if (e.source < 0)
        return false;
    ++m_read;
    return true;
}

Reader::Got Reader::nextView(LineView &v, Entry &e, int &source, std::string &scratch, bool mayRead)
{
    if (!m_error.empty())
        return Got::End;
    if (m_blocks)
        return nextViewInBlock(v, e, source, mayRead);
    std::string_view line;
    switch (takeLine(line, mayRead)) {
    case Take::Line:
        break;
    case Take::NeedRead:
        return Got::NeedRead;
    case Take::End:
        return Got::End;
    }
    Got got = Got::View;
    if (parseLineView(line, v, scratch)) [[likely]] {
        source = sourceOf(v.sourceId);
    } else {
        // A key, headers or an escaped source id; or a bad line, which parseLine names.
        if (std::string why = parseLine(line, e, m_sourceId); !why.empty()) {
            m_error = m_path + " line " + std::to_string(m_line) + ": " + why;
            return Got::End;
        }
        e.source = source = sourceOf(m_sourceId);
        got = Got::Entry;
    }
    if (source < 0)
        return Got::End;
    ++m_read;
    return got;
}

} // namespace tideline::recording
