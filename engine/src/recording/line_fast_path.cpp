// parseLine: the fast path a replay reads every records.tsv line through (recording.hpp). One
// SSE2 pass finds the separators and any escape; a line as the recorder writes it is read
// without a per-column search or a library call; anything else goes to parseLineReference
// (line_reference.cpp), so results and errors are the same.

#include "checkpoint/checksum.hpp"
#include "recording/line_text.hpp"

#include <array>
#include <cstdint>
#include <limits>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace tideline::recording {

using namespace line;

namespace {

/// Hex digit values; 0x80 marks a byte that is not one.
constexpr auto kHex = [] {
    std::array<std::uint8_t, 256> t{};
    for (int c = 0; c < 256; ++c) {
        const int d = hexDigit(static_cast<char>(c));
        t[static_cast<std::size_t>(c)] = d < 0 ? 0x80 : static_cast<std::uint8_t>(d);
    }
    return t;
}();

/// Where a line's columns are: the first eight tabs, and what the line holds besides.
struct Columns
{
    std::size_t tab[kColumns - 1]; ///< positions of the eight separators
    bool valueEscapes = false;     ///< a backslash in the value column
    bool valueTab = false;         ///< a ninth tab (too many columns)
};

/// One pass over the line finds the separators and the backslashes: false when the line has
/// fewer than eight tabs. 16 bytes at a time with SSE2 (the line is read once, not once per
/// column and again per escape check).
bool scanColumns(std::string_view line, Columns &c)
{
    int found = 0;
    std::size_t valueStart = 0;
    // Bits of one block: tabs and backslashes at base + bit.
    auto block = [&](std::size_t base, std::uint32_t tabs, std::uint32_t slashes) {
        while (found < kColumns - 1 && tabs) {
            const int bit = __builtin_ctz(tabs);
            c.tab[found++] = base + static_cast<std::size_t>(bit);
            tabs &= tabs - 1;
            if (found == kColumns - 1)
                valueStart = base + static_cast<std::size_t>(bit) + 1;
        }
        if (found < kColumns - 1)
            return; // backslashes before the value: the columns that may have them look
        // The last separator may sit inside this block: split its backslashes at the value.
        const std::size_t from = valueStart > base ? valueStart - base : 0;
        const std::uint32_t valueMask = from >= 32 ? 0 : ~0u << from;
        c.valueEscapes |= (slashes & valueMask) != 0;
        c.valueTab |= (tabs & valueMask) != 0;
    };
    const char *p = line.data();
    const std::size_t n = line.size();
    std::size_t i = 0;
#ifdef __SSE2__
    const __m128i tab = _mm_set1_epi8('\t'), slash = _mm_set1_epi8('\\');
    auto mask = [&](const char *at, const __m128i &what) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i *>(at));
        return static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, what)));
    };
    if (n >= 64) {
        // The usual line: its eight separators within the first 64 bytes. Loops of a fixed
        // count only: a branch that depends on where the tabs fall mispredicts line by line.
        std::uint64_t tabs = 0, slashes = 0;
        for (unsigned k = 0; k < 4; ++k) {
            tabs |= std::uint64_t{mask(p + 16 * k, tab)} << (16 * k);
            slashes |= std::uint64_t{mask(p + 16 * k, slash)} << (16 * k);
        }
        // At least eight tabs: clear the lowest seven, one must be left. (Not popcount: the
        // portable build has no POPCNT, and __builtin_popcountll became a libgcc call.)
        std::uint64_t rest = tabs;
        for (int k = 0; k < kColumns - 2; ++k)
            rest &= rest - 1;
        if (rest != 0) {
            for (int k = 0; k < kColumns - 1; ++k) {
                c.tab[k] = static_cast<std::size_t>(__builtin_ctzll(tabs));
                tabs &= tabs - 1;
            }
            const std::size_t value = c.tab[kColumns - 2] + 1;
            const std::uint64_t valueMask = value >= 64 ? 0 : ~std::uint64_t{0} << value;
            c.valueEscapes = (slashes & valueMask) != 0;
            c.valueTab = tabs != 0; // the tabs left are all after the eighth
            std::uint32_t moreTabs = 0, moreSlashes = 0;
            for (i = 64; i + 16 <= n; i += 16) {
                moreTabs |= mask(p + i, tab);
                moreSlashes |= mask(p + i, slash);
            }
            if (i < n) { // the last 16 bytes, without those already seen
                const auto seen = static_cast<unsigned>(i - (n - 16));
                moreTabs |= mask(p + n - 16, tab) >> seen;
                moreSlashes |= mask(p + n - 16, slash) >> seen;
            }
            c.valueTab |= moreTabs != 0;
            c.valueEscapes |= moreSlashes != 0;
            return true;
        }
    }
    for (; i + 16 <= n; i += 16) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p + i));
        block(i, static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, tab))),
              static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, slash))));
    }
#endif
    for (; i < n; i += 16) {
        std::uint32_t tabs = 0, slashes = 0;
        for (std::size_t k = 0; k < 16 && i + k < n; ++k) {
            tabs |= static_cast<std::uint32_t>(p[i + k] == '\t') << k;
            slashes |= static_cast<std::uint32_t>(p[i + k] == '\\') << k;
        }
        block(i, tabs, slashes);
    }
    return found == kColumns - 1;
}

bool isAbsent(std::string_view s)
{
    return s.size() == 2 && s[0] == '\\' && s[1] == 'N';
}

