#include <tideline/engine/record_json.hpp>

#include <simdjson.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <deque>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace tideline {

// The DOM API dispatches at run time to the best kernel of the CPU (haswell, icelake, ...),
// so the binary stays portable to any x86-64; the on-demand API would be fixed at compile time.
namespace dom = simdjson::dom;

namespace {

constexpr int kFastMaxDepth = 16; // deeper lines go to simdjson (which enforces the limit)

/// The fast path's per-parser state: field names already seen, as (parent, key) -> interned
/// full path, and name buffers reused from line to line.
struct FastNames
{
    struct Slot
    {
        const char *parent = nullptr; ///< interned parent path or kRootParent; null = empty
        std::uint32_t keyLen = 0;
        char key[28] = {};
        StaticPath full{std::string_view()};
        std::uint32_t seen = 0; ///< the line (FastNames::line) that last used this key
    };
    static constexpr std::size_t kSlots = 512; // power of two
    static constexpr std::size_t kMaxUsed = 384;
    std::array<Slot, kSlots> slots{};
    std::size_t used = 0;
    std::array<std::string, kFastMaxDepth> built;   ///< names not interned, per depth
    std::array<std::string, kFastMaxDepth> parents; ///< a not-interned object path, per depth
    /// Stamp of the line being parsed: a key whose slot already carries it is a duplicate.
    std::uint32_t line = 0;
    /// Full names of the keys of this line that are not in the cache ('\n'-terminated; the
    /// fast path's names never contain a newline), checked for duplicates at the end.
    std::string uncached;
    std::size_t uncachedCount = 0;
    std::vector<std::string_view> sorted;

    void newLine()
    {
        if (++line == 0) { // wrapped: forget every stamp
            for (auto &s : slots)
                s.seen = 0;
            line = 1;
        }
        uncached.clear();
        uncachedCount = 0;
    }
    /// Whether two keys of the line that are not cached have the same full name.
    bool uncachedDuplicates()
    {
        if (uncachedCount < 2)
            return false;
        sorted.clear();
        std::size_t pos = 0;
        while (pos < uncached.size()) {
            std::size_t end = uncached.find('\n', pos);
            sorted.emplace_back(uncached.data() + pos, end - pos);
            pos = end + 1;
        }
        std::sort(sorted.begin(), sorted.end());
        return std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end();
    }
};

/// The simdjson path: fields of one object level, gathered to apply the duplicate-key rule.
struct SlowLevel
{
    std::vector<std::pair<std::string_view, dom::element>> fields;
};

} // namespace

struct RecordParser::Impl
{
    explicit Impl(std::size_t maxBytes)
        : parser(maxBytes + 64)
    {
    }
    // Note: simdjson 3.0.1's set_max_capacity() clamps to 32 bytes (inverted test), so the
    // capacity limit is only ever given through the constructor.
    dom::parser parser;
    std::string padded;           ///< the line plus SIMDJSON_PADDING, reused across records
    std::string prefix;           ///< dotted path being built while descending
    std::deque<SlowLevel> levels; ///< per depth: the fields of the object being read

    FastNames fast; ///< name cache and buffers of the fast path (see FastParser)
};

RecordParser::RecordParser(RecordLimits limits)
    : m_impl(std::make_unique<Impl>(limits.maxBytes))
    , m_limits(limits)
{
    // Bound the parser's depth up front: a 100,000-deep line fails with DEPTH_ERROR inside
    // simdjson instead of reaching any recursive code of ours.
    if (m_impl->parser.allocate(64 * 1024, static_cast<std::size_t>(limits.maxDepth)))
        throw std::bad_alloc();
}

RecordParser::~RecordParser() = default;

