// The fast path of RecordParser: one pass over a plain event line builds the record in place
// (see below); anything outside its strict subset is left to simdjson (json_parser.cpp). Its
// hot loop and every helper it calls stay in this one file, so they inline.
#include "record/json_parse_detail.hpp"

#include <cstring>
#include <mutex>
#include <unordered_set>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace tideline {

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

using detail::FastNames;
using detail::kFastMaxDepth;

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

/// How many of the 8 bytes of w (little-endian: the first byte is the lowest) are ASCII
/// digits before the first byte that is not one (8: all are).
inline unsigned leadingDigits(std::uint64_t w)
{
    // Per byte: high nibble 3 and (byte + 6)'s high nibble 3 iff it is a digit, so x's byte is
    // 0 exactly for digits. Adding 6 carries into the next byte only from a byte >= 0xFA, which
    // is not a digit: every byte up to the first non-digit is computed exactly.
    const std::uint64_t x = ((w & 0xF0F0F0F0F0F0F0F0ULL)
                             | (((w + 0x0606060606060606ULL) & 0xF0F0F0F0F0F0F0F0ULL) >> 4))
                            ^ 0x3333333333333333ULL;
    // The high bit of each byte that is not zero.
    const std::uint64_t nonZero
        = (((x & 0x7F7F7F7F7F7F7F7FULL) + 0x7F7F7F7F7F7F7F7FULL) | x) & 0x8080808080808080ULL;
    return nonZero ? static_cast<unsigned>(__builtin_ctzll(nonZero)) / 8 : 8;
}

constexpr std::uint64_t kPow10[9] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};

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

