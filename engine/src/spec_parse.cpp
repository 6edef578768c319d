// Reading a pipeline file into a PipelineSpec: shape limits, the number pre-pass
// (spec_number_scan.hpp), the strict structure checks with their diagnostics, and loading from
// a file (which adds validate()'s diagnostics).
#include "spec_number_scan.hpp"

#include <tideline/engine/catalog.hpp>
#include <tideline/engine/spec.hpp>
#include <tideline/engine/validate.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <unordered_set>

namespace tideline {

std::string checkJsonShape(std::string_view text, std::size_t maxBytes, int maxDepth)
{
    if (text.size() > maxBytes)
        return "file too large: " + std::to_string(text.size()) + " bytes (limit "
               + std::to_string(maxBytes) + ")";
    // Keys per object are limited too: nlohmann's ordered objects find a key by a linear scan,
    // so an object of a million keys would take hours to read.
    constexpr std::size_t kMaxKeys = 10000;
    std::vector<std::size_t> keys; // per open container: keys so far (SIZE_MAX for arrays)
    int depth = 0;
    bool inString = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        if (inString) {
            if (c == '\\')
                ++i;
            else if (c == '"')
                inString = false;
            continue;
        }
        if (c == '"')
            inString = true;
        else if (c == '{' || c == '[') {
            if (++depth > maxDepth)
                return "nested deeper than " + std::to_string(maxDepth) + " levels (at byte "
                       + std::to_string(i) + ")";
            keys.push_back(c == '{' ? 0 : SIZE_MAX);
        } else if (c == '}' || c == ']') {
            --depth;
            if (!keys.empty())
                keys.pop_back();
        } else if (c == ':' && !keys.empty() && keys.back() != SIZE_MAX
                   && ++keys.back() > kMaxKeys) {
            return "an object with more than " + std::to_string(kMaxKeys) + " keys (at byte "
                   + std::to_string(i) + ")";
        }
    }
    return {};
}

namespace {

Diagnostic fileError(std::string path, std::string message)
{
    Diagnostic d;
    d.path = std::move(path);
    d.message = std::move(message);
    return d;
}

std::vector<std::string> keysOf(std::initializer_list<const char *> l)
{
    return {l.begin(), l.end()};
}

void unknownKey(std::vector<Diagnostic> &out,
                const std::string &path,
                const std::string &key,
                const std::vector<std::string> &valid,
                int nodeIndex = -1,
                const std::string &nodeId = {})
{
    Diagnostic d;
    d.nodeIndex = nodeIndex;
    d.nodeId = nodeId;
    d.path = path.empty() ? key : path + "." + key;
    std::string guess = closestMatch(key, valid);
    d.message = "unknown key `" + key + "`";
    if (!guess.empty())
        d.message += ": did you mean `" + guess + "`?";
    else {
        d.message += " (valid: ";
        for (std::size_t i = 0; i < valid.size(); ++i)
            d.message += (i ? ", " : "") + valid[i];
        d.message += ")";
    }
    out.push_back(d);
}

std::pair<int, int> lineColumn(std::string_view text, std::size_t byte)
{
    int line = 1, col = 1;
    for (std::size_t i = 0; i < byte && i < text.size(); ++i) {
        if (text[i] == '\n') {
            ++line;
            col = 1;
        } else
            ++col;
    }
    return {line, col};
}

using detail::NumberScan;

} // namespace

