// tideline-recording/2's blocks (recording.hpp): writing them (BlockEncoder), reading one
// (readBlock) and its records (parseRow, blockEntries).
//
// Why blocks: a replay of /1 read every record through a per-line CRC (one dependent chain a
// line), a scan for eight separators and any escape, and a newline search over a line 40 %
// longer than the input's. A block has one CRC over all its records (one pass), one header
// for its source and at_ms, and a file source's lines as they were read, so the replay hands
// them on exactly as source.file scans a JSONL file (issue 19: replay at least as fast).

#include "checkpoint/checksum.hpp"
#include "recording/line_text.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <limits>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace tideline::recording {

using namespace line;

namespace {

constexpr int kHeaderFields = 9;
constexpr std::int64_t kMaxOffset
    = std::numeric_limits<std::int64_t>::max(); ///< #crc kind at source count bytes partition
                                                ///< offset pcrc

std::size_t digits(std::int64_t v)
{
    char buf[24];
    return static_cast<std::size_t>(std::to_chars(buf, buf + sizeof buf, v).ptr - buf);
}

void appendHex(std::string &out, std::uint32_t v)
{
    static constexpr char kDigits[] = "0123456789abcdef";
    for (int shift = 28; shift >= 0; shift -= 4)
        out += kDigits[(v >> shift) & 0xF];
}

bool parseHex(std::string_view s, std::uint32_t &v)
{
    if (s.size() != 8)
        return false;
    v = 0;
    for (char c : s) {
        const int d = hexDigit(c);
        if (d < 0)
            return false;
        v = v << 4 | static_cast<std::uint32_t>(d);
    }
    return true;
}

// The offset of every '\n' in a block's payload, found once when the block is checked (its
// count must match the header's before any line is handed on) and kept, so that taking a line
// later is a load, not another newline search: on a mapped recording this scan is the first
// pass over bytes that come from memory, and one sequential pass that also yields the lines
// costs about what source.file's read() copy and memchr cost (docs/benchmarks.md, issue 19).
// The ends grow in steps of a vector's slack, checked once per 32 (or 16) bytes scanned.
using EndFinder = void (*)(std::string_view, std::vector<std::size_t> &);

void lineEndsScalar(std::string_view s, std::vector<std::size_t> &ends)
{
    for (std::size_t i = 0; i < s.size(); ++i)
        if (s[i] == '\n')
            ends.push_back(i);
}

#if defined(__x86_64__)
/// The vector loops' end: `n` ends found in s[0, i), the rest of `s` byte by byte.
void lineEndsFrom(std::string_view s, std::size_t i, std::size_t n, std::vector<std::size_t> &ends)
{
    ends.resize(n);
    lineEndsScalar(s.substr(i), ends);
    for (std::size_t k = n; k < ends.size(); ++k)
        ends[k] += i;
}

template<std::size_t Step>
std::size_t *roomFor(std::vector<std::size_t> &ends, std::size_t n)
{
    if (ends.size() < n + Step)
        ends.resize(std::max<std::size_t>(2 * ends.size(), n + Step));
    return ends.data();
}

// The scan asks for the bytes kScanAhead on, a cache line at a time: the hardware prefetcher
// stops at every 4 KiB page, and a mapped recording's pages come from memory, so without the
// hint each page starts with a stall (measured over a mapped records.tsv, the scan took about
// 40 % less time with it; docs/benchmarks.md). Beyond the block's end are the next block's
// bytes; a prefetch past the mapping is a hint that does nothing.
constexpr std::size_t kScanAhead = 8192;

/// The hint for s[i + kScanAhead], which may lie past `s` (the address is computed as an
/// integer: a pointer past its object is not one to compute).
inline void prefetchAhead(std::string_view s, std::size_t i)
{
    __builtin_prefetch(reinterpret_cast<const void *>(reinterpret_cast<std::uintptr_t>(s.data()) + i
                                                      + kScanAhead));
}

/// One SIMD register's worth: the ends in s[i, i + W), W the register's width.
template<std::size_t W>
inline void endsIn(
    std::size_t i, unsigned mask, std::size_t *&out, std::size_t &n, std::vector<std::size_t> &ends)
{
    if (!mask)
        return;
    out = roomFor<W>(ends, n);
    for (; mask; mask &= mask - 1)
        out[n++] = i + static_cast<std::size_t>(__builtin_ctz(mask));
}

void lineEndsSse2(std::string_view s, std::vector<std::size_t> &ends)
{
    std::size_t n = 0, i = 0;
    std::size_t *out = roomFor<16>(ends, 0);
    const __m128i nl = _mm_set1_epi8('\n');
    const auto mask = [&](std::size_t at) {
        return static_cast<unsigned>(_mm_movemask_epi8(
            _mm_cmpeq_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i *>(s.data() + at)), nl)));
    };
    for (; i + 64 <= s.size(); i += 64) {
        prefetchAhead(s, i);
        for (std::size_t k = 0; k < 64; k += 16)
            endsIn<16>(i + k, mask(i + k), out, n, ends);
    }
    for (; i + 16 <= s.size(); i += 16)
        endsIn<16>(i, mask(i), out, n, ends);
    lineEndsFrom(s, i, n, ends);
}

