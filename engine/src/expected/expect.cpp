// Expected outputs: preparing the run, reading back what the sinks wrote, comparing with or
// writing the expected folder, and the runner's report (see expected_outputs.hpp).

#include "operators/params.hpp"

#include <tideline/engine/catalog.hpp>
#include <tideline/engine/expected_outputs.hpp>
#include <tideline/engine/upsert_table.hpp>

#include <filesystem>
#include <fstream>
#include <ostream>
#include <set>
#include <sstream>

namespace tideline::expected {

namespace fs = std::filesystem;

std::string unboundedSource(const NodeSpec &n)
{
    const NodeKind *kind = findNodeKind(n.kind);
    if (!kind || !kind->isSource)
        return {};
    const NodeParams params(*kind, n.params);
    if (kind->readsTopic && kind->param("bounded") && !params.boolean("bounded"))
        return "params.bounded is not true (set \"bounded\": true to read up to the end offsets "
               "seen at start)";
    if (kind->param("count") && kind->param("count")->type == ParamType::Int
        && params.integer("count") == 0)
        return "params.count is 0 (unbounded; give it a count)";
    return {};
}

namespace {

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

std::string
prepare(PipelineSpec &spec,
        const std::string &tempDir,
        const std::string &caller,
        Plan &plan,
        bool inputBoundedByCaller)
{
    for (const auto &n : spec.nodes)
        if (std::string why = inputBoundedByCaller ? std::string() : unboundedSource(n);
            !why.empty())
            return caller + " needs bounded inputs, but source `" + n.id + "` (" + n.kind
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
            plan.unchecked.push_back("sink `" + n.id + "` (" + n.kind
                                     + ") is not checked: " + caller
                                     + " compares sinks that write files, upsert tables or the "
                                       "console");
            continue;
        }
        plan.captures.push_back(std::move(c));
    }
    if (plan.captures.empty())
        return caller
               + ": the pipeline has no sink whose output can be compared (sink.file, "
                 "sink.console or sink.upsert)";
    return {};
}

std::vector<SinkOutput> readOutputs(const Plan &plan)
{
    std::vector<SinkOutput> outputs;
    outputs.reserve(plan.captures.size());
    for (const auto &c : plan.captures) {
        SinkOutput o;
        if (c.table) {
            std::ostringstream rows;
            if (!dumpUpsertTable(c.capturedPath, rows, o.error))
                o.error = "cannot read the table this run wrote: " + o.error;
            else
                o.lines = splitLines(rows.str());
        } else {
            bool ok = false;
            o.lines = readLines(c.capturedPath, ok); // no file: the sink wrote nothing
        }
        outputs.push_back(std::move(o));
    }
    return outputs;
}

bool Report::passed() const
{
    for (const auto &s : sinks)
        if (s.status != SinkStatus::Ok && s.status != SinkStatus::Written)
            return false;
    return update || staleFiles.empty();
}

namespace {

/// The sinks' results without their verdict (shared by compare() and write()), and the files
/// in the folder that name no sink.
Report startReport(const Plan &plan, const std::string &expectedDir, bool update)
{
    Report r;
    r.update = update;
    r.expectedDir = expectedDir;
    r.unchecked = plan.unchecked;
    for (const auto &c : plan.captures) {
        SinkResult s;
        s.sinkId = c.sinkId;
        s.kind = c.kind;
        s.expectedPath = (fs::path(expectedDir) / c.expectedName).lexically_normal().string();
        s.producer = c.identity.producer;
        r.sinks.push_back(std::move(s));
    }
    return r;
}

void findStaleFiles(const Plan &plan, Report &r)
{
    std::set<std::string> names;
    for (const auto &c : plan.captures)
        names.insert(c.expectedName);
    std::error_code ec; // no folder: nothing stale
    for (const auto &entry : fs::directory_iterator(r.expectedDir, ec))
        if (entry.is_regular_file() && !names.count(entry.path().filename().string()))
            r.staleFiles.push_back(entry.path().string());
}

} // namespace

