// Writing one line of records.tsv (recording.hpp): the columns, escaped, behind their CRC.

#include "checkpoint/checksum.hpp"
#include "recording/line_text.hpp"

#include <cstdio>

namespace tideline::recording {

using namespace line;

void appendLine(std::string &out, const Entry &e, std::string_view sourceId)
{
    std::string rest;
    rest.reserve(e.value.size() + sourceId.size() + 48);
    rest += std::to_string(e.atMs);
    rest += '\t';
    escape(rest, sourceId);
    rest += '\t';
    appendKafkaColumns(rest, e);
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
