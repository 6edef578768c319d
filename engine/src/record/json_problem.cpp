// Finding what is wrong with a JSON line simdjson rejected (and where), so the message names
// the problem and its column instead of repeating simdjson's generic words.
#include "record/json_parse_detail.hpp"

#include <tideline/engine/record_json.hpp>

#include <algorithm>

namespace tideline {

namespace {

/// Finds the first problem of JSON text that simdjson rejected (or, with numbersOnly, the
/// first number literal out of range), without recursion. Returns false when it finds none.
class JsonProblemFinder
{
public:
    JsonProblemFinder(std::string_view text, bool numbersOnly)
        : m_s(text)
        , m_numbersOnly(numbersOnly)
    {
    }

    bool find(std::string &message)
    {
        std::size_t i = ws(0);
        if (i >= m_s.size())
            return problem(i, "empty line", message);
        if (m_s[i] != '{' && !m_numbersOnly) {
            // The root must be an object; say what it is instead.
            const char c = m_s[i];
            const char *what = c == '['                               ? "an array"
                               : c == '"'                             ? "a string"
                               : (c == '-' || (c >= '0' && c <= '9')) ? "a number"
                               : (c == 't' || c == 'f')               ? "a boolean"
                               : c == 'n'                             ? "null"
                                                                      : nullptr;
            if (what)
                return problem(i, std::string("not a JSON object (the line is ") + what + ")",
                               message);
            return problem(i, "not a JSON object: expected '{'", message);
        }
        // Stack of open containers: '{' or '['; state machine over the tokens.
        std::string stack;
        enum class Want { Value, KeyOrEnd, Key, Colon, CommaOrEnd, ValueOrEnd };
        Want want = Want::Value;
        while (true) {
            i = ws(i);
            if (i >= m_s.size()) {
                if (stack.empty() && want == Want::CommaOrEnd)
                    return false;
                return problem(i,
                               stack.empty()         ? "expected a value"
                               : stack.back() == '{' ? "unclosed object: expected '}'"
                                                     : "unclosed array: expected ']'",
                               message);
            }
            const char c = m_s[i];
            if (stack.empty() && want == Want::CommaOrEnd)
                return problem(i, "text after the JSON object", message);
            switch (want) {
            case Want::KeyOrEnd:
            case Want::Key:
                if (c == '}' && want == Want::KeyOrEnd) {
                    stack.pop_back();
                    ++i;
                    want = Want::CommaOrEnd;
                    continue;
                }
                if (c != '"')
                    return problem(i,
                                   want == Want::Key ? "expected a key (a string in \")"
                                                     : "expected a key (a string in \") or '}'",
                                   message);
                if (!string(i, message))
                    return true;
                want = Want::Colon;
                continue;
            case Want::Colon:
                if (c != ':')
                    return problem(i, "expected ':' after the key", message);
                ++i;
                want = Want::Value;
                continue;
            case Want::CommaOrEnd:
                if (c == ',') {
                    ++i;
                    want = stack.back() == '{' ? Want::Key : Want::Value;
                    continue;
                }
                if ((c == '}' && stack.back() == '{') || (c == ']' && stack.back() == '[')) {
                    stack.pop_back();
                    ++i;
                    continue;
                }
                return problem(i,
                               stack.back() == '{' ? "expected ',' or '}' after a value"
                                                   : "expected ',' or ']' after a value",
                               message);
            case Want::ValueOrEnd:
                if (c == ']') {
                    stack.pop_back();
                    ++i;
                    want = Want::CommaOrEnd;
                    continue;
                }
                [[fallthrough]];
            case Want::Value:
                if (c == '{') {
                    stack += '{';
                    ++i;
                    want = Want::KeyOrEnd;
                    continue;
                }
                if (c == '[') {
                    stack += '[';
                    ++i;
                    want = Want::ValueOrEnd;
                    continue;
                }
                if (c == '"') {
                    if (!string(i, message))
                        return true;
                } else if (c == '-' || (c >= '0' && c <= '9')) {
                    NumberCheck nc = checkJsonNumber(m_s.substr(i));
                    if (nc.kind != NumberCheck::Ok && nc.kind != NumberCheck::Unsigned) {
                        const std::size_t len = std::min<std::size_t>(
                            nc.kind == NumberCheck::Malformed ? nc.length + 1 : nc.length, 40);
                        const std::string text = shown(m_s.substr(i, len));
                        return problem(i,
                                       nc.kind == NumberCheck::Malformed
                                           ? "malformed number " + text + ": " + nc.why
                                           : "number " + text.substr(1, text.size() - 2) + " "
                                                 + nc.why,
                                       message);
                    }
                    i += nc.length;
                } else if (c == 't' || c == 'f' || c == 'n') {
                    const std::string_view lit = c == 't' ? "true" : c == 'f' ? "false" : "null";
                    if (m_s.substr(i, lit.size()) != lit || identChar(i + lit.size()))
                        return problem(i,
                                       "invalid literal " + shown(word(i))
                                           + " (expected true, false, null, a number, a "
                                             "string, an object or an array)",
                                       message);
                    i += lit.size();
                } else if (c == '}' || c == ']') {
                    return problem(i, std::string("expected a value before '") + c + "'", message);
                } else {
                    return problem(i, "expected a value, found " + shown(word(i)), message);
                }
                want = Want::CommaOrEnd;
                if (m_numbersOnly && stack.empty())
                    return false;
                continue;
            }
        }
    }

private:
    bool problem(std::size_t at, const std::string &what, std::string &message)
    {
        message = what + ", at column " + std::to_string(at + 1);
        return true;
    }
    std::size_t ws(std::size_t i) const
    {
        while (i < m_s.size()
               && (m_s[i] == ' ' || m_s[i] == '\t' || m_s[i] == '\n' || m_s[i] == '\r'))
            ++i;
        return i;
    }
    bool identChar(std::size_t i) const
    {
        if (i >= m_s.size())
            return false;
        const char c = m_s[i];
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
               || c == '_';
    }
    std::string_view word(std::size_t i) const
    {
        std::size_t j = i;
        while (j < m_s.size() && j - i < 20 && identChar(j))
            ++j;
        return m_s.substr(i, std::max<std::size_t>(j - i, 1));
    }
    /// Text shown in a message: printable ASCII as is, other bytes as \xNN (keeps the message
    /// valid UTF-8 whatever the input is).
    static std::string shown(std::string_view s)
    {
        static const char *hex = "0123456789abcdef";
        std::string out = "'";
        for (unsigned char c : s) {
            if (c >= 0x20 && c < 0x7f) {
                out += static_cast<char>(c);
            } else {
                out += "\\x";
                out += hex[c >> 4];
                out += hex[c & 15];
            }
        }
        return out + "'";
    }
    /// A string at m_s[i] == '"'; advances i past it or reports the problem.
    bool string(std::size_t &i, std::string &message)
    {
        const std::size_t open = i++;
        const auto *p = reinterpret_cast<const unsigned char *>(m_s.data());
        const std::size_t n = m_s.size();
        while (i < n) {
            const unsigned c = p[i];
            if (c == '"') {
                ++i;
                return true;
            }
            if (c < 0x20)
                return !problem(i,
                                "control character in a string (write it as \\u00"
                                    + std::string(1, "0123456789abcdef"[c >> 4])
                                    + "0123456789abcdef"[c & 15] + ")",
                                message);
            if (c == '\\') {
                if (i + 1 >= n)
                    break;
                const char e = m_s[i + 1];
                if (e == 'u') {
                    unsigned cp = 0;
                    if (!hex4(i + 2, cp))
                        return !problem(i, "invalid \\u escape (it needs 4 hex digits)", message);
                    if (cp >= 0xD800 && cp <= 0xDBFF) {
                        unsigned lo = 0;
                        if (i + 7 < n && m_s[i + 6] == '\\' && m_s[i + 7] == 'u' && hex4(i + 8, lo)
                            && lo >= 0xDC00 && lo <= 0xDFFF) {
                            i += 12;
                            continue;
                        }
                        return !problem(i,
                                        "invalid \\u escape (a high surrogate without its "
                                        "low surrogate)",
                                        message);
                    }
                    if (cp >= 0xDC00 && cp <= 0xDFFF)
                        return !problem(i, "invalid \\u escape (a lone low surrogate)", message);
                    i += 6;
                    continue;
                }
                if (std::string_view("\"\\/bfnrt").find(e) == std::string_view::npos)
                    return !problem(i,
                                    "invalid escape " + shown(m_s.substr(i, 2))
                                        + " (valid: \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)",
                                    message);
                i += 2;
                continue;
            }
            if (c >= 0x80) {
                const std::size_t len = utf8SequenceLength(p + i, n - i);
                if (len == 0)
                    return !problem(i, "invalid UTF-8 in a string", message);
                i += len;
                continue;
            }
            ++i;
        }
        return !problem(open, "unclosed string", message);
    }
    bool hex4(std::size_t i, unsigned &cp) const
    {
        if (i + 4 > m_s.size())
            return false;
        cp = 0;
        for (std::size_t k = 0; k < 4; ++k) {
            const char c = m_s[i + k];
            unsigned d;
            if (c >= '0' && c <= '9')
                d = static_cast<unsigned>(c - '0');
            else if (c >= 'a' && c <= 'f')
                d = static_cast<unsigned>(c - 'a' + 10);
            else if (c >= 'A' && c <= 'F')
                d = static_cast<unsigned>(c - 'A' + 10);
            else
                return false;
            cp = cp * 16 + d;
        }
        return true;
    }

    std::string_view m_s;
    bool m_numbersOnly;
};

} // namespace

bool findJsonProblem(std::string_view text, std::string &message)
{
    return JsonProblemFinder(text, false).find(message);
}

namespace detail {

bool findJsonProblem(std::string_view text, bool numbersOnly, std::string &message)
{
    return JsonProblemFinder(text, numbersOnly).find(message);
}

} // namespace detail

} // namespace tideline
