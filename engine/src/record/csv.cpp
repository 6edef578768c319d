// Reading and writing records as CSV: splitting a line into cells, the header, inferring a
// cell's type, and writing header and rows.
#include <tideline/engine/record_json.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>

namespace tideline {

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

void CsvReader::QuoteScan::feed(std::string_view text)
{
    for (char c : text) {
        if (pendingQuote) {
            pendingQuote = false;
            if (c == '"')
                continue;     // a doubled quote inside the quoted cell
            inQuotes = false; // that quote closed the cell
        }
        if (inQuotes) {
            if (c == '"')
                pendingQuote = true;
            continue;
        }
        if (c == '"' && cellStart)
            inQuotes = true;
        cellStart = c == ',';
    }
}

bool CsvReader::QuoteScan::open() const
{
    return inQuotes && !pendingQuote;
}

namespace {

constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

bool checkUtf8(std::string_view line, std::string &error)
{
    const std::size_t bad = invalidUtf8At(line);
    if (bad == std::string_view::npos)
        return true;
    error = "invalid UTF-8 at byte " + std::to_string(bad + 1) + " of the line";
    return false;
}

} // namespace

bool CsvReader::setHeader(std::string_view line, std::string &error)
{
    if (line.substr(0, kUtf8Bom.size()) == kUtf8Bom)
        line.remove_prefix(kUtf8Bom.size()); // a byte order mark is not part of the first name
    if (!checkUtf8(line, error))
        return false;
    if (!split(line, m_columns, error))
        return false;
    if (m_columns.empty() || (m_columns.size() == 1 && m_columns[0].empty())) {
        error = "empty header line";
        return false;
    }
    // Each header cell is one key (a header `service.name` is the key "service.name", not a
    // nested field): as record names they are quoted where a path needs it.
    for (auto &c : m_columns)
        if (fieldpath::needsQuotes(c))
            c = fieldpath::quoteKey(c);
    std::vector<std::string_view> sorted(m_columns.begin(), m_columns.end());
    std::sort(sorted.begin(), sorted.end());
    m_duplicateColumns = std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end();
    return true;
}

namespace {

/// Significant digits and decimal exponent of a JSON number's text, for comparing numbers
/// written differently (1.50 and 1.5, 1e3 and 1000.0): value = 0.digits x 10^exp.
struct Decimal
{
    bool neg = false;
    std::string digits; ///< no leading or trailing zeros ("" for zero)
    long long exp = 0;
};

Decimal decimalOf(std::string_view s)
{
    Decimal d;
    std::size_t i = 0;
    if (i < s.size() && s[i] == '-') {
        d.neg = true;
        ++i;
    }
    long long pointAt = -1; // digits before the point
    long long count = 0;
    for (; i < s.size() && s[i] != 'e' && s[i] != 'E'; ++i) {
        if (s[i] == '.') {
            pointAt = count;
            continue;
        }
        d.digits += s[i];
        ++count;
    }
    if (pointAt < 0)
        pointAt = count;
    long long e = 0;
    if (i + 1 < s.size()) {
        const char *from = s.data() + i + 1;
        if (*from == '+')
            ++from;
        std::from_chars(from, s.data() + s.size(), e); // the caller checked the grammar
    }
    std::size_t lead = 0;
    while (lead < d.digits.size() && d.digits[lead] == '0')
        ++lead;
    d.digits.erase(0, lead);
    while (!d.digits.empty() && d.digits.back() == '0')
        d.digits.pop_back();
    d.exp = pointAt - static_cast<long long>(lead) + e;
    if (d.digits.empty())
        d.exp = 0;
    return d;
}

} // namespace

Value inferValue(std::string_view text)
{
    if (text.empty())
        return Value::null();
    if (text == "true")
        return Value::boolean(true);
    if (text == "false")
        return Value::boolean(false);
    const char c = text.front();
    if (c != '-' && (c < '0' || c > '9'))
        return Value::string(text);
    // A number only when it is JSON's spelling of one and keeps its value and digits: 02134,
    // 007, +5, .5, -0, 1e400 and ids of 20 digits stay strings (a zip code is not a number).
    const NumberCheck nc = checkJsonNumber(text);
    if (nc.length != text.size() || text == "-0")
        return Value::string(text);
    if (nc.kind == NumberCheck::Unsigned)
        return Value::raw(text); // 2^63 ... 2^64-1: exact digits, written back as they came
    if (nc.kind != NumberCheck::Ok)
        return Value::string(text);
    if (nc.isInteger) {
        std::int64_t i = 0;
        std::from_chars(text.data(), text.data() + text.size(), i);
        return Value::integer(i);
    }
    double d = 0;
    std::from_chars(text.data(), text.data() + text.size(), d);
    // Up to 15 digits and no exponent: a double keeps them all (DBL_DIG), nothing to compare.
    if (text.size() <= 17 && text.find_first_of("eE") == std::string_view::npos) {
        std::size_t digits = 0;
        for (char ch : text)
            digits += ch >= '0' && ch <= '9';
        if (digits <= 15)
            return Value::number(d);
    }
    char buf[32];
    auto r = std::to_chars(buf, buf + sizeof buf, d);
    const Decimal a = decimalOf(text);
    const Decimal b = decimalOf(std::string_view(buf, static_cast<std::size_t>(r.ptr - buf)));
    if (a.digits != b.digits || a.exp != b.exp || (a.neg != b.neg && !a.digits.empty()))
        return Value::string(text); // more digits than a double keeps
    return Value::number(d);
}

bool CsvReader::parse(std::string_view line, Record &out, std::string &error) const
{
    thread_local std::vector<std::string> cells;
    out.clear();
    if (!checkUtf8(line, error))
        return false;
    if (!split(line, cells, error))
        return false;
    if (cells.size() != m_columns.size()) {
        error = "expected " + std::to_string(m_columns.size()) + " cells, found "
                + std::to_string(cells.size());
        return false;
    }
    // Names are single keys, so they never nest into each other: append, unless the header
    // repeats a name (then the last cell wins, at the place of the first, as with JSON keys).
    for (std::size_t c = 0; c < cells.size(); ++c) {
        if (m_duplicateColumns)
            out.set(m_columns[c], inferValue(cells[c]));
        else
            out.append(m_columns[c], inferValue(cells[c]));
    }
    return true;
}

/// Whether a cell must be quoted for its bytes: one plain loop (find_first_of calls memchr over
/// the four characters for every byte of the cell: a third of a million-row CSV sink's time).
static bool needsCsvQuotes(std::string_view s)
{
    for (char c : s)
        if (c == ',' || c == '"' || c == '\n' || c == '\r')
            return true;
    return false;
}

static void appendCsvCell(std::string_view s, std::string &out, bool quote = false)
{
    if (!quote && !needsCsvQuotes(s)) {
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
    std::string key;
    for (std::size_t i = 0; i < columns.size(); ++i) {
        if (i)
            out += ',';
        // A top-level key is written as itself (`service.name` as service.name, as the CSV
        // reader reads it back); a nested field as its path (user.id).
        const std::string &c = columns[i];
        std::string_view cell = c;
        if (!c.empty() && c.front() == '`' && fieldpath::segmentEnd(c, 0) == c.size()) {
            key.clear();
            fieldpath::appendUnquoted(key, c);
            cell = key;
        }
        // A first name that starts with U+FEFF is quoted, or it would read as a byte order mark;
        // a single blank name too, or the header would be a blank line.
        appendCsvCell(cell, out,
                      (i == 0 && cell.substr(0, kUtf8Bom.size()) == kUtf8Bom)
                          || (columns.size() == 1
                              && cell.find_first_not_of(" \t\r") == std::string_view::npos));
    }
    out += '\n';
}

void appendCsvRow(const Record &record, const std::vector<std::string> &columns, std::string &out)
{
    std::string tmp;
    const std::size_t start = out.size();
    // Separators, integers and plain strings go into a buffer on the stack that is appended
    // once per row (or when full): appended cell by cell, every cell was a call of the string's
    // append and of memmove (a run writing 1.9M window results took 7 % less time without
    // them: docs/benchmarks.md, "Session 20"). Anything else is written to `out` as before,
    // after what the buffer holds.
    char row[512];
    std::size_t n = 0;
    auto flush = [&] {
        out.append(row, n);
        n = 0;
    };
    for (std::size_t i = 0; i < columns.size(); ++i) {
        if (n + 32 > sizeof row)
            flush(); // room for a separator and any integer
        if (i)
            row[n++] = ',';
        // Results usually carry their fields in column order: try the column's own position.
        int idx = -1;
        if (i < record.size() && record.nameAt(i) == columns[i])
            idx = static_cast<int>(i);
        else
            idx = record.indexOf(columns[i]);
        if (idx < 0)
            continue;
        Value v = record.valueAt(static_cast<std::size_t>(idx));
        switch (v.type) {
        case ValueType::Null:
            break;
        case ValueType::String:
            if (v.s.size() <= sizeof row - n && !needsCsvQuotes(v.s)) {
                std::memcpy(row + n, v.s.data(), v.s.size());
                n += v.s.size();
                break;
            }
            flush();
            appendCsvCell(v.s, out);
            break;
        case ValueType::Int:
            // appendJsonValue's text of an integer, which never needs quotes.
            n = static_cast<std::size_t>(std::to_chars(row + n, row + sizeof row, v.i).ptr - row);
            break;
        case ValueType::Bool:
        case ValueType::Double:
            // Their JSON text (digits, '-', '.', 'e', '+', letters) never needs quotes.
            flush();
            appendJsonValue(v, out);
            break;
        default:
            flush();
            tmp.clear();
            appendJsonValue(v, tmp);
            appendCsvCell(tmp, out);
        }
    }
    flush();
    // A row of one empty or blank cell would be a blank line, which readers skip: quote it.
    bool blank = true;
    for (std::size_t k = start; k < out.size() && blank; ++k)
        blank = out[k] == ' ' || out[k] == '\t' || out[k] == '\r';
    if (blank) {
        const std::string cell = out.substr(start);
        out.resize(start);
        appendCsvCell(cell, out, true);
    }
    out += '\n';
}

} // namespace tideline