namespace {

const char *describe(simdjson::error_code e)
{
    switch (e) {
    case simdjson::DEPTH_ERROR:
        return "nested too deeply";
    case simdjson::INCORRECT_TYPE:
        return "not a JSON object";
    case simdjson::TAPE_ERROR:
        return "malformed JSON";
    case simdjson::UNCLOSED_STRING:
        return "malformed JSON (unclosed string)";
    case simdjson::UTF8_ERROR:
        return "invalid UTF-8";
    case simdjson::EMPTY:
        return "empty line";
    case simdjson::NUMBER_ERROR:
        return "malformed number";
    default:
        return simdjson::error_message(e);
    }
}

struct SlowState
{
    std::string &prefix;
    std::deque<SlowLevel> &levels; // a deque: growing it keeps references to levels valid
    std::string scratch;
    bool checkNumbers = false; ///< a 0.0 or an array was read: look for underflowed literals
};

void parseElement(dom::element v, SlowState &st, Record &out, std::size_t depth);

/// Whether fields[i]'s key already appeared before i (small objects: a scan; large: a set).
void findDuplicates(const std::vector<std::pair<std::string_view, dom::element>> &fields,
                    std::vector<std::uint32_t> &lastOf,
                    bool &any)
{
    const std::size_t m = fields.size();
    any = false;
    if (m < 2)
        return;
    if (m <= 32) {
        for (std::size_t i = 1; i < m && !any; ++i)
            for (std::size_t j = 0; j < i; ++j)
                if (fields[i].first == fields[j].first) {
                    any = true;
                    break;
                }
    } else {
        std::unordered_set<std::string_view> seen;
        seen.reserve(m);
        for (const auto &f : fields)
            if (!seen.insert(f.first).second) {
                any = true;
                break;
            }
    }
    if (!any)
        return;
    // lastOf[i]: for the first occurrence of a key, the index of its last occurrence; for a
    // later occurrence, UINT32_MAX (skipped).
    lastOf.assign(m, 0);
    std::unordered_map<std::string_view, std::uint32_t> first;
    first.reserve(m);
    for (std::size_t i = 0; i < m; ++i) {
        auto [it, fresh] = first.emplace(fields[i].first, static_cast<std::uint32_t>(i));
        if (fresh) {
            lastOf[i] = static_cast<std::uint32_t>(i);
        } else {
            lastOf[it->second] = static_cast<std::uint32_t>(i);
            lastOf[i] = UINT32_MAX;
        }
    }
}

void parseObject(dom::object obj, SlowState &st, Record &out, std::size_t depth)
{
    if (st.levels.size() <= depth)
        st.levels.resize(depth + 1);
    auto &fields = st.levels[depth].fields;
    fields.clear();
    for (auto field : obj)
        fields.emplace_back(field.key, field.value);
    std::string &prefix = st.prefix;
    const std::size_t base = prefix.size();
    if (fields.empty()) {
        if (depth > 0) // a nested `{}` is kept as raw `{}`
            out.append(prefix, Value::raw("{}"));
        return;
    }
    // Duplicate keys: the last value wins, at the place of the first (as JavaScript's
    // JSON.parse and Python's json do).
    bool dup = false;
    std::vector<std::uint32_t> lastOf;
    findDuplicates(fields, lastOf, dup);
    for (std::size_t i = 0; i < fields.size(); ++i) {
        std::size_t take = i;
        if (dup) {
            if (lastOf[i] == UINT32_MAX)
                continue;
            take = lastOf[i];
        }
        prefix.resize(base);
        if (depth > 0)
            prefix += '.';
        fieldpath::appendKey(prefix, fields[i].first);
        parseElement(fields[take].second, st, out, depth + 1);
    }
    prefix.resize(base);
}

void parseElement(dom::element v, SlowState &st, Record &out, std::size_t depth)
{
    switch (v.type()) {
    case dom::element_type::OBJECT:
        parseObject(dom::object(v), st, out, depth);
        return;
    case dom::element_type::ARRAY: {
        // Arrays are kept as compact JSON text; rare in events, so minify's allocation is fine.
        // (Objects inside arrays are not rewritten: their keys stay as they came.)
        std::string text = simdjson::minify(v);
        if (text.find("0.0") != std::string::npos)
            st.checkNumbers = true; // minify writes a double read as 0 (1e-400) as 0.0
        out.append(st.prefix, Value::raw(text));
        return;
    }
    case dom::element_type::INT64:
        out.append(st.prefix, Value::integer(int64_t(v)));
        return;
    case dom::element_type::UINT64: {
        // Beyond int64 (2^63 ... 2^64-1): kept as its exact digits, a raw JSON number, so it
        // is written back as it came instead of as a rounded double.
        char buf[24];
        auto r = std::to_chars(buf, buf + sizeof buf, uint64_t(v));
        out.append(st.prefix,
                   Value::raw(std::string_view(buf, static_cast<std::size_t>(r.ptr - buf))));
        return;
    }
    case dom::element_type::DOUBLE: {
        const double d = double(v);
        if (d == 0)
            st.checkNumbers = true; // 0.0, or a literal too small for a double (1e-400)?
        out.append(st.prefix, Value::number(d));
        return;
    }
    case dom::element_type::STRING:
        out.append(st.prefix, Value::string(std::string_view(v)));
        return;
    case dom::element_type::BOOL:
        out.append(st.prefix, Value::boolean(bool(v)));
        return;
    case dom::element_type::NULL_VALUE:
        out.append(st.prefix, Value::null());
        return;
    }
}

} // namespace

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

