#include "operators/enrich/enrich_table.hpp"

#include <tideline/engine/record_json.hpp>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

namespace tideline::enrich {

namespace {

bool readFile(const std::string &path, std::string &out, std::string &error)
{
    std::unique_ptr<std::FILE, int (*)(std::FILE *)> f(std::fopen(path.c_str(), "rb"),
                                                       &std::fclose);
    if (!f) {
        error = "cannot open table " + path + ": " + std::strerror(errno);
        return false;
    }
    out.clear();
    char buf[1 << 16];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f.get())) > 0)
        out.append(buf, n);
    if (std::ferror(f.get())) {
        error = "cannot read table " + path + ": " + std::strerror(errno);
        return false;
    }
    return true;
}

} // namespace

TableFormat tableFormat(const std::string &param, const std::string &path)
{
    if (param == "csv")
        return TableFormat::Csv;
    if (param == "jsonl")
        return TableFormat::Jsonl;
    auto dot = path.rfind('.');
    std::string ext = dot == std::string::npos ? "" : path.substr(dot + 1);
    for (char &c : ext)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return ext == "csv" ? TableFormat::Csv : TableFormat::Jsonl;
}

bool Table::load(const std::string &path,
                 TableFormat format,
                 const std::string &keyColumn,
                 std::string &error)
{
    m_rows.clear();
    m_index.clear();
    m_bytes = 0;
    std::string text;
    if (!readFile(path, text, error))
        return false;
    RecordParser json;
    CsvReader csv;
    bool haveHeader = false;
    std::string keyBytes, lineError;
    Record row;
    std::size_t pos = 0;
    std::size_t lineNo = 0;
    auto where = [&]() {
        return path + ":" + std::to_string(lineNo) + ": ";
    };
    while (pos < text.size()) {
        std::size_t end = text.find('\n', pos);
        if (end == std::string::npos)
            end = text.size();
        std::string_view line(text.data() + pos, end - pos);
        pos = end + 1;
        ++lineNo;
        if (!line.empty() && line.back() == '\r')
            line.remove_suffix(1);
        if (line.find_first_not_of(" \t") == std::string_view::npos)
            continue; // blank lines (a trailing newline, spacing) carry no row
        if (format == TableFormat::Csv) {
            if (!haveHeader) {
                if (!csv.setHeader(line, lineError)) {
                    error = where() + "bad CSV header: " + lineError;
                    return false;
                }
                bool found = false;
                for (const auto &c : csv.columns())
                    found = found || c == keyColumn;
                if (!found) {
                    std::string cols;
                    for (const auto &c : csv.columns())
                        cols += (cols.empty() ? "" : ", ") + c;
                    error = where() + "the header has no column '" + keyColumn
                            + "' (table_key); columns: " + cols;
                    return false;
                }
                haveHeader = true;
                continue;
            }
            if (!csv.parse(line, row, lineError)) {
                error = where() + lineError;
                return false;
            }
        } else if (!json.parse(line, row, lineError)) {
            error = where() + lineError;
            return false;
        }
        Value key = row.get(keyColumn);
        if (key.isNull()) {
            error = where() + "the row has no value in '" + keyColumn + "' (table_key)";
            return false;
        }
        keys::KeyEncoder::encodeOne(key, keyBytes);
        const auto [e, inserted]
            = m_index.tryEmplace(keyBytes, static_cast<std::uint32_t>(m_rows.size()));
        const std::uint32_t at = m_index.entry(e).value;
        if (inserted) {
            m_bytes += row.byteSize() + keyBytes.size() + 64;
            m_rows.push_back(std::move(row));
        } else {
            m_bytes += row.byteSize();
            m_bytes -= m_rows[at].byteSize();
            m_rows[at] = std::move(row); // a later row for a key replaces the earlier
        }
        row = Record();
    }
    if (format == TableFormat::Csv && !haveHeader) {
        error = path + ": the table is empty (a CSV table needs a header line)";
        return false;
    }
    return true;
}

} // namespace tideline::enrich
