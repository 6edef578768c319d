// Validation of the graph against the contract's rules (ids, kinds, ports, single inputs, DAG,
// event time), running each kind's own checks: params against its descriptors
// (validate_params.cpp), its validator and its pitfall rules (<kind>_kind.cpp); settings in
// validate_params.cpp too. The graph index, the pitfall rules' context and the designer's
// one-edge check are validate_graph.cpp.

#include "operators/operators.hpp"
#include "semantics/semantics.hpp"
#include "operators/params.hpp"
#include "path_conflicts.hpp"
#include "validate_params.hpp"

#include <tideline/engine/catalog.hpp>
#include <tideline/engine/validate.hpp>

#include <algorithm>
#include <map>
#include <regex>
#include <set>

namespace tideline {

namespace {
const std::regex &idPattern()
{
    static const std::regex re("^[A-Za-z_][A-Za-z0-9_-]*$");
    return re;
}

} // namespace

std::vector<Diagnostic> validate(const PipelineSpec &spec)
{
    return validate(spec, std::string());
}

std::vector<Diagnostic> validate(const PipelineSpec &spec, const std::string &baseDir)
{
    std::vector<Diagnostic> out;
    const std::size_t n = spec.nodes.size();
    std::vector<const NodeKind *> kinds(n, nullptr);
    auto fileErr = [&](const std::string &path, const std::string &msg) {
        Diagnostic d;
        d.path = path;
        d.message = msg;
        out.push_back(d);
    };

    checkSettings(spec.settings, out);
    semantics::checkSemanticsGraph(spec, out); // what the selected engine has no equivalent for

    // --- nodes: ids, kinds, params ---
    std::map<std::string, int> firstIndex;
    std::vector<std::string> allKinds;
    for (const auto &k : nodeKinds())
        allKinds.push_back(k.kind);
    const SpecGraph graph(spec);
    for (std::size_t i = 0; i < n; ++i) {
        const NodeSpec &node = spec.nodes[i];
        NodeValidationContext ctx{spec, static_cast<int>(i), out, &graph};
        auto nodeErr = [&](const std::string &field, const std::string &msg) {
            Diagnostic d;
            d.nodeIndex = static_cast<int>(i);
            d.nodeId = node.id;
            d.path = "nodes[" + std::to_string(i) + "]." + field;
            d.message = msg;
            out.push_back(d);
        };
        if (!node.id.empty() && !std::regex_match(node.id, idPattern()))
            nodeErr("id", "`" + node.id
                              + "` is not a valid id: use letters, digits, _ and -, starting with "
                                "a letter or _");
        if (!node.id.empty()) {
            auto [it, fresh] = firstIndex.emplace(node.id, static_cast<int>(i));
            if (!fresh)
                nodeErr("id", "duplicate id (also nodes[" + std::to_string(it->second)
                                  + "]); ids must be unique");
        }
        const NodeKind *kind = findNodeKind(node.kind);
        if (!kind) {
            if (!node.kind.empty()) {
                auto guess = closestMatch(node.kind, allKinds);
                nodeErr("kind", "unknown kind `" + node.kind + "`"
                                    + (guess.empty() ? "" : ": did you mean `" + guess + "`?"));
            }
            continue;
        }
        kinds[i] = kind;
        if (!findKindImpl(kind->kind))
            nodeErr("kind", "`" + kind->kind + "` is not available in this build");
        const std::size_t firstOwn = out.size();
        checkParams(ctx, kind->params, node.params);
        // Per-kind semantics see only the params that have the right shape (the others are
        // reported above), so every problem shows at once: a missing `aggregates` does not
        // hide that a tumbling window also lacks `size_ms`.
        std::set<std::string> malformed;
        for (std::size_t d = firstOwn; d < out.size(); ++d)
            if (out[d].isError() && !out[d].param.empty())
                malformed.insert(out[d].param.substr(0, out[d].param.find_first_of(".[")));
        if (const KindImpl *impl = findKindImpl(kind->kind); impl && impl->validate) {
            if (malformed.empty())
                impl->validate(ctx);
            else if (node.params.is_object()) {
                PipelineSpec shaped = spec;
                Json &params = shaped.nodes[i].params;
                for (const auto &name : malformed)
                    params.erase(name);
                std::vector<Diagnostic> more;
                NodeValidationContext sub{shaped, static_cast<int>(i), more};
                try {
                    impl->validate(sub);
                } catch (const std::exception &) {
                    more.clear(); // a semantic check that needs the params right: later
                }
                for (auto &d : more) {
                    const std::string top = d.param.substr(0, d.param.find_first_of(".["));
                    // Params removed above are already reported: no second, guessed problem
                    // about them, nor about the node as a whole (it lacks them only here).
                    if (!d.param.empty() && !malformed.count(top))
                        out.push_back(std::move(d));
                }
            }
        }
    }

    // --- edges ---
    std::vector<std::vector<int>> outEdges(n), inEdges(n);
    std::map<std::string, int> inputTaken;
    std::map<std::string, int> edgeSeen; // "from->to": the first edge that made it
    for (std::size_t e = 0; e < spec.edges.size(); ++e) {
        const EdgeSpec &edge = spec.edges[e];
        std::string path = "edges[" + std::to_string(e) + "]";
        int fi = graph.nodeIndex(edge.from.node), ti = graph.nodeIndex(edge.to.node);
        bool ok = true;
        if (fi < 0) {
            fileErr(path + ".from", "dangling edge: there is no node `" + edge.from.node + "`");
            ok = false;
        }
        if (ti < 0) {
            fileErr(path + ".to", "dangling edge: there is no node `" + edge.to.node + "`");
            ok = false;
        }
        if (!ok)
            continue;
        const NodeKind *fk = kinds[static_cast<std::size_t>(fi)];
        const NodeKind *tk = kinds[static_cast<std::size_t>(ti)];
        if (!fk || !tk) {
            // A node of unknown kind is already reported; keep the edge for connectivity.
            outEdges[static_cast<std::size_t>(fi)].push_back(static_cast<int>(e));
            inEdges[static_cast<std::size_t>(ti)].push_back(static_cast<int>(e));
            continue;
        }
        if (!fk->output(edge.from.port)) {
            std::vector<std::string> names;
            for (const auto &p : fk->outputs)
                names.push_back(p.name);
            std::string msg = fk->input(edge.from.port)
                                  ? "`" + edge.from.str()
                                        + "` is an input port; edges go from an output to an input"
                                  : "`" + edge.from.node + "` (" + fk->kind
                                        + ") has no output port `" + edge.from.port + "`";
            auto guess = closestMatch(edge.from.port, names);
            if (!guess.empty() && !fk->input(edge.from.port))
                msg += ": did you mean `" + guess + "`?";
            fileErr(path + ".from", msg);
            continue;
        }
        const PortDesc *ip = tk->input(edge.to.port);
        if (!ip) {
            std::vector<std::string> names;
            for (const auto &p : tk->inputs)
                names.push_back(p.name);
            std::string msg
                = tk->output(edge.to.port)
                      ? "`" + edge.to.str() + "` is an output port; edges go into an input port"
                      : "`" + edge.to.node + "` (" + tk->kind + ") has no input port `"
                            + edge.to.port + "`";
            auto guess = closestMatch(edge.to.port, names);
            if (!guess.empty() && !tk->output(edge.to.port))
                msg += ": did you mean `" + guess + "`?";
            fileErr(path + ".to", msg);
            continue;
        }
        if (auto [it, fresh]
            = edgeSeen.emplace(edge.from.str() + "->" + edge.to.str(), static_cast<int>(e));
            !fresh) {
            // A second identical edge would deliver every record twice.
            fileErr(path, "duplicate edge: `" + edge.from.str() + "` -> `" + edge.to.str()
                              + "` is already edges[" + std::to_string(it->second)
                              + "]; each record would arrive twice: remove one");
            continue;
        }
        if (!ip->multi) {
            auto [it, fresh] = inputTaken.emplace(edge.to.str(), static_cast<int>(e));
            if (!fresh) {
                fileErr(path + ".to", "`" + edge.to.str() + "` already has an input (edges["
                                          + std::to_string(it->second)
                                          + "]); it accepts one stream");
                continue;
            }
        }
        outEdges[static_cast<std::size_t>(fi)].push_back(static_cast<int>(e));
        inEdges[static_cast<std::size_t>(ti)].push_back(static_cast<int>(e));
    }

    // --- cycles (Kahn) ---
    std::vector<int> indeg(n, 0);
    for (std::size_t i = 0; i < n; ++i)
        indeg[i] = static_cast<int>(inEdges[i].size());
    std::vector<int> order, ready;
    for (std::size_t i = 0; i < n; ++i)
        if (indeg[i] == 0)
            ready.push_back(static_cast<int>(i));
    while (!ready.empty()) {
        int v = ready.back();
        ready.pop_back();
        order.push_back(v);
        for (int e : outEdges[static_cast<std::size_t>(v)]) {
            int t = graph.nodeIndex(spec.edges[static_cast<std::size_t>(e)].to.node);
            if (--indeg[static_cast<std::size_t>(t)] == 0)
                ready.push_back(t);
        }
    }
    bool acyclic = order.size() == n;
    if (!acyclic) {
        std::string members;
        for (std::size_t i = 0; i < n; ++i)
            if (indeg[i] > 0)
                members += (members.empty() ? "`" : ", `") + spec.nodes[i].id + "`";
        fileErr("edges",
                "the graph has a cycle through " + members + "; pipelines must be acyclic");
    }

    auto nodeDiag
        = [&](std::size_t i, const std::string &field, const std::string &msg, bool warning) {
              Diagnostic d;
              d.severity = warning ? Diagnostic::Severity::Warning : Diagnostic::Severity::Error;
              d.nodeIndex = static_cast<int>(i);
              d.nodeId = spec.nodes[i].id;
              d.path = "nodes[" + std::to_string(i) + "]" + (field.empty() ? "" : "." + field);
              if (field.rfind("params.", 0) == 0)
                  d.param = field.substr(7);
              d.message = msg;
              out.push_back(d);
          };

    // --- inputs connected, outputs used ---
    for (std::size_t i = 0; i < n; ++i) {
        const NodeKind *k = kinds[i];
        if (!k)
            continue;
        for (const auto &port : k->inputs) {
            bool has = std::any_of(inEdges[i].begin(), inEdges[i].end(), [&](int e) {
                return spec.edges[static_cast<std::size_t>(e)].to.port == port.name;
            });
            if (!has)
                nodeDiag(i, "",
                         "input `" + port.name
                             + "` is not connected; connect an upstream node's output to `"
                             + spec.nodes[i].id + "." + port.name + "`",
                         false);
        }
        for (const auto &port : k->outputs) {
            bool used = std::any_of(outEdges[i].begin(), outEdges[i].end(), [&](int e) {
                return spec.edges[static_cast<std::size_t>(e)].from.port == port.name;
            });
            if (used)
                continue;
            if (port.role == PortRole::Late)
                nodeDiag(i, "",
                         "`late` is not connected: late records will be dropped, counted (connect "
                         "it to a sink to keep them)",
                         true);
            else if (port.role == PortRole::Errors)
                nodeDiag(i, "",
                         "`errors` is not connected: malformed records will be dropped, counted "
                         "(connect it to a sink to keep them)",
                         true);
            else if (port.role == PortRole::Data && !k->isSink)
                nodeDiag(i, "",
                         "output `" + port.name + "` is not connected: its records go nowhere",
                         true);
        }
    }

    if (!acyclic)
        return out;

    // --- event time: every path into a window/dedup/join passes a watermark node ---
    // timed[i]: records leaving node i (on data/late ports) carry event time.
    auto upstream = [&](std::size_t i) {
        std::vector<std::pair<int, std::string>> ups; // (node, from-port)
        for (int e : inEdges[i]) {
            const auto &edge = spec.edges[static_cast<std::size_t>(e)];
            ups.emplace_back(graph.nodeIndex(edge.from.node), edge.from.port);
        }
        return ups;
    };
    std::vector<char> timed(n, 0);
    for (int v : order) {
        auto i = static_cast<std::size_t>(v);
        const NodeKind *k = kinds[i];
        if (!k)
            continue;
        if (k->assignsEventTime) {
            timed[i] = 1;
            continue;
        }
        if (k->isSource)
            continue;
        auto ups = upstream(i);
        bool all = !ups.empty();
        for (auto &[u, port] : ups) {
            const NodeKind *uk = kinds[static_cast<std::size_t>(u)];
            bool t = timed[static_cast<std::size_t>(u)] && uk
                     && !(uk->assignsEventTime && port == "errors");
            all = all && t;
        }
        timed[i] = all;
        if (k->needsEventTime && !all && !ups.empty())
            nodeDiag(i, "",
                     "`" + k->kind
                         + "` needs event time, but an input does not pass a `watermark` node; add "
                           "a watermark node between the source and `"
                         + spec.nodes[i].id + "`",
                     false);
    }

    // --- pitfalls: each kind's own rules (KindImpl::pitfalls) ---
    // The nearest upstream watermark node and source (first found walking up, depth first in
    // edge order), computed once per node in topological order: a recursive walk per node was
    // exponential on diamonds and overflowed the stack on a 150,000-node chain.
    std::vector<int> nearestWatermark(n, -1), nearestSource(n, -1);
    for (int v : order) {
        auto i = static_cast<std::size_t>(v);
        for (auto &[u, port] : upstream(i)) {
            auto ui = static_cast<std::size_t>(u);
            if (nearestWatermark[i] < 0)
                nearestWatermark[i]
                    = kinds[ui] && kinds[ui]->assignsEventTime ? u : nearestWatermark[ui];
            if (nearestSource[i] < 0)
                nearestSource[i] = kinds[ui] && kinds[ui]->isSource ? u : nearestSource[ui];
        }
    }
    // Appending sinks (that cannot take updates) reached from each node that forwards updates,
    // computed once in reverse topological order (a walk per window was quadratic).
    std::vector<std::vector<int>> forwardedSinks(n);
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        auto v = static_cast<std::size_t>(*it);
        if (!kinds[v] || !kinds[v]->forwardsUpdates)
            continue;
        std::vector<int> reach;
        for (int e : outEdges[v]) {
            const auto &edge = spec.edges[static_cast<std::size_t>(e)];
            auto t = static_cast<std::size_t>(graph.nodeIndex(edge.to.node));
            const NodeKind *tk = kinds[t];
            if (!tk)
                continue;
            if (tk->isSink && !tk->acceptsUpdates)
                reach.push_back(static_cast<int>(t));
            else if (tk->forwardsUpdates)
                reach.insert(reach.end(), forwardedSinks[t].begin(), forwardedSinks[t].end());
        }
        std::sort(reach.begin(), reach.end());
        reach.erase(std::unique(reach.begin(), reach.end()), reach.end());
        forwardedSinks[v] = std::move(reach);
    }
    for (std::size_t i = 0; i < n; ++i) {
        if (!kinds[i])
            continue;
        const KindImpl *impl = findKindImpl(kinds[i]->kind);
        if (!impl || !impl->pitfalls)
            continue;
        impl->pitfalls(PitfallContext{spec, graph, kinds, i, nearestWatermark, nearestSource,
                                      forwardedSinks, outEdges, out});
    }

    // A sink over its own input, two sinks on one file, checkpoints over a node's file.
    PathCheckOptions paths;
    paths.baseDir = baseDir;
    checkPathConflicts(spec, paths, out);

    std::stable_sort(out.begin(), out.end(), [](const Diagnostic &a, const Diagnostic &b) {
        if (a.nodeIndex != b.nodeIndex)
            return a.nodeIndex < b.nodeIndex;
        return a.isError() && !b.isError();
    });
    return out;
}

} // namespace tideline
