// A sweep's table in three formats: text for people (aligned columns), CSV and JSON for tools.
// One list of columns (metricColumns) so the three never disagree on names or order.

#include <tideline/engine/sweep.hpp>

#include <algorithm>
#include <cstdio>
#include <ostream>

namespace tideline::sweep {

namespace {

std::string valueText(const Json &v)
{
    return v.is_string() ? v.get<std::string>() : v.dump();
}

std::string number(double v, int decimals)
{
    if (v == static_cast<double>(static_cast<std::int64_t>(v)))
        return std::to_string(static_cast<std::int64_t>(v));
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

/// The metric cells of a row, in metricColumns() order ("" for what is not known).
std::vector<std::string> metricCells(const Row &r)
{
    char completeness[32];
    std::snprintf(completeness, sizeof completeness, "%.4f", r.completeness);
    return {std::to_string(r.lateDropped),
            std::to_string(r.lateAccepted),
            std::to_string(r.results),
            completeness,
            r.latencyP50Ms ? number(*r.latencyP50Ms, 1) : "",
            r.latencyP99Ms ? number(*r.latencyP99Ms, 1) : "",
            std::to_string(r.peakStateEntries),
            std::to_string(r.peakStateBytes)};
}

std::string csvCell(const std::string &s)
{
    if (s.find_first_of(",\"\n\r") == std::string::npos)
        return s;
    std::string q = "\"";
    for (char c : s)
        q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
}

void writeText(const Result &result, std::ostream &out)
{
    std::vector<std::string> header = result.axes;
    for (const auto &c : metricColumns())
        header.push_back(c);
    std::vector<std::vector<std::string>> cells;
    for (const auto &r : result.rows) {
        std::vector<std::string> line;
        for (const auto &v : r.values)
            line.push_back(valueText(v));
        if (r.error.empty())
            for (auto &c : metricCells(r))
                line.push_back(c.empty() ? "-" : c);
        cells.push_back(std::move(line));
    }
    std::vector<std::size_t> width(header.size());
    for (std::size_t k = 0; k < header.size(); ++k)
        width[k] = header[k].size();
    for (const auto &line : cells)
        for (std::size_t k = 0; k < line.size(); ++k)
            width[k] = std::max(width[k], line[k].size());
    auto print = [&](const std::vector<std::string> &line, const std::string &tail) {
        for (std::size_t k = 0; k < line.size(); ++k) {
            // Values left-aligned, figures right-aligned (they compare by magnitude).
            const std::string pad(width[k] - line[k].size(), ' ');
            out << (k ? "  " : "") << (k < result.axes.size() ? line[k] + pad : pad + line[k]);
        }
        out << tail << "\n";
    };
    print(header, "");
    for (std::size_t i = 0; i < cells.size(); ++i)
        print(cells[i], result.rows[i].error.empty() ? "" : "  failed: " + result.rows[i].error);
}

void writeCsv(const Result &result, std::ostream &out)
{
    std::string line;
    for (const auto &a : result.axes)
        line += csvCell(a) + ",";
    for (const auto &c : metricColumns())
        line += c + ",";
    out << line << "error\n";
    for (const auto &r : result.rows) {
        line.clear();
        for (const auto &v : r.values)
            line += csvCell(valueText(v)) + ",";
        for (const auto &c : metricCells(r))
            line += (r.error.empty() ? c : std::string()) + ",";
        out << line << csvCell(r.error) << "\n";
    }
}

void writeJson(const Result &result, std::ostream &out)
{
    Json doc = Json::object();
    doc["axes"] = result.axes;
    doc["cancelled"] = result.cancelled;
    doc["wall_ms"] = result.wallMs;
    Json rows = Json::array();
    for (const auto &r : result.rows) {
        Json row = Json::object();
        Json values = Json::object();
        for (std::size_t k = 0; k < r.values.size() && k < result.axes.size(); ++k)
            values[result.axes[k]] = r.values[k];
        row["values"] = std::move(values);
        if (!r.error.empty()) {
            row["error"] = r.error;
        } else {
            row["input_records"] = r.inputRecords;
            row["late_dropped"] = r.lateDropped;
            row["late_accepted"] = r.lateAccepted;
            row["results"] = r.results;
            row["results_at_end"] = r.resultsAtEnd;
            row["completeness"] = r.completeness;
            row["latency_p50_ms"] = r.latencyP50Ms ? Json(*r.latencyP50Ms) : Json();
            row["latency_p99_ms"] = r.latencyP99Ms ? Json(*r.latencyP99Ms) : Json();
            row["peak_state_entries"] = r.peakStateEntries;
            row["peak_state_bytes"] = r.peakStateBytes;
            row["wall_ms"] = r.wallMs;
        }
        rows.push_back(std::move(row));
    }
    doc["rows"] = std::move(rows);
    out << doc.dump(2) << "\n";
}

} // namespace

const std::vector<std::string> &metricColumns()
{
    static const std::vector<std::string> columns = {
        "late_dropped",   "late_accepted",      "results",         "completeness", "latency_p50_ms",
        "latency_p99_ms", "peak_state_entries", "peak_state_bytes"};
    return columns;
}

std::optional<Format> parseFormat(std::string_view name)
{
    if (name == "text")
        return Format::Text;
    if (name == "csv")
        return Format::Csv;
    if (name == "json")
        return Format::Json;
    return std::nullopt;
}

void write(const Result &result, Format format, std::ostream &out)
{
    switch (format) {
    case Format::Text:
        writeText(result, out);
        break;
    case Format::Csv:
        writeCsv(result, out);
        break;
    case Format::Json:
        writeJson(result, out);
        break;
    }
}

} // namespace tideline::sweep
