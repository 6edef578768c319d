#pragma once
// What the records.tsv line writer and its two readers share (recording.hpp): the column
// layout, the escaping of text columns and the reading of integer and header columns.
// Internal to engine/src/recording.

#include <tideline/engine/recording.hpp>

#include <charconv>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tideline::recording::line {

inline constexpr std::string_view kAbsent = "\\N";
inline constexpr std::string_view kEnd = "\\E"; // value column of a source's end marker
/// crc, at, source, partition, offset, timestamp, key, headers, value
inline constexpr int kColumns = 9;

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

/// Appends `s` escaped: \\ \t \n \r, and \xHH for control bytes and bytes that are not UTF-8.
void escape(std::string &out, std::string_view s);
/// Appends an integer column, `\\N` when absent.
template<typename Int>
void appendOptional(std::string &out, const std::optional<Int> &v)
{
    if (v)
        out += std::to_string(*v);
    else
        out += kAbsent;
}
/// Appends a record's partition, offset, timestamp, key and headers columns, each followed by
/// a tab (`\N` when absent; headers as name\=value pairs joined by \;): the columns /1's
/// lines and /2's C rows share between the source (or nothing) and the value.
void appendKafkaColumns(std::string &out, const Entry &e);
/// The reverse of escape(); false on a bad escape.
[[nodiscard]] bool unescape(std::string_view s, std::string &out);
/// Splits the headers column at the unescaped separators `\;` (between pairs) and `\=`
/// (between a name and its value), unescaping each part.
[[nodiscard]] bool parseHeaders(std::string_view s,
                                std::vector<std::pair<std::string, std::string>> &out);

/// An integer column (`\N` = absent), exactly: from_chars, the whole column.
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

} // namespace tideline::recording::line