NumberCheck checkJsonNumber(std::string_view s)
{
    // Grammar (RFC 8259): -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
    NumberCheck r;
    std::size_t i = 0;
    const std::size_t n = s.size();
    auto digit = [&](std::size_t k) {
        return k < n && s[k] >= '0' && s[k] <= '9';
    };
    const bool neg = i < n && s[i] == '-';
    if (neg)
        ++i;
    if (!digit(i)) {
        r.kind = NumberCheck::Malformed;
        r.why = "a digit is missing";
        r.length = i;
        return r;
    }
    const std::size_t intStart = i;
    if (s[i] == '0') {
        ++i;
        if (digit(i)) {
            r.kind = NumberCheck::Malformed;
            r.why = "leading zeros are not JSON";
            r.length = i;
            return r;
        }
    } else {
        while (digit(i))
            ++i;
    }
    const std::size_t intEnd = i;
    std::size_t fracStart = i, fracEnd = i;
    bool isInteger = true;
    if (i < n && s[i] == '.') {
        isInteger = false;
        ++i;
        if (!digit(i)) {
            r.kind = NumberCheck::Malformed;
            r.why = "digits are missing after '.'";
            r.length = i;
            return r;
        }
        fracStart = i;
        while (digit(i))
            ++i;
        fracEnd = i;
    }
    long long exp10 = 0;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        isInteger = false;
        ++i;
        bool eneg = false;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            eneg = s[i++] == '-';
        if (!digit(i)) {
            r.kind = NumberCheck::Malformed;
            r.why = "the exponent has no digits";
            r.length = i;
            return r;
        }
        while (digit(i)) {
            if (exp10 < 1'000'000'000)
                exp10 = exp10 * 10 + (s[i] - '0');
            ++i;
        }
        if (eneg)
            exp10 = -exp10;
    }
    r.length = i;
    r.isInteger = isInteger;
    const std::string_view text = s.substr(0, i);
    if (isInteger) {
        std::int64_t v;
        auto a = std::from_chars(text.data(), text.data() + text.size(), v);
        if (a.ec == std::errc() && a.ptr == text.data() + text.size())
            return r; // Ok, an int64
        std::uint64_t u;
        auto b = std::from_chars(text.data(), text.data() + text.size(), u);
        if (!neg && b.ec == std::errc() && b.ptr == text.data() + text.size()) {
            r.kind = NumberCheck::Unsigned;
            return r;
        }
        r.kind = NumberCheck::OutOfRange;
        r.why = "is an integer beyond 64 bits (from -9223372036854775808 to "
                "18446744073709551615)";
        return r;
    }
    double d;
    auto a = std::from_chars(text.data(), text.data() + text.size(), d);
    if (a.ec == std::errc())
        return r;
    // Out of range: too large or too small? The magnitude is where the first significant digit
    // sits, shifted by the exponent.
    long long mag = 0;
    std::size_t k = intStart;
    while (k < intEnd && s[k] == '0')
        ++k;
    if (k < intEnd) {
        mag = static_cast<long long>(intEnd - k);
    } else {
        std::size_t z = fracStart;
        while (z < fracEnd && s[z] == '0')
            ++z;
        if (z == fracEnd)
            return r; // all zeros: exactly 0 (from_chars never fails on that, but be safe)
        mag = -static_cast<long long>(z - fracStart);
    }
    mag += exp10;
    r.kind = NumberCheck::OutOfRange;
    r.why = mag > 0 ? "is too large for a double (beyond 1.8e308)"
                    : "is too small for a double (it would read as 0)";
    return r;
}

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

// --- Fast path -------------------------------------------------------------------------------
//
// Most event lines are flat-ish objects of plain ASCII strings, small integers, booleans and
// nulls. For those, one pass over the line builds the record directly, in place (no padded
// copy, no tape), with field names taken from a per-parser cache of interned paths instead of
// being built and copied per field. The fast path *accepts* only that strict subset and checks
// it completely; anything else (escapes, non-ASCII bytes, decimals, big numbers, arrays, deep
// nesting, any syntax error) makes it give up, and the line is parsed by simdjson exactly as
// before, so results and error messages are unchanged.