LoadResult parseSpec(std::string_view text, ParseLimits limits)
{
    LoadResult r;
    if (auto shape = checkJsonShape(text, limits.maxBytes, limits.maxDepth); !shape.empty()) {
        r.diagnostics.push_back(fileError("", shape));
        return r;
    }
    {
        NumberScan scan(text);
        Json::sax_parse(text, &scan);
        if (scan.problem) {
            r.diagnostics.push_back(*scan.problem);
            return r;
        }
        r.diagnostics = std::move(scan.warnings);
    }
    Json root;
    try {
        root = Json::parse(text);
    } catch (const Json::parse_error &e) {
        auto [line, col] = lineColumn(text, e.byte > 0 ? e.byte - 1 : 0);
        std::string msg = e.what();
        if (auto p = msg.find("parse error"); p != std::string::npos)
            msg = msg.substr(p);
        r.diagnostics.push_back(fileError("", "invalid JSON at line " + std::to_string(line)
                                                  + ", column " + std::to_string(col) + ": "
                                                  + msg));
        return r;
    } catch (const Json::exception &e) { // never expected after the scan; loading never throws
        r.diagnostics.push_back(fileError("", std::string("cannot read the file: ") + e.what()));
        return r;
    }
    if (!root.is_object()) {
        r.diagnostics.push_back(fileError("", "the pipeline must be a JSON object"));
        return r;
    }
    auto &diags = r.diagnostics;
    const auto topKeys
        = keysOf({"format", "name", "description", "settings", "nodes", "edges", "ui"});
    PipelineSpec spec;
    bool shapeOk = true;
    for (auto it = root.begin(); it != root.end(); ++it)
        if (std::find(topKeys.begin(), topKeys.end(), it.key()) == topKeys.end())
            unknownKey(diags, "", it.key(), topKeys);

    if (!root.contains("format"))
        diags.push_back(fileError("format", "missing; add \"format\": \"tideline/1\""));
    else if (!root["format"].is_string() || root["format"].get<std::string>() != kFormatV1)
        diags.push_back(fileError("format", "unsupported format " + root["format"].dump()
                                                + "; this version reads \"tideline/1\""));
    else
        spec.format = root["format"].get<std::string>();

    auto readString = [&](const char *key, std::string &dst) {
        if (!root.contains(key))
            return;
        if (root[key].is_string())
            dst = root[key].get<std::string>();
        else
            diags.push_back(fileError(key, "must be a string"));
    };
    readString("name", spec.name);
    readString("description", spec.description);
    if (root.contains("settings")) {
        if (root["settings"].is_object())
            spec.settings = root["settings"];
        else
            diags.push_back(fileError("settings", "must be an object"));
    }
    if (root.contains("ui"))
        spec.ui = root["ui"];

    if (!root.contains("nodes") || !root["nodes"].is_array()) {
        diags.push_back(fileError("nodes", root.contains("nodes")
                                               ? "must be an array of nodes"
                                               : "missing; add \"nodes\": [...]"));
        shapeOk = false;
    } else {
        const auto nodeKeys = keysOf({"id", "kind", "params", "ui"});
        int i = 0;
        for (const auto &jn : root["nodes"]) {
            std::string path = "nodes[" + std::to_string(i) + "]";
            NodeSpec n;
            if (!jn.is_object()) {
                diags.push_back(fileError(path, "must be an object {id, kind, params}"));
                shapeOk = false;
                ++i;
                continue;
            }
            if (jn.contains("id") && jn["id"].is_string())
                n.id = jn["id"].get<std::string>();
            for (auto it = jn.begin(); it != jn.end(); ++it)
                if (std::find(nodeKeys.begin(), nodeKeys.end(), it.key()) == nodeKeys.end())
                    unknownKey(diags, path, it.key(), nodeKeys, i, n.id);
            auto nodeErr = [&](const std::string &sub, const std::string &msg) {
                Diagnostic d;
                d.nodeIndex = i;
                d.nodeId = n.id;
                d.path = path + "." + sub;
                d.message = msg;
                diags.push_back(d);
            };
            if (!jn.contains("id"))
                nodeErr("id", "missing; every node needs a unique id");
            else if (!jn["id"].is_string())
                nodeErr("id", "must be a string");
            if (!jn.contains("kind"))
                nodeErr("kind", "missing; e.g. \"kind\": \"window\"");
            else if (!jn["kind"].is_string())
                nodeErr("kind", "must be a string");
            else
                n.kind = jn["kind"].get<std::string>();
            if (jn.contains("params")) {
                if (jn["params"].is_object())
                    n.params = jn["params"];
                else
                    nodeErr("params", "must be an object");
            }
            if (jn.contains("ui"))
                n.ui = jn["ui"];
            spec.nodes.push_back(std::move(n));
            ++i;
        }
    }

    if (root.contains("edges")) {
        if (!root["edges"].is_array()) {
            diags.push_back(fileError("edges", "must be an array of {\"from\": \"node.port\", "
                                               "\"to\": \"node.port\"}"));
            shapeOk = false;
        } else {
            int i = 0;
            for (const auto &je : root["edges"]) {
                std::string path = "edges[" + std::to_string(i++) + "]";
                if (!je.is_object()) {
                    diags.push_back(fileError(path, "must be an object {from, to}"));
                    continue;
                }
                const auto edgeKeys = keysOf({"from", "to"});
                for (auto it = je.begin(); it != je.end(); ++it)
                    if (std::find(edgeKeys.begin(), edgeKeys.end(), it.key()) == edgeKeys.end())
                        unknownKey(diags, path, it.key(), edgeKeys);
                EdgeSpec e;
                bool good = true;
                for (const char *end : {"from", "to"}) {
                    if (!je.contains(end) || !je[end].is_string()) {
                        diags.push_back(
                            fileError(path + "." + end, "must be a string \"node.port\""));
                        good = false;
                        continue;
                    }
                    auto ep = Endpoint::parse(je[end].get<std::string>());
                    if (!ep) {
                        diags.push_back(fileError(
                            path + "." + end, "`" + je[end].get<std::string>()
                                                  + "` is not \"node.port\" (e.g. \"wm.out\")"));
                        good = false;
                        continue;
                    }
                    (std::string_view(end) == "from" ? e.from : e.to) = *ep;
                }
                if (good)
                    spec.edges.push_back(std::move(e));
            }
        }
    }
    if (shapeOk)
        r.spec = std::move(spec);
    return r;
}

namespace {

LoadResult loadSpecIn(std::string_view text, ParseLimits limits, const std::string &baseDir)
{
    LoadResult r = parseSpec(text, limits);
    if (r.spec) {
        auto more = validate(*r.spec, baseDir);
        r.diagnostics.insert(r.diagnostics.end(), more.begin(), more.end());
    }
    return r;
}

} // namespace

LoadResult loadSpec(std::string_view text, ParseLimits limits)
{
    return loadSpecIn(text, limits, std::string());
}

LoadResult loadSpecFile(const std::string &path, ParseLimits limits)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        LoadResult r;
        r.diagnostics.push_back(fileError("", "cannot open " + path + ": " + std::strerror(errno)));
        return r;
    }
    in.seekg(0, std::ios::end);
    auto size = static_cast<std::size_t>(in.tellg());
    if (size > limits.maxBytes) {
        LoadResult r;
        r.diagnostics.push_back(fileError("", "file too large: " + std::to_string(size)
                                                  + " bytes (limit "
                                                  + std::to_string(limits.maxBytes) + ")"));
        return r;
    }
    in.seekg(0);
    std::string text(size, '\0');
    in.read(text.data(), static_cast<std::streamsize>(size));
    // Paths are compared as the runner resolves them: against the file's folder.
    std::error_code ec;
    std::string base = std::filesystem::absolute(path, ec).parent_path().string();
    return loadSpecIn(text, limits, ec ? std::string() : base);
}

} // namespace tideline
