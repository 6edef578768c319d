#include "expect.hpp"

#include <tideline/engine/upsert_table.hpp>

#include <filesystem>
#include <fstream>
#include <ostream>
#include <set>
#include <sstream>

namespace tideline::runner {

namespace fs = std::filesystem;

namespace {

std::string unboundedSource(const NodeSpec &n)
{
    if (n.kind == "source.kafka" && !n.params.value("bounded", false))
        return "params.bounded is not true (set \"bounded\": true to read up to the end offsets "
               "seen at start)";
    if ((n.kind == "source.generator" || n.kind == "source.nexmark") && n.params.contains("count")
        && n.params["count"].is_number_integer() && n.params["count"].get<long long>() == 0)
        return "params.count is 0 (unbounded; give it a count)";
    return {};
}

/// What a sink's rows are, from the edges into it: a window's rows are named by its key and
/// bounds; anything else (or a mix of producers) by the whole row.
RowIdentity identityOf(const PipelineSpec &spec, const std::string &sinkId)
{
    std::set<std::pair<std::string, std::string>> from;
    for (const auto &e : spec.edges)
        if (e.to.node == sinkId)
            from.insert({e.from.node, e.from.port});
    RowIdentity id;
    if (from.size() != 1) {
        id.producer = std::to_string(from.size()) + " inputs";
        return id;
    }
    const auto &[node, port] = *from.begin();
    const int index = spec.nodeIndex(node);
    if (index < 0)
        return id;
    const NodeSpec &n = spec.nodes[static_cast<std::size_t>(index)];
    if (port != "out") {
        id.producer = "the `" + port + "` port of `" + node + "`";
        return id;
    }
    id.producer = n.kind + " `" + node + "`";
    if (n.kind == "window") {
        if (auto k = n.params.find("key"); k != n.params.end() && k->is_array())
            for (const auto &f : *k)
                if (f.is_string())
                    id.fields.push_back(f.get<std::string>());
        id.fields.push_back("window_start");
        id.fields.push_back("window_end");
    }
    return id;
}

std::vector<std::string> readLines(const std::string &path, bool &ok)
{
    std::ifstream in(path, std::ios::binary);
    ok = static_cast<bool>(in);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);)
        lines.push_back(line);
    return lines;
}

std::vector<std::string> splitLines(const std::string &text)
{
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        lines.push_back(line);
    return lines;
}

} // namespace

std::string prepareExpect(PipelineSpec &spec,
                          const std::string &tempDir,
                          std::vector<SinkCapture> &captures,
                          std::vector<std::string> &unchecked)
{
    for (const auto &n : spec.nodes)
        if (std::string why = unboundedSource(n); !why.empty())
            return "--expect needs bounded inputs, but source `" + n.id + "` (" + n.kind
                   + ") would run forever: " + why;
    const fs::path tmp(tempDir);
    if (auto it = spec.settings.find("checkpoint"); it != spec.settings.end() && it->is_object())
        (*it)["dir"] = (tmp / "checkpoints").string();
    for (auto &n : spec.nodes) {
        if (n.kind.rfind("sink.", 0) != 0)
            continue;
        SinkCapture c;
        c.sinkId = n.id;
        c.kind = n.kind;
        c.identity = identityOf(spec, n.id);
        if (n.kind == "sink.file" || n.kind == "sink.console") {
            c.jsonLines = n.params.value("format", std::string("jsonl")) != "csv";
            c.expectedName = n.id + (c.jsonLines ? ".jsonl" : ".csv");
            c.capturedPath = (tmp / "out" / c.expectedName).string();
            if (n.kind == "sink.console") {
                // Captured as the JSON lines it would print: the same writer as sink.file's.
                n.kind = "sink.file";
                n.params = Json::object();
            }
            n.params["path"] = c.capturedPath;
        } else if (n.kind == "sink.upsert") {
            c.table = true;
            c.expectedName = n.id + ".jsonl";
            c.capturedPath = (tmp / "out" / (n.id + ".table")).string();
            n.params["path"] = c.capturedPath;
        } else {
            unchecked.push_back("sink `" + n.id + "` (" + n.kind
                                + ") is not checked: --expect compares sinks that write files, "
                                  "upsert tables or the console");
            continue;
        }
        captures.push_back(std::move(c));
    }
    if (captures.empty())
        return "--expect: the pipeline has no sink whose output can be compared (sink.file, "
               "sink.console or sink.upsert)";
    return {};
}