namespace {

const char kRootParent[1] = {0}; // parent token of top-level keys
constexpr std::size_t kMaxInternedNames = 1u << 16;
constexpr std::size_t kMaxInternedBytes = 4u << 20;

/// Interns a field path read from data, process-wide, for as long as the table is under its
/// cap (so data with unbounded keys cannot grow memory forever; past the cap names are copied
/// into each record, as the simdjson path does). Returns an empty view when full.
std::string_view internDataName(std::string_view name)
{
    static std::mutex mutex;
    static auto *set = new std::unordered_set<std::string>; // never freed: records point here
    static std::size_t bytes = 0;
    std::lock_guard<std::mutex> lock(mutex);
    std::string key(name);
    if (auto it = set->find(key); it != set->end())
        return *it;
    if (set->size() >= kMaxInternedNames || bytes + name.size() > kMaxInternedBytes)
        return {};
    bytes += name.size();
    return *set->insert(std::move(key)).first;
}

/// memcmp(a, b, n) == 0 for keys of at most 28 bytes, inline (overlapping loads, no call).
inline bool sameKey(const char *a, const char *b, std::size_t n)
{
    auto load8 = [](const char *p) {
        std::uint64_t w;
        std::memcpy(&w, p, sizeof w);
        return w;
    };
    if (n < 8) {
        if (n >= 4) {
            std::uint32_t x, y, u, v;
            std::memcpy(&x, a, 4);
            std::memcpy(&y, b, 4);
            std::memcpy(&u, a + n - 4, 4);
            std::memcpy(&v, b + n - 4, 4);
            return x == y && u == v;
        }
        for (std::size_t i = 0; i < n; ++i)
            if (a[i] != b[i])
                return false;
        return true;
    }
    for (std::size_t i = 0; i + 8 < n; i += 8)
        if (load8(a + i) != load8(b + i))
            return false;
    return load8(a + n - 8) == load8(b + n - 8);
}

/// Whether the 8 bytes of w (little-endian) are all ASCII digits.
inline bool eightDigits(std::uint64_t w)
{
    return ((w & 0xF0F0F0F0F0F0F0F0ULL)
            | (((w + 0x0606060606060606ULL) & 0xF0F0F0F0F0F0F0F0ULL) >> 4))
           == 0x3333333333333333ULL;
}

/// The value of 8 ASCII digits (first digit in the lowest byte).
inline std::uint64_t parseEightDigits(std::uint64_t w)
{
    const std::uint64_t mask = 0x000000FF000000FFULL;
    const std::uint64_t mul1 = 100 + (1000000ULL << 32);
    const std::uint64_t mul2 = 1 + (10000ULL << 32);
    w -= 0x3030303030303030ULL;
    w = (w * 10) + (w >> 8);
    return (((w & mask) * mul1) + (((w >> 16) & mask) * mul2)) >> 32;
}

inline const char *skipWs(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
        ++p;
    return p;
}

/// p is just after an opening quote: the closing quote of a plain string (printable ASCII, no
/// backslash), or null when the string is anything else or unterminated. Never reads past end.
inline const char *plainStringEnd(const char *p, const char *end)
{
#ifdef __SSE2__
    const __m128i quote = _mm_set1_epi8('"');
    const __m128i backslash = _mm_set1_epi8('\\');
    const __m128i space = _mm_set1_epi8(0x20);
    while (end - p >= 16) {
        __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p));
        // Signed compare: bytes >= 0x80 are negative, so "< 0x20" also flags non-ASCII.
        __m128i m
            = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, backslash)),
                           _mm_cmplt_epi8(x, space));
        int mask = _mm_movemask_epi8(m);
        if (mask) {
            const char *q = p + __builtin_ctz(static_cast<unsigned>(mask));
            return *q == '"' ? q : nullptr;
        }
        p += 16;
    }
#endif
    for (; p < end; ++p) {
        auto c = static_cast<unsigned char>(*p);
        if (c == '"')
            return p;
        if (c == '\\' || c < 0x20 || c >= 0x80)
            return nullptr;
    }
    return nullptr;
}

class FastParser
{
public:
    FastParser(FastNames &names, Record &out)
        : m_names(names)
        , m_out(out)
    {
    }

    bool parse(const char *p, const char *end)
    {
        m_end = end;
        m_names.newLine();
        p = skipWs(p, end);
        if (p >= end || *p != '{')
            return false;
        ++p;
        if (!object(p, kRootParent, std::string_view(), 0))
            return false;
        return skipWs(p, end) == end && !m_names.uncachedDuplicates();
    }

private:
    /// The full path of key under parent: interned (static, 1) when possible, else built in
    /// `built` (0). parent null means "not interned", parentName its bytes. -1: the key is not
    /// for the fast path (empty, contains '.' or '`', which paths quote; or a duplicate).
    int resolveName(const char *parent,
                    std::string_view parentName,
                    std::string_view key,
                    std::string &built,
                    std::string_view &name)
    {
        using Impl = FastNames;
        std::size_t h = 0;
        Impl::Slot *slot = nullptr;
        if (parent && key.size() <= sizeof(Impl::Slot::key) && !key.empty()) {
            h = (reinterpret_cast<std::uintptr_t>(parent) >> 3) * 0x9e3779b97f4a7c15ULL;
            h ^= (key.size() << 16) | (static_cast<unsigned char>(key.front()) << 8)
                 | static_cast<unsigned char>(key.back());
            h = (h * 0xff51afd7ed558ccdULL) >> 40;
            for (std::size_t i = 0; i < Impl::kSlots; ++i) {
                Impl::Slot &s = m_names.slots[(h + i) & (Impl::kSlots - 1)];
                if (!s.parent) {
                    slot = &s;
                    break;
                }
                if (s.parent == parent && s.keyLen == key.size()
                    && sameKey(s.key, key.data(), key.size())) {
                    if (s.seen == m_names.line)
                        return -1; // the same key twice in one object: the slow path decides
                    s.seen = m_names.line;
                    name = s.full.s;
                    return 1;
                }
            }
        }
        if (key.empty() || std::memchr(key.data(), '.', key.size())
            || std::memchr(key.data(), '`', key.size()))
            return -1;
        built.clear();
        if (!parentName.empty()) {
            built.append(parentName);
            built += '.';
        }
        built.append(key);
        if (parent && slot && m_names.used < Impl::kMaxUsed) {
            std::string_view interned = internDataName(built);
            if (!interned.empty()) {
                slot->parent = parent;
                slot->keyLen = static_cast<std::uint32_t>(key.size());
                std::memcpy(slot->key, key.data(), key.size());
                slot->full = StaticPath(interned);
                slot->seen = m_names.line;
                ++m_names.used;
                name = interned;
                return 1;
            }
        }
        m_names.uncached.append(built);
        m_names.uncached += '\n';
        ++m_names.uncachedCount;
        name = built;
        return 0;
    }

