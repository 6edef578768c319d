#pragma once
// Reading and writing records as JSON (and CSV), off the per-record allocation path.
//
// RecordParser wraps one simdjson on-demand parser and reuses its buffers, so parsing a line
// costs no allocation once warmed up. Size and depth are limited while parsing: a line over
// the limit is rejected with a message, never handed to a recursive routine.

#include <tideline/engine/record.hpp>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tideline {

struct RecordLimits
{
    std::size_t maxBytes = 1u << 20; ///< Longest accepted record, in bytes (1 MiB).
    int maxDepth = 32;               ///< Deepest accepted nesting of objects and arrays.
};

class RecordParser
{
public:
    explicit RecordParser(RecordLimits limits = {});
    ~RecordParser();
    RecordParser(const RecordParser &) = delete;
    RecordParser &operator=(const RecordParser &) = delete;

    /// Parses one JSON object into `out` (cleared first). On failure returns false and sets
    /// `error` to a short reason ("not a JSON object", "record too large: ...").
    bool parse(std::string_view json, Record &out, std::string &error);

    const RecordLimits &limits() const { return m_limits; }

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
    RecordLimits m_limits;
};

/// Appends the record as one JSON object (nested objects rebuilt from dotted paths).
void appendJson(const Record &record, std::string &out);
std::string toJson(const Record &record);
/// Appends a JSON string literal (with quotes), escaping as RFC 8259 requires.
void appendJsonString(std::string_view s, std::string &out);
/// Appends a value as JSON (doubles in shortest round-trip form, non-finite as null).
void appendJsonValue(const Value &v, std::string &out);

/// CSV (RFC 4180): one header line, then records. Values are typed by their text: integers,
/// then decimals, then `true`/`false`; an empty cell is null; everything else is a string.
class CsvReader
{
public:
    /// Reads the header. Returns false with error set when the header is empty.
    bool setHeader(std::string_view line, std::string &error);
    const std::vector<std::string> &columns() const { return m_columns; }
    /// Parses one data line; false with error when the cell count does not match the header.
    bool parse(std::string_view line, Record &out, std::string &error) const;
    /// Splits a CSV line into cells (quotes removed, doubled quotes unescaped).
    static bool split(std::string_view line, std::vector<std::string> &cells, std::string &error);

private:
    std::vector<std::string> m_columns;
};

/// Typed value of a CSV cell or other text (see CsvReader). `storage` must outlive the Value.
Value inferValue(std::string_view text);

/// Writes CSV with a fixed column list (taken from the first record written).
void appendCsvHeader(const std::vector<std::string> &columns, std::string &out);
void appendCsvRow(const Record &record, const std::vector<std::string> &columns, std::string &out);

} // namespace tideline
