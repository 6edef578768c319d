#pragma once
// Reading and writing records as JSON (and CSV), off the per-record allocation path.
//
// RecordParser wraps one simdjson on-demand parser and reuses its buffers, so parsing a line
// costs no allocation once warmed up. Size and depth are limited while parsing: a line over
// the limit is rejected with a message, never handed to a recursive routine.

#include <tideline/engine/record.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tideline {

struct RecordLimits
{
    std::size_t maxBytes = 1u << 20; ///< Longest accepted record, in bytes (1 MiB).
    int maxDepth = 32;               ///< Deepest accepted nesting of objects and arrays.
    /// Use the hand-written fast path for plain lines (off: every line goes to simdjson; for
    /// tests and the fuzzers, which check that both give the same result).
    bool fastPath = true;
};

/// The fields a reader of parsed records reads (field paths): what a parser may keep of a line
/// when the record is only read, never emitted (FieldProjection is projection pushdown, as
/// Spark's and DuckDB's JSON readers do it). A name is kept when it is one of the paths, lies
/// under one (the leaves of an object the reader asks for), or lies on the way to one (a
/// scalar or `{}` where the reader expects an object: it must see that the path is missing).
class FieldProjection
{
public:
    /// Null, with `error` naming the path, when one is not a field path.
    [[nodiscard]] static std::unique_ptr<FieldProjection> of(const std::vector<std::string> &paths,
                                                             std::string &error);
    [[nodiscard]] bool keeps(std::string_view name) const;
    /// Unique in the process (never 0) for its first 2^32 - 1 projections, one per fused
    /// source of a run: what a parser's cache of keeps() answers is keyed by, so a projection
    /// made where an old one was freed is never taken for it.
    std::uint32_t id() const { return m_id; }

private:
    std::vector<std::string> m_paths; ///< canonical
    std::uint32_t m_id = 0;
};

/// Event lines are parsed strictly (RFC 8259), with these rules where JSON leaves room:
/// - a key containing '.' or '`' becomes a backtick-quoted path segment (`service.name`), so
///   keys come out exactly as they came in;
/// - duplicate keys in one object: the last value wins, at the place of the first occurrence
///   (what JavaScript's JSON.parse and Python's json do); the record holds the key once;
/// - integers from 2^63 to 2^64-1 are kept as their exact digits (a raw number: written back
///   unchanged, not a number for arithmetic); integers beyond 64 bits, and decimals too large
///   for a double (1e400) or so small they would read as 0 (1e-400), are rejected with the
///   reason and column.
class RecordParser
{
public:
    explicit RecordParser(RecordLimits limits = {});
    ~RecordParser();
    RecordParser(const RecordParser &) = delete;
    RecordParser &operator=(const RecordParser &) = delete;

    /// Parses one JSON object into `out` (cleared first). On failure returns false and sets
    /// `error` to a short reason with the column ("expected ',' or '}' after a value at
    /// column 9", "record too large: ...").
    [[nodiscard]] bool parse(std::string_view json, Record &out, std::string &error)
    {
        return parse(json, out, error, nullptr);
    }
    /// parse(), keeping at least the fields `only` keeps: a line on the fast path (plain
    /// objects) gives those alone, any other line the whole record. Which lines are accepted
    /// and every error message are parse()'s; a kept field's value and its place among the
    /// kept ones are too. For a reader that only reads the record: one that emits it (an
    /// `errors` record) parses the line again with parse().
    [[nodiscard]] bool
    parse(std::string_view json, Record &out, std::string &error, const FieldProjection *only);

    const RecordLimits &limits() const { return m_limits; }

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
    RecordLimits m_limits;
};

/// Appends the record as one JSON object (nested objects rebuilt from the paths; a quoted
/// segment is written as its key).
void appendJson(const Record &record, std::string &out);
std::string toJson(const Record &record);
/// Appends a JSON string literal (with quotes), escaping as RFC 8259 requires. Bytes that are
/// not valid UTF-8 (never produced by the parsers) are written as U+FFFD, so the output is
/// always valid JSON.
void appendJsonString(std::string_view s, std::string &out);
/// Appends a value as JSON (doubles in shortest round-trip form, non-finite as null).
void appendJsonValue(const Value &v, std::string &out);