/// An integer column as parseOptional reads it, without a library call for short numbers.
template<typename Int>
[[nodiscard]] bool parseInt(std::string_view s, std::optional<Int> &v)
{
    if (isAbsent(s)) {
        v.reset();
        return true;
    }
    const bool negative = !s.empty() && s[0] == '-';
    const std::size_t digits = s.size() - (negative ? 1 : 0);
    if (digits == 0 || digits > 18)
        return parseOptional(s, v); // empty, or long enough to overflow: the exact rules
    std::int64_t x = 0;
    for (std::size_t i = negative ? 1 : 0; i < s.size(); ++i) {
        const unsigned d = static_cast<unsigned char>(s[i]) - unsigned('0');
        if (d > 9)
            return false;
        x = x * 10 + static_cast<std::int64_t>(d);
    }
    if (negative)
        x = -x;
    if (x < std::numeric_limits<Int>::min() || x > std::numeric_limits<Int>::max())
        return false;
    v = static_cast<Int>(x);
    return true;
}

/// What both fast readings check first: the separators (exactly nine columns), the CRC and
/// at_ms. False: not a line as the recorder writes it (the reference parser says why).
[[nodiscard]] bool splitChecked(std::string_view line,
                                Columns &c,
                                std::string_view (&cols)[kColumns],
                                std::int64_t &atMs)
{
    if (!scanColumns(line, c) || c.valueTab || c.tab[0] != 8)
        return false;
    // The CRC's digits are random: a table and one check at the end, not a branch per digit
    // (which mispredicts about every other digit and cost more than the rest of the line).
    std::uint32_t want = 0, bad = 0;
    for (std::size_t i = 0; i < 8; ++i) {
        const std::uint8_t d = kHex[static_cast<unsigned char>(line[i])];
        bad |= d;
        want = want << 4 | (d & 0xF);
    }
    if ((bad & 0x80) || checkpoint::crc32c(line.substr(9)) != want)
        return false;
    std::size_t from = 0;
    for (int k = 0; k < kColumns - 1; ++k) {
        cols[k] = line.substr(from, c.tab[k] - from);
        from = c.tab[k] + 1;
    }
    cols[kColumns - 1] = line.substr(from);
    std::optional<std::int64_t> at;
    if (!parseInt(cols[1], at) || !at || *at < 0)
        return false;
    atMs = *at;
    return true;
}

/// Not a flag from the scan: nearly every line has a backslash before its value (`\N`, an
/// absent column), so the short source id and key are looked at themselves.
bool hasBackslash(std::string_view s)
{
    bool any = false;
    for (char ch : s)
        any |= ch == '\\';
    return any;
}

/// The line when everything in it is as the recorder writes it: false sends the line to the
/// reference parser, which either reads it the same way or says what is wrong with it.
[[nodiscard]] bool parseFast(std::string_view line, Entry &e, std::string &sourceId)
{
    Columns c;
    std::string_view col[kColumns];
    if (!splitChecked(line, c, col, e.atMs))
        return false;
    const std::string_view source = col[2], key = col[6], headers = col[7], value = col[8];
    if (hasBackslash(source)) { // an odd source id: rare
        if (!unescape(source, sourceId))
            return false;
    } else {
        sourceId.assign(source);
    }
    if (sourceId.empty() || !parseInt(col[3], e.partition) || (e.partition && *e.partition < 0)
        || !parseInt(col[4], e.offset) || !parseInt(col[5], e.timestamp))
        return false;
    if (isAbsent(key)) {
        e.key.reset();
    } else if (!hasBackslash(key)) {
        e.key.emplace(key);
    } else {
        std::string k;
        if (!unescape(key, k))
            return false;
        e.key = std::move(k);
    }
    e.headers.clear();
    if (!isAbsent(headers) && !parseHeaders(headers, e.headers))
        return false;
    e.end = value == kEnd;
    e.valueAbsent = isAbsent(value);
    if (e.end || e.valueAbsent)
        e.value.clear();
    else if (!c.valueEscapes)
        e.value.assign(value); // nearly every value: no escapes, one copy
    else if (!unescape(value, e.value))
        return false;
    return true;
}

} // namespace

std::string parseLine(std::string_view line, Entry &e, std::string &sourceId)
{
    if (parseFast(line, e, sourceId)) [[likely]]
        return {};
    return parseLineReference(line, e, sourceId);
}

} // namespace tideline::recording

namespace tideline::recording {

bool parseLineView(std::string_view line, LineView &v, std::string &scratch)
{
    Columns c;
    std::string_view col[kColumns];
    if (!splitChecked(line, c, col, v.atMs))
        return false;
    v.sourceId = col[2];
    if (v.sourceId.empty() || hasBackslash(v.sourceId) || !isAbsent(col[6]) || !isAbsent(col[7])
        || !parseInt(col[3], v.partition) || (v.partition && *v.partition < 0)
        || !parseInt(col[4], v.offset) || !parseInt(col[5], v.timestamp))
        return false; // an escaped source id, a key or headers: parseLine reads the line
    const std::string_view value = col[8];
    v.end = value == kEnd;
    v.valueAbsent = isAbsent(value);
    if (v.end || v.valueAbsent) {
        v.value = {};
    } else if (!c.valueEscapes) {
        v.value = value; // nearly every value: the recording's own bytes, no copy
    } else {
        if (!unescape(value, scratch))
            return false;
        v.value = scratch;
    }
    return true;
}

} // namespace tideline::recording