__attribute__((target("avx2"))) void lineEndsAvx2(std::string_view s,
                                                  std::vector<std::size_t> &ends)
{
    std::size_t n = 0, i = 0;
    std::size_t *out = roomFor<32>(ends, 0);
    const __m256i nl = _mm256_set1_epi8('\n');
    for (; i + 32 <= s.size(); i += 32) {
        if ((i & 63) == 0)
            prefetchAhead(s, i);
        const auto m = static_cast<unsigned>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(
            _mm256_loadu_si256(reinterpret_cast<const __m256i *>(s.data() + i)), nl)));
        endsIn<32>(i, m, out, n, ends);
    }
    lineEndsFrom(s, i, n, ends);
}

EndFinder pickEndFinder()
{
    return __builtin_cpu_supports("avx2") ? lineEndsAvx2 : lineEndsSse2;
}
#else
EndFinder pickEndFinder()
{
    return lineEndsScalar;
}
#endif

void findLineEnds(std::string_view s, std::vector<std::size_t> &ends)
{
    static const EndFinder find = pickEndFinder();
    ends.clear();
    find(s, ends);
}

void appendHeader(std::string &out,
                  char kind,
                  std::int64_t atMs,
                  std::string_view sourceId,
                  std::int64_t count,
                  std::string_view payload,
                  const std::optional<std::int32_t> &partition,
                  const std::optional<std::int64_t> &firstOffset)
{
    std::string rest;
    rest.reserve(64 + sourceId.size());
    rest += kind;
    rest += '\t';
    rest += std::to_string(atMs);
    rest += '\t';
    rest += sourceId;
    rest += '\t';
    rest += std::to_string(count);
    rest += '\t';
    rest += std::to_string(payload.size());
    rest += '\t';
    appendOptional(rest, partition);
    rest += '\t';
    appendOptional(rest, firstOffset);
    rest += '\t';
    appendHex(rest, checkpoint::crc32c(payload));
    out += '#';
    appendHex(out, checkpoint::crc32c(rest));
    out += '\t';
    out += rest;
    out += '\n';
}

/// A C row: partition offset timestamp key headers value, escaped as in /1.
void appendRow(std::string &out, const Entry &e)
{
    appendKafkaColumns(out, e);
    if (e.valueAbsent)
        out += kAbsent;
    else
        escape(out, e.value);
    out += '\n';
}

/// A value a raw (R) block can hold: a present value without '\n', and nothing else set but
/// the partition and the offset.
bool rawable(const Entry &e)
{
    return !e.end && !e.valueAbsent && !e.key && e.headers.empty() && !e.timestamp
           && std::memchr(e.value.data(), '\n', e.value.size()) == nullptr;
}

} // namespace

// --- BlockEncoder ---

std::size_t BlockEncoder::headerSize(std::int64_t count, std::size_t bytes) const
{
    // '#' crc '\t' kind '\t' at '\t' source '\t' count '\t' bytes '\t' partition '\t' offset
    // '\t' pcrc '\n'
    return 1 + 8 + 1 + 1 + 1 + digits(m_atMs) + 1 + m_sourceId.size() + 1 + digits(count) + 1
           + digits(static_cast<std::int64_t>(bytes)) + 1
           + (m_partition ? digits(*m_partition) : kAbsent.size()) + 1
           + (m_firstOffset ? digits(*m_firstOffset) : kAbsent.size()) + 1 + 8 + 1;
}

