#include "subgraph.hpp"

#include "auto_layout.hpp"
#include "json_bridge.hpp"

#include <cmath>
#include <map>

namespace tideline::designer {

PipelineSpec extractSubgraph(const PipelineSpec &spec, const QStringList &ids)
{
    PipelineSpec sub;
    sub.name = "clipboard";
    for (const auto &n : spec.nodes)
        if (ids.contains(qstr(n.id)))
            sub.nodes.push_back(n);
    for (const auto &e : spec.edges)
        if (ids.contains(qstr(e.from.node)) && ids.contains(qstr(e.to.node)))
            sub.edges.push_back(e);
    return sub;
}

std::string encodeSubgraph(const PipelineSpec &sub)
{
    return writeSpec(sub);
}

std::optional<PipelineSpec> decodeSubgraph(const std::string &text)
{
    LoadResult r = parseSpec(text);
    if (!r.spec || r.spec->nodes.empty())
        return std::nullopt;
    return r.spec;
}

PastePlan planPaste(const PipelineSpec &target, const PipelineSpec &sub, QPointF offset)
{
    PastePlan plan;
    std::map<std::string, std::string> rename;
    std::vector<std::string> taken;
    // Ids are generated against the target plus the ids already chosen for this paste.
    auto unique = [&](const std::string &base) {
        auto used = [&](const std::string &id) {
            return target.node(id) != nullptr
                   || std::find(taken.begin(), taken.end(), id) != taken.end();
        };
        if (!used(base))
            return base;
        std::string stem = base;
        if (auto us = stem.find_last_of('_');
            us != std::string::npos && us + 1 < stem.size()
            && std::all_of(stem.begin() + long(us) + 1, stem.end(), ::isdigit))
            stem.resize(us);
        for (int i = 2;; ++i)
            if (std::string c = stem + "_" + std::to_string(i); !used(c))
                return c;
    };
    for (const auto &n : sub.nodes) {
        NodeSpec copy = n;
        copy.id = unique(n.id);
        taken.push_back(copy.id);
        rename[n.id] = copy.id;
        if (hasPosition(copy)) {
            copy.ui["x"] = std::int64_t(std::lround(copy.ui["x"].get<double>() + offset.x()));
            copy.ui["y"] = std::int64_t(std::lround(copy.ui["y"].get<double>() + offset.y()));
        }
        plan.nodes.push_back(std::move(copy));
    }
    for (const auto &e : sub.edges) {
        auto f = rename.find(e.from.node), t = rename.find(e.to.node);
        if (f == rename.end() || t == rename.end())
            continue;
        plan.edges.push_back({{f->second, e.from.port}, {t->second, e.to.port}});
    }
    return plan;
}

} // namespace tideline::designer
