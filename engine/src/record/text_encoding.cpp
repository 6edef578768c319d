// Text encodings records are read and written in: UTF-8 validation and cutting, JSON string
// escaping and base64. utf8SequenceLength stays in one file with the loops that call it
// (appendJsonString, invalidUtf8At), as it was before the split, so the compiler may inline it.
#include <tideline/engine/record_json.hpp>

namespace tideline {

// --- Validation for messages and number ranges ------------------------------------------------

std::size_t utf8SequenceLength(const unsigned char *p, std::size_t avail)
{
    // RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF.
    const unsigned c = p[0];
    if (c < 0x80)
        return 1;
    auto cont = [&](std::size_t k) {
        return k < avail && (p[k] & 0xC0) == 0x80;
    };
    if (c >= 0xC2 && c <= 0xDF)
        return cont(1) ? 2 : 0;
    if (c >= 0xE0 && c <= 0xEF) {
        if (avail < 2)
            return 0;
        const unsigned c1 = p[1];
        if ((c == 0xE0 && c1 < 0xA0) || (c == 0xED && c1 > 0x9F))
            return 0;
        return cont(1) && cont(2) ? 3 : 0;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        if (avail < 2)
            return 0;
        const unsigned c1 = p[1];
        if ((c == 0xF0 && c1 < 0x90) || (c == 0xF4 && c1 > 0x8F))
            return 0;
        return cont(1) && cont(2) && cont(3) ? 4 : 0;
    }
    return 0;
}

std::size_t invalidUtf8At(std::string_view s)
{
    const auto *p = reinterpret_cast<const unsigned char *>(s.data());
    const std::size_t n = s.size();
    std::size_t i = 0;
    while (i < n) {
        if (p[i] < 0x80) {
            ++i;
            continue;
        }
        std::size_t len = utf8SequenceLength(p + i, n - i);
        if (len == 0)
            return i;
        i += len;
    }
    return std::string_view::npos;
}

std::size_t utf8Prefix(std::string_view s, std::size_t max)
{
    if (s.size() <= max)
        return s.size();
    std::size_t cut = max;
    // Step back over continuation bytes (at most 3) to the start of the cut sequence.
    for (int k = 0; k < 3 && cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80; ++k)
        --cut;
    return cut;
}

void appendBase64(std::string_view bytes, std::string &out)
{
    static const char *abc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const auto *p = reinterpret_cast<const unsigned char *>(bytes.data());
    const std::size_t n = bytes.size();
    std::size_t i = 0;
    for (; i + 3 <= n; i += 3) {
        const unsigned v = (p[i] << 16) | (p[i + 1] << 8) | p[i + 2];
        out += abc[(v >> 18) & 63];
        out += abc[(v >> 12) & 63];
        out += abc[(v >> 6) & 63];
        out += abc[v & 63];
    }
    if (i < n) {
        unsigned v = p[i] << 16;
        if (i + 1 < n)
            v |= p[i + 1] << 8;
        out += abc[(v >> 18) & 63];
        out += abc[(v >> 12) & 63];
        out += i + 1 < n ? abc[(v >> 6) & 63] : '=';
        out += '=';
    }
}

void appendJsonString(std::string_view s, std::string &out)
{
    static const char *hex = "0123456789abcdef";
    out += '"';
    std::size_t start = 0;
    const auto *p = reinterpret_cast<const unsigned char *>(s.data());
    const std::size_t n = s.size();
    for (std::size_t i = 0; i < n; ++i) {
        const unsigned c = p[i];
        if (c >= 0x20 && c != '"' && c != '\\') {
            if (c < 0x80) [[likely]]
                continue;
            // Valid UTF-8 is copied; a byte that is not (a string from CSV or a transform that
            // cut one) becomes U+FFFD, so the output is always valid JSON.
            const std::size_t len = utf8SequenceLength(p + i, n - i);
            if (len) {
                i += len - 1;
                continue;
            }
            out.append(s.data() + start, i - start);
            start = i + 1;
            out += "\\ufffd";
            continue;
        }
        out.append(s.data() + start, i - start);
        start = i + 1;
        switch (c) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\r':
            out += "\\r";
            break;
        case '\t':
            out += "\\t";
            break;
        case '\b':
            out += "\\b";
            break;
        case '\f':
            out += "\\f";
            break;
        default:
            out += "\\u00";
            out += hex[c >> 4];
            out += hex[c & 15];
        }
    }
    out.append(s.data() + start, n - start);
    out += '"';
}

} // namespace tideline
