#include <tideline/engine/record_json.hpp>

#include <simdjson.h>

#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <mutex>
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
    };
    static constexpr std::size_t kSlots = 512; // power of two
    static constexpr std::size_t kMaxUsed = 384;
    std::array<Slot, kSlots> slots{};
    std::size_t used = 0;
    std::array<std::string, kFastMaxDepth> built;   ///< names not interned, per depth
    std::array<std::string, kFastMaxDepth> parents; ///< a not-interned object path, per depth
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
    std::string padded; ///< the line plus SIMDJSON_PADDING, reused across records
    std::string prefix; ///< dotted path being built while descending

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

void parseElement(dom::element v, std::string &prefix, Record &out);

void parseObject(dom::object obj, std::string &prefix, Record &out)
{
    std::size_t base = prefix.size();
    bool any = false;
    for (auto field : obj) {
        prefix.resize(base);
        if (base)
            prefix += '.';
        prefix += field.key;
        parseElement(field.value, prefix, out);
        any = true;
    }
    prefix.resize(base);
    if (!any && base)
        out.append(prefix, Value::raw("{}"));
}

void parseElement(dom::element v, std::string &prefix, Record &out)
{
    switch (v.type()) {
    case dom::element_type::OBJECT:
        parseObject(dom::object(v), prefix, out);
        return;
    case dom::element_type::ARRAY: {
        // Arrays are kept as compact JSON text; rare in events, so minify's allocation is fine.
        std::string text = simdjson::minify(v);
        out.append(prefix, Value::raw(text));
        return;
    }
    case dom::element_type::INT64:
        out.append(prefix, Value::integer(int64_t(v)));
        return;
    case dom::element_type::UINT64:
        out.append(prefix, Value::number(double(uint64_t(v))));
        return;
    case dom::element_type::DOUBLE:
        out.append(prefix, Value::number(double(v)));
        return;
    case dom::element_type::STRING:
        out.append(prefix, Value::string(std::string_view(v)));
        return;
    case dom::element_type::BOOL:
        out.append(prefix, Value::boolean(bool(v)));
        return;
    case dom::element_type::NULL_VALUE:
        out.append(prefix, Value::null());
        return;
    }
}

} // namespace

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
        p = skipWs(p, end);
        if (p >= end || *p != '{')
            return false;
        ++p;
        if (!object(p, kRootParent, std::string_view(), 0))
            return false;
        return skipWs(p, end) == end;
    }

private:
    /// The full path of key under parent: interned (static) when possible, else built in
    /// `built` (static = false). parent null means "not interned", parentName its bytes.
    bool resolveName(const char *parent,
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
                    name = s.full.s;
                    return true;
                }
            }
        }
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
                ++m_names.used;
                name = interned;
                return true;
            }
        }
        name = built;
        return false;
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
            bool isStatic
                = resolveName(parent, parentName,
                              std::string_view(ks, static_cast<std::size_t>(ke - ks)), built, name);
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
    {
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
        error = describe(e);
        return false;
    }
    m_impl->prefix.clear();
    parseObject(dom::object(root), m_impl->prefix, out);
    return true;
}

void appendJsonString(std::string_view s, std::string &out)
{
    static const char *hex = "0123456789abcdef";
    out += '"';
    std::size_t start = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        auto c = static_cast<unsigned char>(s[i]);
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
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
    out.append(s.data() + start, s.size() - start);
    out += '"';
}

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
            std::size_t dot = name.find('.', start);
            if (dot == std::string_view::npos)
                break;
            segs[n++] = name.substr(start, dot - start);
            start = dot + 1;
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
            appendJsonString(segs[depth], out);
            out += ":{";
            open[depth] = segs[depth];
            ++depth;
            first[depth] = true;
        }
        if (!first[depth])
            out += ',';
        first[depth] = false;
        appendJsonString(segs[n], out);
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

bool CsvReader::setHeader(std::string_view line, std::string &error)
{
    if (!split(line, m_columns, error))
        return false;
    if (m_columns.empty() || (m_columns.size() == 1 && m_columns[0].empty())) {
        error = "empty header line";
        return false;
    }
    return true;
}

Value inferValue(std::string_view text)
{
    if (text.empty())
        return Value::null();
    std::int64_t i = 0;
    auto r = std::from_chars(text.data(), text.data() + text.size(), i);
    if (r.ec == std::errc() && r.ptr == text.data() + text.size())
        return Value::integer(i);
    double d = 0;
    auto rd = std::from_chars(text.data(), text.data() + text.size(), d);
    if (rd.ec == std::errc() && rd.ptr == text.data() + text.size() && std::isfinite(d))
        return Value::number(d);
    if (text == "true")
        return Value::boolean(true);
    if (text == "false")
        return Value::boolean(false);
    return Value::string(text);
}

bool CsvReader::parse(std::string_view line, Record &out, std::string &error) const
{
    thread_local std::vector<std::string> cells;
    out.clear();
    if (!split(line, cells, error))
        return false;
    if (cells.size() != m_columns.size()) {
        error = "expected " + std::to_string(m_columns.size()) + " cells, found "
                + std::to_string(cells.size());
        return false;
    }
    for (std::size_t c = 0; c < cells.size(); ++c)
        out.set(m_columns[c], inferValue(cells[c]));
    return true;
}

static void appendCsvCell(std::string_view s, std::string &out)
{
    if (s.find_first_of(",\"\n\r") == std::string_view::npos) {
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
    for (std::size_t i = 0; i < columns.size(); ++i) {
        if (i)
            out += ',';
        appendCsvCell(columns[i], out);
    }
    out += '\n';
}

void appendCsvRow(const Record &record, const std::vector<std::string> &columns, std::string &out)
{
    std::string tmp;
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
    out += '\n';
}

} // namespace tideline
