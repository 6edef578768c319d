// One line of records.tsv: writing it and reading it back, byte for byte (recording.hpp).

#include "checkpoint/checksum.hpp"

#include <tideline/engine/recording.hpp>

#include <array>
#include <charconv>
#include <cstdio>
#include <limits>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace tideline::recording {

namespace {

constexpr std::string_view kAbsent = "\\N";
constexpr std::string_view kEnd = "\\E"; // value column of a source's end marker
constexpr int kColumns = 9; // crc, at, source, partition, offset, timestamp, key, headers, value

/// Length of the valid UTF-8 sequence starting at s[i], or 0.
std::size_t utf8Length(std::string_view s, std::size_t i)
{
    const auto c = static_cast<unsigned char>(s[i]);
    std::size_t n = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
    if (n == 0 || i + n > s.size())
        return 0;
    for (std::size_t k = 1; k < n; ++k)
        if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80)
            return 0;
    const auto c1 = static_cast<unsigned char>(s[i + 1]);
    if ((c == 0xE0 && c1 < 0xA0) || (c == 0xED && c1 >= 0xA0) || (c == 0xF0 && c1 < 0x90)
        || (c == 0xF4 && c1 >= 0x90))
        return 0; // overlong, surrogate or beyond U+10FFFF
    return n;
}

void escape(std::string &out, std::string_view s)
{
    for (std::size_t i = 0; i < s.size(); ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        switch (c) {
        case '\\':
            out += "\\\\";
            continue;
        case '\t':
            out += "\\t";
            continue;
        case '\n':
            out += "\\n";
            continue;
        case '\r':
            out += "\\r";
            continue;
        default:
            break;
        }
        if (c >= 0x20 && c < 0x7F) {
            out += static_cast<char>(c);
        } else if (std::size_t n = c >= 0x80 ? utf8Length(s, i) : 0; n > 0) {
            out.append(s.substr(i, n));
            i += n - 1;
        } else {
            char hex[5];
            std::snprintf(hex, sizeof hex, "\\x%02X", c);
            out += hex;
        }
    }
}

constexpr int hexDigit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

[[nodiscard]] bool unescape(std::string_view s, std::string &out)
{
    out.clear();
    // Runs without a backslash (nearly every value) are copied whole: a replay reads every
    // recorded byte through here, and must keep up with source.file reading the same lines.
    std::size_t i = 0;
    while (i < s.size()) {
        const std::size_t bs = s.find('\\', i);
        if (bs == std::string_view::npos) {
            out.append(s.substr(i));
            return true;
        }
        out.append(s.substr(i, bs - i));
        i = bs + 1;
        if (i >= s.size())
            return false;
        switch (s[i]) {
        case '\\':
            out += '\\';
            break;
        case 't':
            out += '\t';
            break;
        case 'n':
            out += '\n';
            break;
        case 'r':
            out += '\r';
            break;
        case 'x': {
            if (i + 2 >= s.size())
                return false;
            const int hi = hexDigit(s[i + 1]), lo = hexDigit(s[i + 2]);
            if (hi < 0 || lo < 0)
                return false;
            out += static_cast<char>(hi * 16 + lo);
            i += 2;
            break;
        }
        default:
            return false;
        }
        ++i;
    }
    return true;
}

/// Splits the headers column at the unescaped separators `\;` (between pairs) and `\=`
/// (between a name and its value), unescaping each part.
[[nodiscard]] bool parseHeaders(std::string_view s,
                                std::vector<std::pair<std::string, std::string>> &out)
{
    std::size_t partStart = 0;
    std::string name;
    bool haveName = false;
    auto part = [&](std::size_t end, std::string &dst) {
        return unescape(s.substr(partStart, end - partStart), dst);
    };
    for (std::size_t i = 0; i <= s.size(); ++i) {
        const bool atEnd = i == s.size();
        if (!atEnd && s[i] != '\\')
            continue;
        const char next = atEnd || i + 1 >= s.size() ? '\0' : s[i + 1];
        if (!atEnd && next != '=' && next != ';') {
            ++i; // an ordinary escape: skip its first character after the backslash
            continue;
        }
        if (!atEnd && next == '=') {
            if (haveName || !part(i, name))
                return false;
            haveName = true;
        } else {
            std::string value;
            if (!haveName || !part(i, value))
                return false;
            out.emplace_back(std::move(name), std::move(value));
            name.clear();
            haveName = false;
        }
        partStart = i + 2;
        ++i;
    }
    return !out.empty();
}

template<typename Int>
void appendOptional(std::string &out, const std::optional<Int> &v)
{
    if (v)
        out += std::to_string(*v);
    else
        out += kAbsent;
}

template<typename Int>
[[nodiscard]] bool parseOptional(std::string_view s, std::optional<Int> &v)
{
    if (s == kAbsent) {
        v.reset();
        return true;
    }
    Int x{};
    auto r = std::from_chars(s.data(), s.data() + s.size(), x);
    if (r.ec != std::errc() || r.ptr != s.data() + s.size())
        return false;
    v = x;
    return true;
}

} // namespace

