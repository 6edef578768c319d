// Field path syntax: dotted segments, backtick-quoted keys, and the canonical form of a path.
#include <tideline/engine/record.hpp>

namespace tideline::fieldpath {

bool needsQuotes(std::string_view key)
{
    for (char c : key)
        if (c == '.' || c == '`')
            return true;
    return false;
}

void appendKey(std::string &out, std::string_view key)
{
    if (!needsQuotes(key)) {
        out.append(key);
        return;
    }
    out += '`';
    for (char c : key) {
        if (c == '`')
            out += '`';
        out += c;
    }
    out += '`';
}

std::string quoteKey(std::string_view key)
{
    std::string s;
    appendKey(s, key);
    return s;
}

std::size_t segmentEnd(std::string_view path, std::size_t pos)
{
    const std::size_t n = path.size();
    if (pos < n && path[pos] == '`') {
        std::size_t i = pos + 1;
        while (i < n) {
            if (path[i] == '`') {
                if (i + 1 < n && path[i + 1] == '`') {
                    i += 2;
                    continue;
                }
                ++i;
                break;
            }
            ++i;
        }
        if (i >= n)
            return n;
        if (path[i] == '.')
            return i;
        pos = i; // not canonical (text after the closing quote): the segment runs to a dot
    }
    const std::size_t dot = path.find('.', pos);
    return dot == std::string_view::npos ? n : dot;
}

void appendUnquoted(std::string &out, std::string_view seg)
{
    if (seg.empty() || seg.front() != '`') {
        out.append(seg);
        return;
    }
    std::size_t i = 1;
    const std::size_t n = seg.size();
    while (i < n) {
        char c = seg[i];
        if (c == '`') {
            if (i + 1 < n && seg[i + 1] == '`') {
                out += '`';
                i += 2;
                continue;
            }
            // The closing quote; anything after it (not canonical) is kept as it is.
            out.append(seg.substr(i + 1));
            return;
        }
        out += c;
        ++i;
    }
}

std::vector<std::string> keys(std::string_view path)
{
    std::vector<std::string> out;
    std::size_t pos = 0;
    while (true) {
        std::size_t end = segmentEnd(path, pos);
        out.emplace_back();
        appendUnquoted(out.back(), path.substr(pos, end - pos));
        if (end >= path.size())
            break;
        pos = end + 1;
    }
    return out;
}

bool readQuotedKey(std::string_view text, std::size_t &i, std::string &key)
{
    const std::size_t n = text.size();
    for (++i; i < n; ++i) {
        if (text[i] != '`') {
            key += text[i];
        } else if (i + 1 < n && text[i + 1] == '`') {
            key += '`';
            ++i;
        } else {
            ++i;
            return true;
        }
    }
    return false;
}

bool canonical(std::string_view text, std::string &out, std::string &error, std::size_t *errorAt)
{
    out.clear();
    auto fail = [&](std::string msg, std::size_t at) {
        error = std::move(msg);
        if (errorAt)
            *errorAt = at;
        return false;
    };
    std::size_t i = 0;
    const std::size_t n = text.size();
    std::string key;
    while (true) {
        key.clear();
        if (i < n && text[i] == '`') {
            const std::size_t open = i;
            if (!readQuotedKey(text, i, key))
                return fail("unclosed backtick: a quoted name ends with ` (write a backtick "
                            "inside it as ``)",
                            open);
            if (i < n && text[i] != '.')
                return fail("text after a `quoted name`: join names with '.'", i);
        } else {
            while (i < n && text[i] != '.') {
                if (text[i] == '`')
                    return fail("a backtick inside a name: quote the whole name, e.g. `a``b` "
                                "for a`b",
                                i);
                key += text[i++];
            }
        }
        appendKey(out, key);
        if (i >= n)
            return true;
        out += '.';
        ++i; // the dot
    }
}

bool isCanonical(std::string_view text)
{
    std::string c, e;
    return canonical(text, c, e) && c == text;
}

} // namespace tideline::fieldpath