/// CSV (RFC 4180): one header line, then records; a quoted cell may hold commas, doubled
/// quotes and newlines (the file source joins the lines of such a record, see QuoteScan). A
/// UTF-8 byte order mark before the header is dropped; a line that is not valid UTF-8 is an
/// error. Each header cell is one key (`service.name` is the key "service.name"; in paths it
/// is written in backticks); a repeated name keeps the last cell, at the place of the first.
/// Cells are typed by their text, and only when the text survives: an integer written as JSON
/// writes it (no leading zeros, no '+': 02134 and 007 stay strings), 2^63 ... 2^64-1 is kept
/// as its digits, a decimal whose digits a double keeps (1.5, 1e3; not 0.1000000000000000055),
/// `true`/`false`; an empty cell is null; everything else is a string.
class CsvReader
{
public:
    /// Reads the header. Returns false with error set when the header is empty or not UTF-8.
    bool setHeader(std::string_view line, std::string &error);
    /// The record names of the columns (keys quoted where a path needs it).
    const std::vector<std::string> &columns() const { return m_columns; }
    /// Parses one record (its lines joined by '\n'); false with error when the cell count does
    /// not match the header, a quote is unclosed or the text is not UTF-8.
    bool parse(std::string_view line, Record &out, std::string &error) const;
    /// Splits a CSV line into cells (quotes removed, doubled quotes unescaped).
    static bool split(std::string_view line, std::vector<std::string> &cells, std::string &error);

    /// Tells whether a record's text so far ends inside a quoted cell (then the next line
    /// belongs to it). Fed line by line, with the '\n' between lines.
    struct QuoteScan
    {
        bool inQuotes = false;
        bool cellStart = true;
        bool pendingQuote = false;
        void feed(std::string_view text);
        bool open() const;
    };

private:
    std::vector<std::string> m_columns;
    bool m_duplicateColumns = false;
};

/// Typed value of a CSV cell or other text (see CsvReader). The Value points into `text`.
Value inferValue(std::string_view text);

/// Length of the valid UTF-8 sequence at p (1 for ASCII), or 0 when the bytes there are not
/// valid UTF-8 (RFC 3629: no overlong forms, surrogates or code points above U+10FFFF).
std::size_t utf8SequenceLength(const unsigned char *p, std::size_t avail);
/// Byte offset of the first invalid UTF-8 sequence in s, or npos.
std::size_t invalidUtf8At(std::string_view s);
/// The longest prefix length of s, at most max, that does not cut a UTF-8 sequence.
std::size_t utf8Prefix(std::string_view s, std::size_t max);
/// Standard base64 (RFC 4648, padded).
void appendBase64(std::string_view bytes, std::string &out);

/// What a JSON number literal at the start of `s` is.
struct NumberCheck
{
    enum Kind { Ok, Unsigned, OutOfRange, Malformed };
    Kind kind = Ok;         ///< Unsigned: an integer in 2^63 ... 2^64-1
    bool isInteger = false; ///< no fraction, no exponent
    std::size_t length = 0; ///< bytes of the literal (for Malformed: up to the problem)
    const char *why = "";   ///< for OutOfRange / Malformed
};
NumberCheck checkJsonNumber(std::string_view s);

/// The first problem of JSON text, with its 1-based column, as a short message ("expected ','
/// or '}' after a value at column 9"); false when there is none. Used for error reasons.
bool findJsonProblem(std::string_view text, std::string &message);

/// Writes CSV with a fixed column list (taken from the first record written).
void appendCsvHeader(const std::vector<std::string> &columns, std::string &out);
void appendCsvRow(const Record &record, const std::vector<std::string> &columns, std::string &out);

} // namespace tideline