std::size_t BlockEncoder::cost(const Entry &e, std::string_view sourceId)
{
    if (e.end) {
        // An end marker's block: 1+8+1 + "E\t" + at + source + "0\t0\t\\N\t\\N\t" + 8 + 1.
        return 1 + 8 + 1 + 2 + digits(e.atMs) + 1 + sourceId.size() + 1 + 4 + 6 + 8 + 1;
    }
    const bool raw = rawable(e);
    const bool same
        = m_kind != 0 && m_source == e.source && m_atMs == e.atMs && m_payload.size() < kBlockBytes;
    if (same && m_kind == 'R' && raw && e.partition == m_partition
        && (m_firstOffset ? e.offset && *m_firstOffset <= kMaxOffset - m_count
                                && *e.offset == *m_firstOffset + m_count
                          : !e.offset)) {
        m_fit = Fit::Continue;
        const std::size_t row = e.value.size() + 1;
        return headerSize(m_count + 1, m_payload.size() + row)
               - headerSize(m_count, m_payload.size()) + row;
    }
    m_row.clear();
    if (same && m_kind == 'C') {
        m_fit = Fit::Continue;
        appendRow(m_row, e);
        return headerSize(m_count + 1, m_payload.size() + m_row.size())
               - headerSize(m_count, m_payload.size()) + m_row.size();
    }
    // A new block (the open one, if any, is closed: its size was counted as it grew). After a
    // raw block of this source and time, a record that does not continue it starts a C block.
    BlockEncoder next;
    next.m_atMs = e.atMs;
    next.m_sourceId = sourceId;
    if (raw && !same) {
        m_fit = Fit::Raw;
        next.m_partition = e.partition;
        next.m_firstOffset = e.offset;
        return next.headerSize(1, e.value.size() + 1) + e.value.size() + 1;
    }
    m_fit = Fit::Columns;
    appendRow(m_row, e);
    return next.headerSize(1, m_row.size()) + m_row.size();
}

void BlockEncoder::add(const Entry &e, std::string_view sourceId, std::string &out)
{
    if (e.end) {
        close(out);
        appendHeader(out, 'E', e.atMs, sourceId, 0, {}, std::nullopt, std::nullopt);
        return;
    }
    if (m_fit != Fit::Continue) {
        close(out);
        m_kind = m_fit == Fit::Raw ? 'R' : 'C';
        m_source = e.source;
        m_atMs = e.atMs;
        m_sourceId = sourceId;
        m_partition = m_kind == 'R' ? e.partition : std::nullopt;
        m_firstOffset = m_kind == 'R' ? e.offset : std::nullopt;
    }
    ++m_count;
    if (m_kind == 'R') {
        m_payload += e.value;
        m_payload += '\n';
    } else {
        m_payload += m_row;
    }
}

void BlockEncoder::close(std::string &out)
{
    if (m_kind == 0)
        return;
    appendHeader(out, m_kind, m_atMs, m_sourceId, m_count, m_payload, m_partition, m_firstOffset);
    out += m_payload;
    m_kind = 0;
    m_count = 0;
    m_payload.clear();
}

// --- Reading ---

BlockCheck readBlockHeader(std::string_view bytes, Block &b, std::string &why)
{
    const auto *nl = static_cast<const char *>(std::memchr(bytes.data(), '\n', bytes.size()));
    if (!nl) {
        if (bytes.empty() || bytes[0] == '#')
            return BlockCheck::Torn; // the header itself is cut off
        why = "does not start a block (`#` and an 8-digit CRC)";
        return BlockCheck::Bad;
    }
    const std::string_view header(bytes.data(), static_cast<std::size_t>(nl - bytes.data()));
    std::string_view f[kHeaderFields];
    int fields = 0;
    for (std::size_t from = 0;;) {
        const std::size_t tab = header.find('\t', from);
        if (fields == kHeaderFields) {
            fields = kHeaderFields + 1; // too many
            break;
        }
        f[fields++] = header.substr(from, tab == std::string_view::npos ? tab : tab - from);
        if (tab == std::string_view::npos)
            break;
        from = tab + 1;
    }
    if (fields != kHeaderFields) {
        why = "has a block header without its " + std::to_string(kHeaderFields)
              + " tab-separated fields";
        return BlockCheck::Bad;
    }
    std::uint32_t headerCrc = 0;
    if (f[0].size() != 9 || f[0][0] != '#' || !parseHex(f[0].substr(1), headerCrc)) {
        why = "does not start a block (`#` and an 8-digit CRC)";
        return BlockCheck::Bad;
    }
    if (checkpoint::crc32c(header.substr(10)) != headerCrc) {
        why = "has a block header that fails its CRC (edited or damaged)";
        return BlockCheck::Bad;
    }
    // The header's CRC matched: what follows is what the writer wrote, or a forged header.
    b.kind = f[1].size() == 1 ? f[1][0] : '?';
    std::optional<std::int64_t> at, count, size;
    if ((b.kind != 'R' && b.kind != 'C' && b.kind != 'E') || !parseOptional(f[2], at) || !at
        || *at < 0 || !unescape(f[3], b.sourceId) || b.sourceId.empty()
        || !parseOptional(f[4], count) || !count || *count < 0 || !parseOptional(f[5], size)
        || !size || *size < 0 || !parseOptional(f[6], b.partition)
        || (b.partition && *b.partition < 0) || !parseOptional(f[7], b.firstOffset)
        || !parseHex(f[8], b.payloadCrc) || (b.kind != 'R' && (b.partition || b.firstOffset))
        || ((b.kind == 'E') != (*count == 0)) || (b.kind == 'E' && *size != 0)
        || (b.firstOffset && *count > 0
            && *b.firstOffset > std::numeric_limits<std::int64_t>::max() - (*count - 1))) {
        why = "has an invalid block header";
        return BlockCheck::Bad;
    }
    b.atMs = *at;
    b.count = *count;
    b.headerSize = header.size() + 1;
    const auto payloadBytes = static_cast<std::uint64_t>(*size);
    if (payloadBytes > bytes.size() - b.headerSize)
        return BlockCheck::Torn;
    b.payload = bytes.substr(b.headerSize, static_cast<std::size_t>(payloadBytes));
    b.size = b.headerSize + b.payload.size();
    b.lineEnds.clear();
    b.checked = false;
    return BlockCheck::Whole;
}