int checkExpected(const std::vector<SinkCapture> &captures,
                  const std::vector<std::string> &unchecked,
                  const std::string &expectedDir,
                  bool update,
                  std::ostream &out)
{
    std::error_code ec;
    if (update)
        fs::create_directories(expectedDir, ec);
    int status = 0, matching = 0;
    std::set<std::string> names;
    for (const auto &c : captures) {
        names.insert(c.expectedName);
        std::vector<std::string> actual;
        if (c.table) {
            std::ostringstream rows;
            std::string error;
            if (!dumpUpsertTable(c.capturedPath, rows, error)) {
                out << "sink " << c.sinkId << ": cannot read the table this run wrote: " << error
                    << "\n";
                status = 1;
                continue;
            }
            actual = splitLines(rows.str());
        } else {
            bool ok = false;
            actual = readLines(c.capturedPath, ok); // no file: the sink wrote nothing
        }
        const fs::path expectedPath = (fs::path(expectedDir) / c.expectedName).lexically_normal();
        if (update) {
            std::ofstream f(expectedPath, std::ios::binary | std::ios::trunc);
            for (const auto &line : actual)
                f << line << '\n';
            if (!f) {
                out << "sink " << c.sinkId << ": cannot write " << expectedPath.string() << "\n";
                status = 1;
                continue;
            }
            out << "sink " << c.sinkId << ": wrote " << expectedPath.string() << " ("
                << actual.size() << " rows)\n";
            continue;
        }
        bool found = false;
        std::vector<std::string> expected = readLines(expectedPath.string(), found);
        if (!found) {
            out << "sink " << c.sinkId << ": FAIL: no expected output " << expectedPath.string()
                << " (run with --update-expected to write it from this run)\n";
            status = 1;
            continue;
        }
        SinkDiff d = diffOutputs(expected, actual, c.identity, c.jsonLines);
        if (d.equal) {
            ++matching;
            out << "sink " << c.sinkId << ": ok (" << actual.size() << " rows equal "
                << expectedPath.string() << ")\n";
            continue;
        }
        status = 1;
        out << "sink " << c.sinkId << ": FAIL against " << expectedPath.string() << " (rows from "
            << (c.identity.producer.empty() ? std::string("its input") : c.identity.producer)
            << "): ";
        if (d.orderOnly)
            out << "the same " << actual.size() << " rows in another order\n";
        else
            out << d.missing << " missing, " << d.extra << " extra, " << d.different
                << " different (expected " << expected.size() << " rows, got " << actual.size()
                << ")\n";
        for (const auto &line : d.lines)
            out << "  " << line << "\n";
    }
    for (const auto &u : unchecked)
        out << u << "\n";
    // An expected file that names no sink is a stale expectation (a renamed or removed sink):
    // a check fails on it rather than pass silently; an update leaves it (it never deletes a
    // file it did not write) and says so.
    for (const auto &entry : fs::directory_iterator(expectedDir, ec)) {
        const std::string name = entry.path().filename().string();
        if (entry.is_regular_file() && !names.count(name)) {
            out << (update ? "note: " : "FAIL: ") << entry.path().string()
                << " matches no sink of this pipeline (a renamed or removed sink?): delete it\n";
            if (!update)
                status = 1;
        }
    }
    if (!update)
        out << (status == 0
                    ? "expected outputs: all " + std::to_string(matching) + " sink(s) match\n"
                    : std::string("expected outputs: DIFFERENT\n"));
    return status;
}

} // namespace tideline::runner