    [[gnu::always_inline]] void add(std::string_view name, bool isStatic, const Value &v)
    {
        if (isStatic)
            m_out.append(StaticPath(name), v);
        else
            m_out.append(name, v);
    }

    /// p is just after '{'; on success p is just after the matching '}'.
    bool object(const char *&p, const char *parent, std::string_view parentName, int depth)
    {
        const char *end = m_end;
        p = skipWs(p, end);
        if (p < end && *p == '}') {
            ++p;
            if (!parentName.empty()) // a nested `{}` is kept as raw `{}` (as parseObject does)
                add(parentName, parent != nullptr, Value::raw("{}"));
            return true;
        }
        // Names of this level that are not interned are built here (one buffer per depth).
        std::string &built = m_names.built[static_cast<std::size_t>(depth)];
        while (true) {
            if (p >= end || *p != '"')
                return false;
            const char *ks = ++p;
            const char *ke = plainStringEnd(p, end);
            if (!ke)
                return false;
            p = skipWs(ke + 1, end);
            if (p >= end || *p != ':')
                return false;
            p = skipWs(p + 1, end);
            if (p >= end)
                return false;
            std::string_view name;
            const int resolved
                = resolveName(parent, parentName,
                              std::string_view(ks, static_cast<std::size_t>(ke - ks)), built, name);
            if (resolved < 0)
                return false;
            const bool isStatic = resolved > 0;
            const char c = *p;
            if (c == '"') {
                const char *vs = ++p;
                const char *ve = plainStringEnd(p, end);
                if (!ve)
                    return false;
                p = ve + 1;
                add(name, isStatic,
                    Value::string(std::string_view(vs, static_cast<std::size_t>(ve - vs))));
            } else if (c == '-' || (c >= '0' && c <= '9')) {
                if (!integer(p, name, isStatic))
                    return false;
            } else if (c == '{') {
                if (depth + 1 >= kFastMaxDepth)
                    return false;
                ++p;
                if (isStatic) {
                    if (!object(p, name.data(), name, depth + 1))
                        return false;
                } else {
                    // Children need the path's bytes after `built` is reused at this depth.
                    std::string &own = m_names.parents[static_cast<std::size_t>(depth)];
                    own.assign(name);
                    if (!object(p, nullptr, own, depth + 1))
                        return false;
                }
            } else if (c == 't' && end - p >= 4 && std::memcmp(p, "true", 4) == 0) {
                p += 4;
                add(name, isStatic, Value::boolean(true));
            } else if (c == 'f' && end - p >= 5 && std::memcmp(p, "false", 5) == 0) {
                p += 5;
                add(name, isStatic, Value::boolean(false));
            } else if (c == 'n' && end - p >= 4 && std::memcmp(p, "null", 4) == 0) {
                p += 4;
                add(name, isStatic, Value::null());
            } else {
                return false;
            }
            p = skipWs(p, end);
            if (p >= end)
                return false;
            if (*p == ',') {
                p = skipWs(p + 1, end);
                continue;
            }
            if (*p == '}') {
                ++p;
                return true;
            }
            return false;
        }
    }

    /// An integer of at most 18 digits (always an int64 for simdjson too); anything else
    /// (decimals, exponents, -0, leading zeros, longer numbers) is left to simdjson.
    bool integer(const char *&p, std::string_view name, bool isStatic)
    {
        const char *end = m_end;
        bool neg = *p == '-';
        if (neg)
            ++p;
        const char *ds = p;
        std::uint64_t v = 0;
        // Eight digits at a time (SWAR) while they last: timestamps have 13.
        while (end - p >= 8 && p - ds <= 8) {
            std::uint64_t w;
            std::memcpy(&w, p, sizeof w);
            if (!eightDigits(w))
                break;
            v = v * 100000000ULL + parseEightDigits(w);
            p += 8;
        }
        while (p < end && *p >= '0' && *p <= '9' && p - ds < 19) {
            v = v * 10 + static_cast<std::uint64_t>(*p - '0');
            ++p;
        }
        const std::ptrdiff_t digits = p - ds;
        if (digits == 0 || digits > 18 || (digits > 1 && *ds == '0') || (neg && v == 0))
            return false;
        if (p < end && (*p == '.' || *p == 'e' || *p == 'E' || (*p >= '0' && *p <= '9')))
            return false;
        const auto iv = static_cast<std::int64_t>(v); // at most 18 digits: fits
        add(name, isStatic, Value::integer(neg ? -iv : iv));
        return true;
    }