bool checkBlockPayload(std::string_view payload,
                       std::uint32_t crc,
                       std::int64_t count,
                       std::vector<std::size_t> &ends,
                       std::string &why)
{
    // The lines found before the CRC, though the CRC's verdict is reported first: the scan is
    // one sequential stream, the first pass over bytes a mapped recording has not touched yet,
    // and leaves them in L2 for the CRC's three interleaved lanes, which stall on memory when
    // they go first (in that order the two took twice the CPU, docs/benchmarks.md).
    findLineEnds(payload, ends);
    if (checkpoint::crc32c(payload) != crc) {
        why = "its records fail the block's CRC (the block was edited or damaged)";
        return false;
    }
    if (ends.size() != static_cast<std::size_t>(count)
        || (!payload.empty() && payload.back() != '\n')) {
        why = "holds " + std::to_string(ends.size()) + " lines but its header says "
              + std::to_string(count);
        return false;
    }
    return true;
}

BlockCheck readBlock(std::string_view bytes, Block &b, std::string &why)
{
    const BlockCheck check = readBlockHeader(bytes, b, why);
    if (check != BlockCheck::Whole)
        return check;
    if (!checkBlockPayload(b.payload, b.payloadCrc, b.count, b.lineEnds, why))
        return BlockCheck::Bad;
    b.checked = true;
    return BlockCheck::Whole;
}

std::string parseRow(std::string_view row, Entry &e)
{
    constexpr int kRowColumns = 6;
    std::string_view cols[kRowColumns];
    std::size_t start = 0;
    for (int c = 0; c + 1 < kRowColumns; ++c) {
        const std::size_t tab = row.find('\t', start);
        if (tab == std::string_view::npos)
            return "has " + std::to_string(c + 1) + " of its " + std::to_string(kRowColumns)
                   + " tab-separated columns";
        cols[c] = row.substr(start, tab - start);
        start = tab + 1;
    }
    cols[kRowColumns - 1] = row.substr(start);
    if (cols[kRowColumns - 1].find('\t') != std::string_view::npos)
        return "has more than " + std::to_string(kRowColumns) + " columns";
    if (!parseOptional(cols[0], e.partition) || (e.partition && *e.partition < 0))
        return "has an invalid partition";
    if (!parseOptional(cols[1], e.offset))
        return "has an invalid offset";
    if (!parseOptional(cols[2], e.timestamp))
        return "has an invalid timestamp";
    if (cols[3] == kAbsent) {
        e.key.reset();
    } else {
        std::string key;
        if (!unescape(cols[3], key))
            return "has a badly escaped key";
        e.key = std::move(key);
    }
    e.headers.clear();
    if (cols[4] != kAbsent && !parseHeaders(cols[4], e.headers))
        return "has badly escaped headers (name\\=value pairs joined by \\;)";
    e.end = false;
    e.valueAbsent = cols[5] == kAbsent;
    if (e.valueAbsent)
        e.value.clear();
    else if (!unescape(cols[5], e.value))
        return "has a badly escaped value";
    return {};
}

std::string blockEntries(const Block &b, std::vector<Entry> &out)
{
    if (b.kind == 'E') {
        Entry e;
        e.atMs = b.atMs;
        e.end = true;
        out.push_back(std::move(e));
        return {};
    }
    std::size_t at = 0;
    for (std::int64_t i = 0; i < b.count; ++i) {
        // Found again, not taken from lineEnds: this is the slow path, and the fuzz harness
        // holds the ends against it.
        const std::size_t nl = b.payload.find('\n', at);
        if (nl == std::string_view::npos)
            return "row " + std::to_string(i + 1) + ": missing";
        const std::string_view row = b.payload.substr(at, nl - at);
        at = nl + 1;
        Entry e;
        e.atMs = b.atMs;
        if (b.kind == 'R') {
            e.partition = b.partition;
            if (b.firstOffset)
                e.offset = *b.firstOffset + i;
            e.value.assign(row);
        } else if (std::string why = parseRow(row, e); !why.empty()) {
            return "row " + std::to_string(i + 1) + ": " + why;
        }
        out.push_back(std::move(e));
    }
    return {};
}

} // namespace tideline::recording
