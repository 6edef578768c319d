// The reference reading of a records.tsv line, column by column (recording.hpp): every line
// the fast path (line_fast_path.cpp) does not take, and what the fuzz harness checks it against.
// Its messages are the errors a replay reports.

#include "checkpoint/checksum.hpp"
#include "recording/line_text.hpp"

namespace tideline::recording {

using namespace line;

std::string parseLineReference(std::string_view line, Entry &e, std::string &sourceId)
{
    std::string_view cols[kColumns];
    // The first eight columns are short: one byte loop finds their tabs (a memchr call per
    // column costs more than the scan; a replay parses every line).
    std::size_t start = 0, i = 0;
    for (int c = 0; c + 1 < kColumns; ++c) {
        while (i < line.size() && line[i] != '\t')
            ++i;
        if (i == line.size())
            return "has " + std::to_string(c + 1) + " of its " + std::to_string(kColumns)
                   + " tab-separated columns";
        cols[c] = line.substr(start, i - start);
        start = ++i;
    }
    cols[kColumns - 1] = line.substr(start);
    if (cols[kColumns - 1].find('\t') != std::string_view::npos)
        return "has more than " + std::to_string(kColumns) + " columns";
    std::uint32_t want = 0;
    if (cols[0].size() != 8)
        return "does not start with an 8-digit CRC";
    for (char c : cols[0]) {
        int d = hexDigit(c);
        if (d < 0)
            return "does not start with an 8-digit CRC";
        want = want * 16 + static_cast<std::uint32_t>(d);
    }
    if (checkpoint::crc32c(line.substr(9)) != want)
        return "fails its CRC (the line was edited or damaged)";
    std::optional<std::int64_t> at;
    if (!parseOptional(cols[1], at) || !at || *at < 0)
        return "has no valid at_ms (milliseconds since the recording began)";
    e.atMs = *at;
    if (!unescape(cols[2], sourceId) || sourceId.empty())
        return "has no valid source id";
    if (!parseOptional(cols[3], e.partition) || (e.partition && *e.partition < 0))
        return "has an invalid partition";
    if (!parseOptional(cols[4], e.offset))
        return "has an invalid offset";
    if (!parseOptional(cols[5], e.timestamp))
        return "has an invalid timestamp";
    if (cols[6] == kAbsent) {
        e.key.reset();
    } else {
        std::string key;
        if (!unescape(cols[6], key))
            return "has a badly escaped key";
        e.key = std::move(key);
    }
    e.headers.clear();
    if (cols[7] != kAbsent && !parseHeaders(cols[7], e.headers))
        return "has badly escaped headers (name\\=value pairs joined by \\;)";
    e.end = cols[8] == kEnd;
    e.valueAbsent = cols[8] == kAbsent;
    if (e.end || e.valueAbsent)
        e.value.clear();
    else if (!unescape(cols[8], e.value))
        return "has a badly escaped value";
    return {};
}

} // namespace tideline::recording