    FastNames &m_names;
    Record &m_out;
    const char *m_end = nullptr;
};

} // namespace

bool RecordParser::parse(std::string_view json, Record &out, std::string &error)
{
    out.clear();
    if (json.size() > m_limits.maxBytes) {
        error = "record too large: " + std::to_string(json.size()) + " bytes (limit "
                + std::to_string(m_limits.maxBytes) + ")";
        return false;
    }
    if (m_limits.fastPath) {
        out.reserve(16, json.size()); // strings and names fit: no arena growth mid-line
        FastParser fast(m_impl->fast, out);
        if (fast.parse(json.data(), json.data() + json.size()))
            return true;
        out.clear(); // not in the fast subset (or malformed): simdjson decides
    }
    auto &buf = m_impl->padded;
    buf.assign(json);
    buf.append(simdjson::SIMDJSON_PADDING, '\0');
    dom::element root;
    auto e = m_impl->parser.parse(buf.data(), json.size(), false).get(root);
    if (!e && root.type() != dom::element_type::OBJECT)
        e = simdjson::INCORRECT_TYPE;
    if (e) {
        // simdjson's own words ("Problem while parsing an atom starting with the letter 't'")
        // name neither the problem nor the place: find both.
        if (e == simdjson::DEPTH_ERROR || !JsonProblemFinder(json, false).find(error))
            error = describe(e);
        return false;
    }
    m_impl->prefix.clear();
    SlowState st{m_impl->prefix, m_impl->levels, {}, false};
    parseObject(dom::object(root), st, out, 0);
    if (st.checkNumbers && JsonProblemFinder(json, true).find(error)) {
        out.clear();
        return false;
    }
    return true;
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

namespace {

/// A path segment as a JSON key: a quoted segment (`service.name`) is written as its key.
void appendJsonKey(std::string_view segment, std::string &out)
{
    if (segment.empty() || segment.front() != '`') [[likely]] {
        appendJsonString(segment, out);
        return;
    }
    thread_local std::string key;
    key.clear();
    fieldpath::appendUnquoted(key, segment);
    appendJsonString(key, out);
}

/// fieldpath::segmentEnd with the common case (a plain segment) inline.
inline std::size_t segmentEnd(std::string_view name, std::size_t pos)
{
    if (pos < name.size() && name[pos] == '`') [[unlikely]]
        return fieldpath::segmentEnd(name, pos);
    const std::size_t dot = name.find('.', pos);
    return dot == std::string_view::npos ? name.size() : dot;
}

} // namespace

void appendJsonValue(const Value &v, std::string &out)
{
    char buf[32];
    switch (v.type) {
    case ValueType::Null:
        out += "null";
        break;
    case ValueType::Bool:
        out += v.b ? "true" : "false";
        break;
    case ValueType::Int: {
        auto r = std::to_chars(buf, buf + sizeof buf, v.i);
        out.append(buf, r.ptr);
        break;
    }
    case ValueType::Double: {
        if (!std::isfinite(v.d)) {
            out += "null";
            break;
        }
        auto r = std::to_chars(buf, buf + sizeof buf, v.d);
        std::string_view s(buf, static_cast<std::size_t>(r.ptr - buf));
        out += s;
        // Keep doubles recognisable as such on re-reading (2.0 stays a decimal).
        if (s.find_first_of(".eE") == std::string_view::npos)
            out += ".0";
        break;
    }
    case ValueType::String:
        appendJsonString(v.s, out);
        break;
    case ValueType::Raw:
        out += v.s;
        break;
    }
}

void appendJson(const Record &record, std::string &out)
{
    // Re-nest dotted paths: `open` holds the object path currently open (segments).
    std::string_view open[64];
    int depth = 0;
    bool first[65];
    first[0] = true;
    out += '{';
    for (std::size_t f = 0; f < record.size(); ++f) {
        std::string_view name = record.nameAt(f);
        std::string_view segs[64];
        int n = 0;
        std::size_t start = 0;
        while (n < 63) {
            const std::size_t end = segmentEnd(name, start);
            if (end >= name.size())
                break;
            segs[n++] = name.substr(start, end - start);
            start = end + 1;
        }
        segs[n] = name.substr(start); // leaf (an over-deep rest stays one dotted key)
        int common = 0;
        while (common < depth && common < n && open[common] == segs[common])
            ++common;
        while (depth > common) {
            out += '}';
            --depth;
        }
        while (depth < n) {
            if (!first[depth])
                out += ',';
            first[depth] = false;
            appendJsonKey(segs[depth], out);
            out += ":{";
            open[depth] = segs[depth];
            ++depth;
            first[depth] = true;
        }
        if (!first[depth])
            out += ',';
        first[depth] = false;
        appendJsonKey(segs[n], out);
        out += ':';
        appendJsonValue(record.valueAt(f), out);
    }
    while (depth > 0) {
        out += '}';
        --depth;
    }
    out += '}';
}

std::string toJson(const Record &record)
{
    std::string s;
    appendJson(record, s);
    return s;
}

// --- CSV ---

bool CsvReader::split(std::string_view line, std::vector<std::string> &cells, std::string &error)
{
    cells.clear();
    if (!line.empty() && line.back() == '\r')
        line.remove_suffix(1);
    std::string cell;
    std::size_t i = 0;
    while (true) {
        cell.clear();
        if (i < line.size() && line[i] == '"') {
            ++i;
            while (true) {
                if (i >= line.size()) {
                    error = "unclosed quote";
                    return false;
                }
                if (line[i] == '"') {
                    if (i + 1 < line.size() && line[i + 1] == '"') {
                        cell += '"';
                        i += 2;
                        continue;
                    }
                    ++i;
                    break;
                }
                cell += line[i++];
            }
            if (i < line.size() && line[i] != ',') {
                error = "text after closing quote";
                return false;
            }
        } else {
            std::size_t comma = line.find(',', i);
            std::size_t end = comma == std::string_view::npos ? line.size() : comma;
            cell.assign(line.substr(i, end - i));
            i = end;
        }
        cells.push_back(cell);
        if (i >= line.size())
            break;
        ++i; // skip comma
        if (i == line.size()) {
            cells.emplace_back();
            break;
        }
    }
    return true;
}

void CsvReader::QuoteScan::feed(std::string_view text)
{
    for (char c : text) {
        if (pendingQuote) {
            pendingQuote = false;
            if (c == '"')
                continue;     // a doubled quote inside the quoted cell
            inQuotes = false; // that quote closed the cell
        }
        if (inQuotes) {
            if (c == '"')
                pendingQuote = true;
            continue;
        }
        if (c == '"' && cellStart)
            inQuotes = true;
        cellStart = c == ',';
    }
}

bool CsvReader::QuoteScan::open() const
{
    return inQuotes && !pendingQuote;
}

namespace {

constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

bool checkUtf8(std::string_view line, std::string &error)
{
    const std::size_t bad = invalidUtf8At(line);
    if (bad == std::string_view::npos)
        return true;
    error = "invalid UTF-8 at byte " + std::to_string(bad + 1) + " of the line";
    return false;
}

} // namespace

bool CsvReader::setHeader(std::string_view line, std::string &error)
{
    if (line.substr(0, kUtf8Bom.size()) == kUtf8Bom)
        line.remove_prefix(kUtf8Bom.size()); // a byte order mark is not part of the first name
    if (!checkUtf8(line, error))
        return false;
    if (!split(line, m_columns, error))
        return false;
    if (m_columns.empty() || (m_columns.size() == 1 && m_columns[0].empty())) {
        error = "empty header line";
        return false;
    }
    // Each header cell is one key (a header `service.name` is the key "service.name", not a
    // nested field): as record names they are quoted where a path needs it.
    for (auto &c : m_columns)
        if (fieldpath::needsQuotes(c))
            c = fieldpath::quoteKey(c);
    std::vector<std::string_view> sorted(m_columns.begin(), m_columns.end());
    std::sort(sorted.begin(), sorted.end());
    m_duplicateColumns = std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end();
    return true;
}

namespace {

/// Significant digits and decimal exponent of a JSON number's text, for comparing numbers
/// written differently (1.50 and 1.5, 1e3 and 1000.0): value = 0.digits x 10^exp.
struct Decimal
{
    bool neg = false;
    std::string digits; ///< no leading or trailing zeros ("" for zero)
    long long exp = 0;
};

Decimal decimalOf(std::string_view s)
{
    Decimal d;
    std::size_t i = 0;
    if (i < s.size() && s[i] == '-') {
        d.neg = true;
        ++i;
    }
    long long pointAt = -1; // digits before the point
    long long count = 0;
    for (; i < s.size() && s[i] != 'e' && s[i] != 'E'; ++i) {
        if (s[i] == '.') {
            pointAt = count;
            continue;
        }
        d.digits += s[i];
        ++count;
    }
    if (pointAt < 0)
        pointAt = count;
    long long e = 0;
    if (i + 1 < s.size()) {
        const char *from = s.data() + i + 1;
        if (*from == '+')
            ++from;
        std::from_chars(from, s.data() + s.size(), e); // the caller checked the grammar
    }
    std::size_t lead = 0;
    while (lead < d.digits.size() && d.digits[lead] == '0')
        ++lead;
    d.digits.erase(0, lead);
    while (!d.digits.empty() && d.digits.back() == '0')
        d.digits.pop_back();
    d.exp = pointAt - static_cast<long long>(lead) + e;
    if (d.digits.empty())
        d.exp = 0;
    return d;
}

} // namespace

Value inferValue(std::string_view text)
{
    if (text.empty())
        return Value::null();
    if (text == "true")
        return Value::boolean(true);
    if (text == "false")
        return Value::boolean(false);
    const char c = text.front();
    if (c != '-' && (c < '0' || c > '9'))
        return Value::string(text);
    // A number only when it is JSON's spelling of one and keeps its value and digits: 02134,
    // 007, +5, .5, -0, 1e400 and ids of 20 digits stay strings (a zip code is not a number).
    const NumberCheck nc = checkJsonNumber(text);
    if (nc.length != text.size() || text == "-0")
        return Value::string(text);
    if (nc.kind == NumberCheck::Unsigned)
        return Value::raw(text); // 2^63 ... 2^64-1: exact digits, written back as they came
    if (nc.kind != NumberCheck::Ok)
        return Value::string(text);
    if (nc.isInteger) {
        std::int64_t i = 0;
        std::from_chars(text.data(), text.data() + text.size(), i);
        return Value::integer(i);
    }
    double d = 0;
    std::from_chars(text.data(), text.data() + text.size(), d);
    // Up to 15 digits and no exponent: a double keeps them all (DBL_DIG), nothing to compare.
    if (text.size() <= 17 && text.find_first_of("eE") == std::string_view::npos) {
        std::size_t digits = 0;
        for (char ch : text)
            digits += ch >= '0' && ch <= '9';
        if (digits <= 15)
            return Value::number(d);
    }
    char buf[32];
    auto r = std::to_chars(buf, buf + sizeof buf, d);
    const Decimal a = decimalOf(text);
    const Decimal b = decimalOf(std::string_view(buf, static_cast<std::size_t>(r.ptr - buf)));
    if (a.digits != b.digits || a.exp != b.exp || (a.neg != b.neg && !a.digits.empty()))
        return Value::string(text); // more digits than a double keeps
    return Value::number(d);
}

bool CsvReader::parse(std::string_view line, Record &out, std::string &error) const
{
    thread_local std::vector<std::string> cells;
    out.clear();
    if (!checkUtf8(line, error))
        return false;
    if (!split(line, cells, error))
        return false;
    if (cells.size() != m_columns.size()) {
        error = "expected " + std::to_string(m_columns.size()) + " cells, found "
                + std::to_string(cells.size());
        return false;
    }
    // Names are single keys, so they never nest into each other: append, unless the header
    // repeats a name (then the last cell wins, at the place of the first, as with JSON keys).
    for (std::size_t c = 0; c < cells.size(); ++c) {
        if (m_duplicateColumns)
            out.set(m_columns[c], inferValue(cells[c]));
        else
            out.append(m_columns[c], inferValue(cells[c]));
    }
    return true;
}

static void appendCsvCell(std::string_view s, std::string &out, bool quote = false)
{
    if (!quote && s.find_first_of(",\"\n\r") == std::string_view::npos) {
        out += s;
        return;
    }
    out += '"';
    for (char c : s) {
        if (c == '"')
            out += '"';
        out += c;
    }
    out += '"';
}

void appendCsvHeader(const std::vector<std::string> &columns, std::string &out)
{
    std::string key;
    for (std::size_t i = 0; i < columns.size(); ++i) {
        if (i)
            out += ',';
        // A top-level key is written as itself (`service.name` as service.name, as the CSV
        // reader reads it back); a nested field as its path (user.id).
        const std::string &c = columns[i];
        std::string_view cell = c;
        if (!c.empty() && c.front() == '`' && fieldpath::segmentEnd(c, 0) == c.size()) {
            key.clear();
            fieldpath::appendUnquoted(key, c);
            cell = key;
        }
        // A first name that starts with U+FEFF is quoted, or it would read as a byte order mark;
        // a single blank name too, or the header would be a blank line.
        appendCsvCell(cell, out,
                      (i == 0 && cell.substr(0, kUtf8Bom.size()) == kUtf8Bom)
                          || (columns.size() == 1
                              && cell.find_first_not_of(" \t\r") == std::string_view::npos));
    }
    out += '\n';
}

void appendCsvRow(const Record &record, const std::vector<std::string> &columns, std::string &out)
{
    std::string tmp;
    const std::size_t start = out.size();
    for (std::size_t i = 0; i < columns.size(); ++i) {
        if (i)
            out += ',';
        int idx = record.indexOf(columns[i]);
        if (idx < 0)
            continue;
        Value v = record.valueAt(static_cast<std::size_t>(idx));
        switch (v.type) {
        case ValueType::Null:
            break;
        case ValueType::String:
            appendCsvCell(v.s, out);
            break;
        default:
            tmp.clear();
            appendJsonValue(v, tmp);
            appendCsvCell(tmp, out);
        }
    }
    // A row of one empty or blank cell would be a blank line, which readers skip: quote it.
    if (out.find_first_not_of(" \t\r", start) == std::string::npos) {
        const std::string cell = out.substr(start);
        out.resize(start);
        appendCsvCell(cell, out, true);
    }
    out += '\n';
}

} // namespace tideline
