// RecordParser: takes a line through the fast path when it can (json_fast_path.cpp) and
// through simdjson's DOM parser otherwise (here), applying the duplicate-key, raw-number and
// limit rules of record_json.hpp. Its job is the decision and the simdjson path.
#include "record/json_parse_detail.hpp"

#include <tideline/engine/record_json.hpp>

#include <simdjson.h>

#include <charconv>
#include <deque>
#include <unordered_map>
#include <unordered_set>

namespace tideline {

// The DOM API dispatches at run time to the best kernel of the CPU (haswell, icelake, ...),
// so the binary stays portable to any x86-64; the on-demand API would be fixed at compile time.
namespace dom = simdjson::dom;

namespace {

/// The simdjson path: fields of one object level, gathered to apply the duplicate-key rule.
struct SlowLevel
{
    std::vector<std::pair<std::string_view, dom::element>> fields;
};

} // namespace

using detail::FastNames;

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

bool RecordParser::parse(std::string_view json,
                         Record &out,
                         std::string &error,
                         const FieldProjection *only)
{
    out.clear();
    if (json.size() > m_limits.maxBytes) {
        error = "record too large: " + std::to_string(json.size()) + " bytes (limit "
                + std::to_string(m_limits.maxBytes) + ")";
        return false;
    }
    if (m_limits.fastPath) {
        out.reserve(16, json.size()); // strings and names fit: no arena growth mid-line
        if (detail::parseFast(m_impl->fast, out, json.data(), json.data() + json.size(), only))
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
        if (e == simdjson::DEPTH_ERROR || !detail::findJsonProblem(json, false, error))
            error = describe(e);
        return false;
    }
    m_impl->prefix.clear();
    SlowState st{m_impl->prefix, m_impl->levels, {}, false};
    parseObject(dom::object(root), st, out, 0);
    if (st.checkNumbers && detail::findJsonProblem(json, true, error)) {
        out.clear();
        return false;
    }
    return true;
}

} // namespace tideline
