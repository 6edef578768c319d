// The CSV reader: the first record is the header, the rest are data, split into records the
// way the file source does (lines joined while a quoted cell is open). Properties:
// - nothing crashes; an accepted record writes as valid JSON;
// - every cell's text survives: a string cell keeps its exact text, a number cell is typed
//   only when it writes back as the same number (02134 stays a string);
// - CSV written from the records (appendCsvHeader/appendCsvRow) reads back as the same records.

#include "fuzz_common.hpp"

#include <tideline/engine/record_json.hpp>

#include <nlohmann/json.hpp>

#include <charconv>
#include <cmath>
#include <cstring>
#include <vector>

using namespace tideline;

namespace {

/// Splits text into CSV records like the file source: by '\n', joining lines while quoted.
std::vector<std::string> records(std::string_view text)
{
    std::vector<std::string> out;
    std::size_t pos = 0;
    while (pos <= text.size()) {
        std::size_t nl = text.find('\n', pos);
        std::string_view line
            = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
        pos = nl == std::string_view::npos ? text.size() + 1 : nl + 1;
        std::string rec(line);
        CsvReader::QuoteScan scan;
        scan.feed(line);
        while (scan.open() && pos <= text.size()) {
            nl = text.find('\n', pos);
            std::string_view next = text.substr(
                pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
            pos = nl == std::string_view::npos ? text.size() + 1 : nl + 1;
            rec += '\n';
            rec.append(next);
            scan.feed("\n");
            scan.feed(next);
        }
        // Blank lines carry no record, except the first: it is the header, whatever it holds.
        if (out.empty() || rec.find_first_not_of(" \t\r") != std::string::npos)
            out.push_back(std::move(rec));
    }
    return out;
}

void checkCell(const std::string &cell)
{
    const Value v = inferValue(cell);
    switch (v.type) {
    case ValueType::Null:
        FUZZ_CHECK(cell.empty(), "null from " + fuzz::shown(cell));
        break;
    case ValueType::Bool:
        FUZZ_CHECK(cell == (v.b ? "true" : "false"), "bool from " + fuzz::shown(cell));
        break;
    case ValueType::String:
    case ValueType::Raw:
        FUZZ_CHECK(v.s == cell, "text changed: " + fuzz::shown(cell));
        break;
    case ValueType::Int: {
        char buf[32];
        auto r = std::to_chars(buf, buf + sizeof buf, v.i);
        FUZZ_CHECK(std::string_view(buf, static_cast<std::size_t>(r.ptr - buf)) == cell,
                   "integer text changed: " + fuzz::shown(cell));
        break;
    }
    case ValueType::Double: {
        FUZZ_CHECK(std::isfinite(v.d), "non-finite from " + fuzz::shown(cell));
        std::string w;
        appendJsonValue(v, w);
        double back = 0;
        auto r = std::from_chars(w.data(), w.data() + w.size(), back);
        FUZZ_CHECK(r.ec == std::errc() && back == v.d, "decimal changed: " + fuzz::shown(cell));
        double exact = 0;
        std::from_chars(cell.data(), cell.data() + cell.size(), exact);
        FUZZ_CHECK(exact == v.d, "decimal value changed: " + fuzz::shown(cell));
        break;
    }
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const auto recs = records(fuzz::asText(data, size));
    if (recs.empty())
        return 0;
    CsvReader csv;
    std::string err;
    if (!csv.setHeader(recs[0], err))
        return 0;
    std::vector<Record> parsed;
    std::vector<std::string> cells;
    for (std::size_t i = 1; i < recs.size(); ++i) {
        Record r;
        if (!csv.parse(recs[i], r, err)) {
            FUZZ_CHECK(!err.empty(), "empty error");
            continue;
        }
        FUZZ_CHECK(CsvReader::split(recs[i], cells, err), "parsed but does not split");
        for (const auto &c : cells)
            checkCell(c);
        const std::string json = toJson(r);
        FUZZ_CHECK(nlohmann::json::accept(json), "not JSON: " + fuzz::shown(json));
        parsed.push_back(std::move(r));
    }
    if (parsed.empty())
        return 0;
    // Written as CSV (columns from the header) and read back: the same records.
    std::string text;
    appendCsvHeader(csv.columns(), text);
    for (const auto &r : parsed)
        appendCsvRow(r, csv.columns(), text);
    const auto again = records(text);
    CsvReader back;
    FUZZ_CHECK(!again.empty() && back.setHeader(again[0], err),
               "own header rejected: " + fuzz::shown(text) + ": " + err);
    FUZZ_CHECK(again.size() == parsed.size() + 1, "record count changed: " + fuzz::shown(text));
    for (std::size_t i = 0; i < parsed.size(); ++i) {
        Record r;
        FUZZ_CHECK(back.parse(again[i + 1], r, err),
                   "own row rejected: " + fuzz::shown(again[i + 1]) + ": " + err);
        FUZZ_CHECK(toJson(r) == toJson(parsed[i]), "round trip changed "
                                                       + fuzz::shown(toJson(parsed[i])) + " to "
                                                       + fuzz::shown(toJson(r)));
    }
    return 0;
}
