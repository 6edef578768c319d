// Escaping of records.tsv's text columns and reading of its header column (line_text.hpp).

#include "recording/line_text.hpp"

#include <cstdio>

namespace tideline::recording::line {

namespace {

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

} // namespace

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

bool unescape(std::string_view s, std::string &out)
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

bool parseHeaders(std::string_view s, std::vector<std::pair<std::string, std::string>> &out)
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

void appendKafkaColumns(std::string &out, const Entry &e)
{
    appendOptional(out, e.partition);
    out += '\t';
    appendOptional(out, e.offset);
    out += '\t';
    appendOptional(out, e.timestamp);
    out += '\t';
    if (e.key)
        escape(out, *e.key);
    else
        out += kAbsent;
    out += '\t';
    if (e.headers.empty()) {
        out += kAbsent;
    } else {
        // escape() never writes a backslash before '=' or ';', so these separators cannot be
        // confused with any byte of a name or a value.
        for (std::size_t i = 0; i < e.headers.size(); ++i) {
            if (i)
                out += "\\;";
            escape(out, e.headers[i].first);
            out += "\\=";
            escape(out, e.headers[i].second);
        }
    }
    out += '\t';
}

} // namespace tideline::recording::line