/// Projecting: only fields FieldProjection keeps are appended. A template parameter, not a
/// test of the pointer per field: the whole-record parse (every line at parallelism 1) has no
/// projection code in it at all.
template<bool Projecting>
class FastParser
{
public:
    FastParser(FastNames &names, Record &out, const FieldProjection *only)
        : m_names(names)
        , m_out(out)
        , m_only(only)
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
        if (!object(p, kRootParent, std::string_view(), 0, &m_names.rootFirst))
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
                    std::string_view &name,
                    FastNames::Slot *&hit)
    {
        using Impl = FastNames;
        hit = nullptr;
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
                    hit = &s;
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
                hit = slot;
                return 1;
            }
        }
        m_names.uncached.append(built);
        m_names.uncached += '\n';
        ++m_names.uncachedCount;
        name = built;
        return 0;
    }

    /// Whether the record gets the field `name` (cached in its slot when it has one).
    [[gnu::always_inline]] bool kept(std::string_view name, FastNames::Slot *slot) const
    {
        if constexpr (!Projecting) {
            return true;
        } else {
            if (!slot)
                return m_only->keeps(name);
            const auto i = static_cast<std::size_t>(slot - m_names.slots.data());
            if (m_names.keepFor[i] != m_only->id()) {
                m_names.keepFor[i] = m_only->id();
                m_names.keep[i] = m_only->keeps(name);
            }
            return m_names.keep[i];
        }
    }

    [[gnu::always_inline]] void add(std::string_view name, bool isStatic, const Value &v)
    {
        if (isStatic)
            m_out.append(StaticPath(name), v);
        else
            m_out.append(name, v);
    }

    /// p is just after '{'; on success p is just after the matching '}'. firstLink: where
    /// the slot of this object's first key is predicted and recorded (null when the object's
    /// path is not interned: its keys are not cached either).
    bool object(const char *&p,
                const char *parent,
                std::string_view parentName,
                int depth,
                FastNames::Slot **firstLink)
    {
        const char *end = m_end;
        p = skipWs(p, end);
        if (p < end && *p == '}') {
            ++p;
            // A nested `{}` is kept as raw `{}` (as parseObject does).
            if (!parentName.empty() && (!Projecting || m_only->keeps(parentName)))
                add(parentName, parent != nullptr, Value::raw("{}"));
            return true;
        }
        // Names of this level that are not interned are built here (one buffer per depth).
        std::string &built = m_names.built[static_cast<std::size_t>(depth)];
        // The link that predicts (and records) the slot of the next key of this object.
        FastNames::Slot **link = firstLink;
        while (true) {
            if (p >= end || *p != '"')
                return false;
            ++p;
            std::string_view name;
            bool isStatic;
            FastNames::Slot *slot = link ? *link : nullptr;
            // The predicted key: its bytes and the closing quote are all it takes, since a
            // cached key was a plain one of the fast subset when it was cached.
            if (slot && static_cast<std::size_t>(end - p) > slot->keyLen && p[slot->keyLen] == '"'
                && sameKey(slot->key, p, slot->keyLen)) {
                if (slot->seen == m_names.line)
                    return false; // the same key twice in one object: the slow path decides
                slot->seen = m_names.line;
                name = slot->full.s;
                isStatic = true;
                p = skipWs(p + slot->keyLen + 1, end);
                if (p >= end || *p != ':')
                    return false;
                p = skipWs(p + 1, end);
                if (p >= end)
                    return false;
            } else {
                const char *ks = p;
                const char *ke = plainStringEnd(p, end);
                if (!ke)
                    return false;
                p = skipWs(ke + 1, end);
                if (p >= end || *p != ':')
                    return false;
                p = skipWs(p + 1, end);
                if (p >= end)
                    return false;
                const int resolved = resolveName(
                    parent, parentName, std::string_view(ks, static_cast<std::size_t>(ke - ks)),
                    built, name, slot);
                if (resolved < 0)
                    return false;
                isStatic = resolved > 0;
                if (link && slot)
                    *link = slot; // this line's shape predicts the next one's
            }
            link = slot ? &slot->next : nullptr;
            // Not kept: read and checked all the same (what is accepted must not change).
            const bool keep = kept(name, isStatic ? slot : nullptr);
            const char c = *p;
            if (c == '"') {
                const char *vs = ++p;
                const char *ve = plainStringEnd(p, end);
                if (!ve)
                    return false;
                p = ve + 1;
                if (keep)
                    add(name, isStatic,
                        Value::string(std::string_view(vs, static_cast<std::size_t>(ve - vs))));
            } else if (c == '-' || (c >= '0' && c <= '9')) {
                if (!integer(p, name, isStatic, keep))
                    return false;
            } else if (c == '{') {
                if (depth + 1 >= kFastMaxDepth)
                    return false;
                ++p;
                if (isStatic) {
                    if (!object(p, name.data(), name, depth + 1,
                                slot ? &slot->firstChild : nullptr))
                        return false;
                } else {
                    // Children need the path's bytes after `built` is reused at this depth.
                    std::string &own = m_names.parents[static_cast<std::size_t>(depth)];
                    own.assign(name);
                    if (!object(p, nullptr, own, depth + 1, nullptr))
                        return false;
                }
            } else if (c == 't' && end - p >= 4 && std::memcmp(p, "true", 4) == 0) {
                p += 4;
                if (keep)
                    add(name, isStatic, Value::boolean(true));
            } else if (c == 'f' && end - p >= 5 && std::memcmp(p, "false", 5) == 0) {
                p += 5;
                if (keep)
                    add(name, isStatic, Value::boolean(false));
            } else if (c == 'n' && end - p >= 4 && std::memcmp(p, "null", 4) == 0) {
                p += 4;
                if (keep)
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
    bool integer(const char *&p, std::string_view name, bool isStatic, bool keep)
    {
        if constexpr (Projecting) {
            if (!keep)
                return skipInteger(p);
        }
        const char *end = m_end;
        bool neg = *p == '-';
        if (neg)
            ++p;
        const char *ds = p;
        std::uint64_t v = 0;
        // A word at a time while 8 bytes remain: the run of digits it starts with is read in
        // one go (no loop per digit, whose exit the CPU mispredicts when lengths vary from
        // field to field). Past 18 digits the number is refused below anyway; v may wrap
        // first, harmlessly (unsigned).
        bool stopped = false; // a non-digit was found within a word
        while (end - p >= 8) {
            std::uint64_t w;
            std::memcpy(&w, p, sizeof w);
            const unsigned n = leadingDigits(w);
            if (n == 8) {
                v = v * 100000000ULL + parseEightDigits(w);
                p += 8;
                if (p - ds > 18)
                    break;
                continue;
            }
            if (n > 0) {
                // The n digits moved to the top bytes, '0's below them: the same value.
                const std::uint64_t aligned
                    = (w << (8 * (8 - n))) | (0x3030303030303030ULL >> (8 * n));
                v = v * kPow10[n] + parseEightDigits(aligned);
                p += n;
            }
            stopped = true;
            break;
        }
        while (!stopped && p < end && *p >= '0' && *p <= '9' && p - ds < 19) {
            v = v * 10 + static_cast<std::uint64_t>(*p - '0');
            ++p;
        }
        const std::ptrdiff_t digits = p - ds;
        if (digits == 0 || digits > 18 || (digits > 1 && *ds == '0') || (neg && v == 0))
            return false;
        if (p < end && (*p == '.' || *p == 'e' || *p == 'E' || (*p >= '0' && *p <= '9')))
            return false;
        const auto iv = static_cast<std::int64_t>(v); // at most 18 digits: fits
        if (keep)
            add(name, isStatic, Value::integer(neg ? -iv : iv));
        return true;
    }

    /// integer() for a field the projection does not keep: the same digits counted and the
    /// same numbers refused, without their value (a skipped event id was the costliest field
    /// left to convert). Without leading zeros, an integer is 0 only as the single digit "0",
    /// so that is how "-0" is told here. Its loop is integer()'s without the arithmetic; one
    /// template for both (the arithmetic under `if constexpr`) left P = 1 as it was but made
    /// the projecting parse 1.5-2 % slower (warm P = 2 file-window, docs/benchmarks.md
    /// "Session 20"), so the two are kept apart.
    bool skipInteger(const char *&p) const
    {
        const char *end = m_end;
        const bool neg = *p == '-';
        if (neg)
            ++p;
        const char *ds = p;
        bool stopped = false; // a non-digit was found within a word
        while (end - p >= 8) {
            std::uint64_t w;
            std::memcpy(&w, p, sizeof w);
            const unsigned n = leadingDigits(w);
            p += n;
            if (n < 8) {
                stopped = true;
                break;
            }
            if (p - ds > 18)
                break;
        }
        while (!stopped && p < end && *p >= '0' && *p <= '9' && p - ds < 19)
            ++p;
        const std::ptrdiff_t digits = p - ds;
        if (digits == 0 || digits > 18 || (digits > 1 && *ds == '0')
            || (neg && digits == 1 && *ds == '0'))
            return false;
        return !(p < end && (*p == '.' || *p == 'e' || *p == 'E' || (*p >= '0' && *p <= '9')));
    }

    FastNames &m_names;
    Record &m_out;
    const FieldProjection *m_only; ///< null: every field
    const char *m_end = nullptr;
};

/// Out of line: parseFast holds the whole-record parse alone, as it did before projections
/// existed (the first version, with both inlined, was 3 % slower at parallelism 1; the cost
/// was the duplicate test called out of line, FastNames::uncachedDuplicates, not this, but
/// this is the layout that was measured: docs/benchmarks.md "Session 19").
[[gnu::noinline]] bool parseProjected(
    FastNames &names, Record &out, const char *p, const char *end, const FieldProjection &only)
{
    FastParser<true> fast(names, out, &only);
    return fast.parse(p, end);
}

} // namespace

namespace detail {

bool parseFast(
    FastNames &names, Record &out, const char *p, const char *end, const FieldProjection *only)
{
    if (only) [[unlikely]]
        return parseProjected(names, out, p, end, *only);
    FastParser<false> fast(names, out, nullptr);
    return fast.parse(p, end);
}

} // namespace detail

} // namespace tideline