Report compare(const Plan &plan, const std::vector<SinkOutput> &outputs, const std::string &dir)
{
    Report r = startReport(plan, dir, false);
    for (std::size_t i = 0; i < plan.captures.size() && i < outputs.size(); ++i) {
        const SinkCapture &c = plan.captures[i];
        const SinkOutput &o = outputs[i];
        SinkResult &s = r.sinks[i];
        if (!o.error.empty()) {
            s.status = SinkStatus::Error;
            s.error = o.error;
            continue;
        }
        s.actualRows = o.lines.size();
        bool found = false;
        const std::vector<std::string> expected = readLines(s.expectedPath, found);
        if (!found) {
            s.status = SinkStatus::Missing;
            continue;
        }
        s.expectedRows = expected.size();
        SinkDiff d = diffOutputs(expected, o.lines, c.identity, c.jsonLines);
        if (d.equal) {
            s.status = SinkStatus::Ok;
            ++r.matching;
            continue;
        }
        s.status = SinkStatus::Fail;
        s.missing = d.missing;
        s.extra = d.extra;
        s.different = d.different;
        s.orderOnly = d.orderOnly;
        s.findings = std::move(d.findings);
    }
    findStaleFiles(plan, r);
    return r;
}

Report write(const Plan &plan, const std::vector<SinkOutput> &outputs, const std::string &dir)
{
    Report r = startReport(plan, dir, true);
    std::error_code ec;
    fs::create_directories(dir, ec);
    for (std::size_t i = 0; i < plan.captures.size() && i < outputs.size(); ++i) {
        const SinkOutput &o = outputs[i];
        SinkResult &s = r.sinks[i];
        if (!o.error.empty()) {
            s.status = SinkStatus::Error;
            s.error = o.error;
            continue;
        }
        s.actualRows = o.lines.size();
        std::ofstream f(s.expectedPath, std::ios::binary | std::ios::trunc);
        for (const auto &line : o.lines)
            f << line << '\n';
        if (!f) {
            s.status = SinkStatus::Error;
            s.error = "cannot write " + s.expectedPath;
            continue;
        }
        s.status = SinkStatus::Written;
        s.expectedRows = s.actualRows;
    }
    findStaleFiles(plan, r);
    return r;
}

void printReport(const Report &r, std::ostream &out)
{
    for (const auto &s : r.sinks) {
        out << "sink " << s.sinkId << ": ";
        switch (s.status) {
        case SinkStatus::Error:
            out << s.error << "\n";
            break;
        case SinkStatus::Written:
            out << "wrote " << s.expectedPath << " (" << s.actualRows << " rows)\n";
            break;
        case SinkStatus::Missing:
            out << "FAIL: no expected output " << s.expectedPath
                << " (run with --update-expected to write it from this run)\n";
            break;
        case SinkStatus::Ok:
            out << "ok (" << s.actualRows << " rows equal " << s.expectedPath << ")\n";
            break;
        case SinkStatus::Fail:
            out << "FAIL against " << s.expectedPath << " (rows from "
                << (s.producer.empty() ? std::string("its input") : s.producer) << "): ";
            if (s.orderOnly)
                out << "the same " << s.actualRows << " rows in another order\n";
            else
                out << s.missing << " missing, " << s.extra << " extra, " << s.different
                    << " different (expected " << s.expectedRows << " rows, got " << s.actualRows
                    << ")\n";
            for (const auto &f : s.findings)
                out << "  " << f.text << "\n";
            break;
        }
    }
    for (const auto &u : r.unchecked)
        out << u << "\n";
    for (const auto &path : r.staleFiles)
        out << (r.update ? "note: " : "FAIL: ") << path
            << " matches no sink of this pipeline (a renamed or removed sink?): delete it\n";
    if (!r.update)
        out << (r.passed()
                    ? "expected outputs: all " + std::to_string(r.matching) + " sink(s) match\n"
                    : std::string("expected outputs: DIFFERENT\n"));
}

} // namespace tideline::expected
