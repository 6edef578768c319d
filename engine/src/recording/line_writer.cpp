// Writing one line of records.tsv (recording.hpp): the columns, escaped, behind their CRC.

#include "checkpoint/checksum.hpp"
#include "recording/line_text.hpp"

#include <cstdio>

namespace tideline::recording {

using namespace line;

namespace {

template<typename Int>
void appendOptional(std::string &out, const std::optional<Int> &v)
{
    if (v)
        out += std::to_string(*v);
    else
        out += kAbsent;
}

} // namespace

void appendLine(std::string &out, const Entry &e, std::string_view sourceId)
{
    std::string rest;
    rest.reserve(e.value.size() + sourceId.size() + 48);
    rest += std::to_string(e.atMs);
    rest += '\t';
    escape(rest, sourceId);
    rest += '\t';
    appendOptional(rest, e.partition);
    rest += '\t';
    appendOptional(rest, e.offset);
    rest += '\t';
    appendOptional(rest, e.timestamp);
    rest += '\t';
    if (e.key)
        escape(rest, *e.key);
    else
        rest += kAbsent;
    rest += '\t';
    if (e.headers.empty()) {
        rest += kAbsent;
    } else {
        // name\=value pairs joined by \; : escape() never writes a backslash before '=' or
        // ';', so these separators cannot be confused with any byte of a name or a value.
        for (std::size_t i = 0; i < e.headers.size(); ++i) {
            if (i)
                rest += "\\;";
            escape(rest, e.headers[i].first);
            rest += "\\=";
            escape(rest, e.headers[i].second);
        }
    }
    rest += '\t';
    if (e.end)
        rest += kEnd;
    else if (e.valueAbsent)
        rest += kAbsent;
    else
        escape(rest, e.value);
    char crc[9];
    std::snprintf(crc, sizeof crc, "%08x", checkpoint::crc32c(rest));
    out.append(crc, 8);
    out += '\t';
    out += rest;
    out += '\n';
}

} // namespace tideline::recording
