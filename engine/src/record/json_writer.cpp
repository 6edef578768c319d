// Writing records as JSON text: dotted paths re-nested into objects, values in the form they
// are read back as (a double stays a decimal, a raw value is copied).
#include <tideline/engine/record_json.hpp>

#include <charconv>
#include <cmath>

namespace tideline {

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

} // namespace tideline