void appendLine(std::string &out, const Entry &e, std::string_view sourceId)
{
    std::string rest;
    rest.reserve(e.value.size() + sourceId.size() + 48);
    rest += std::to_string(e.atMs);
    rest += '\t';
    escape(rest, sourceId);
    rest += '\t';
    appendOptional(rest, e.partition);
    rest += '\t';
    appendOptional(rest, e.offset);
    rest += '\t';
    appendOptional(rest, e.timestamp);
    rest += '\t';
    if (e.key)
        escape(rest, *e.key);
    else
        rest += kAbsent;
    rest += '\t';
    if (e.headers.empty()) {
        rest += kAbsent;
    } else {
        // name\=value pairs joined by \; : escape() never writes a backslash before '=' or
        // ';', so these separators cannot be confused with any byte of a name or a value.
        for (std::size_t i = 0; i < e.headers.size(); ++i) {
            if (i)
                rest += "\\;";
            escape(rest, e.headers[i].first);
            rest += "\\=";
            escape(rest, e.headers[i].second);
        }
    }
    rest += '\t';
    if (e.end)
        rest += kEnd;
    else if (e.valueAbsent)
        rest += kAbsent;
    else
        escape(rest, e.value);
    char crc[9];
    std::snprintf(crc, sizeof crc, "%08x", checkpoint::crc32c(rest));
    out.append(crc, 8);
    out += '\t';
    out += rest;
    out += '\n';
}

std::string parseLineReference(std::string_view line, Entry &e, std::string &sourceId)
{
    std::string_view cols[kColumns];
    // The first eight columns are short: one byte loop finds their tabs (a memchr call per
    // column costs more than the scan; a replay parses every line).
    std::size_t start = 0, i = 0;
    for (int c = 0; c + 1 < kColumns; ++c) {
        while (i < line.size() && line[i] != '\t')
            ++i;
        if (i == line.size())
            return "has " + std::to_string(c + 1) + " of its " + std::to_string(kColumns)
                   + " tab-separated columns";
        cols[c] = line.substr(start, i - start);
        start = ++i;
    }
    cols[kColumns - 1] = line.substr(start);
    if (cols[kColumns - 1].find('\t') != std::string_view::npos)
        return "has more than " + std::to_string(kColumns) + " columns";
    std::uint32_t want = 0;
    if (cols[0].size() != 8)
        return "does not start with an 8-digit CRC";
    for (char c : cols[0]) {
        int d = hexDigit(c);
        if (d < 0)
            return "does not start with an 8-digit CRC";
        want = want * 16 + static_cast<std::uint32_t>(d);
    }
    if (checkpoint::crc32c(line.substr(9)) != want)
        return "fails its CRC (the line was edited or damaged)";
    std::optional<std::int64_t> at;
    if (!parseOptional(cols[1], at) || !at || *at < 0)
        return "has no valid at_ms (milliseconds since the recording began)";
    e.atMs = *at;
    if (!unescape(cols[2], sourceId) || sourceId.empty())
        return "has no valid source id";
    if (!parseOptional(cols[3], e.partition) || (e.partition && *e.partition < 0))
        return "has an invalid partition";
    if (!parseOptional(cols[4], e.offset))
        return "has an invalid offset";
    if (!parseOptional(cols[5], e.timestamp))
        return "has an invalid timestamp";
    if (cols[6] == kAbsent) {
        e.key.reset();
    } else {
        std::string key;
        if (!unescape(cols[6], key))
            return "has a badly escaped key";
        e.key = std::move(key);
    }
    e.headers.clear();
    if (cols[7] != kAbsent && !parseHeaders(cols[7], e.headers))
        return "has badly escaped headers (name\\=value pairs joined by \\;)";
    e.end = cols[8] == kEnd;
    e.valueAbsent = cols[8] == kAbsent;
    if (e.end || e.valueAbsent)
        e.value.clear();
    else if (!unescape(cols[8], e.value))
        return "has a badly escaped value";
    return {};
}

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
    bool headerEscapes = false;    ///< a backslash before the value column
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
        if (found < kColumns - 1) {
            c.headerEscapes |= slashes != 0;
            return;
        }
        // The last separator may sit inside this block: split its backslashes at the value.
        const std::size_t from = valueStart > base ? valueStart - base : 0;
        const std::uint32_t valueMask = from >= 32 ? 0 : ~0u << from;
        c.headerEscapes |= (slashes & ~valueMask) != 0;
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
        if (__builtin_popcountll(tabs) >= kColumns - 1) {
            for (int k = 0; k < kColumns - 1; ++k) {
                c.tab[k] = static_cast<std::size_t>(__builtin_ctzll(tabs));
                tabs &= tabs - 1;
            }
            const std::size_t value = c.tab[kColumns - 2] + 1;
            const std::uint64_t valueMask = value >= 64 ? 0 : ~std::uint64_t{0} << value;
            c.headerEscapes = (slashes & ~valueMask) != 0;
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

/// The line when everything in it is as the recorder writes it: false sends the line to the
/// reference parser, which either reads it the same way or says what is wrong with it.
[[nodiscard]] bool parseFast(std::string_view line, Entry &e, std::string &sourceId)
{
    Columns c;
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
    auto col = [&](int k) {
        const std::size_t from = c.tab[k - 1] + 1;
        const std::size_t to = k < kColumns - 1 ? c.tab[k] : line.size();
        return line.substr(from, to - from);
    };
    std::optional<std::int64_t> at;
    if (!parseInt(col(1), at) || !at || *at < 0)
        return false;
    e.atMs = *at;
    const std::string_view source = col(2), key = col(6), headers = col(7), value = col(8);
    if (c.headerEscapes) { // a key or header with escapes, an odd source id: rare
        if (!unescape(source, sourceId))
            return false;
    } else {
        sourceId.assign(source);
    }
    if (sourceId.empty() || !parseInt(col(3), e.partition) || (e.partition && *e.partition < 0)
        || !parseInt(col(4), e.offset) || !parseInt(col(5), e.timestamp))
        return false;
    if (isAbsent(key)) {
        e.key.reset();
    } else if (!c.headerEscapes) {
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
