#include <tideline/engine/record_json.hpp>

#include <simdjson.h>

#include <charconv>
#include <cmath>
#include <cstring>

namespace tideline {

// The DOM API dispatches at run time to the best kernel of the CPU (haswell, icelake, ...),
// so the binary stays portable to any x86-64; the on-demand API would be fixed at compile time.
namespace dom = simdjson::dom;

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

bool RecordParser::parse(std::string_view json, Record &out, std::string &error)
{
    out.clear();
    if (json.size() > m_limits.maxBytes) {
        error = "record too large: " + std::to_string(json.size()) + " bytes (limit "
                + std::to_string(m_limits.maxBytes) + ")";
        return false;
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
