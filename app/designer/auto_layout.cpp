#include "auto_layout.hpp"

#include "json_bridge.hpp"

#include <map>
#include <unordered_map>

namespace tideline::designer {

namespace {
constexpr double kColumnWidth = 280;
constexpr double kRowHeight = 180;
} // namespace

bool hasPosition(const NodeSpec &node)
{
    return node.ui.is_object() && node.ui.contains("x") && node.ui.contains("y")
           && node.ui["x"].is_number() && node.ui["y"].is_number();
}

QHash<QString, QPointF> layeredLayout(const PipelineSpec &spec)
{
    const std::size_t n = spec.nodes.size();
    std::unordered_map<std::string, std::size_t> index;
    for (std::size_t i = 0; i < n; ++i)
        index.emplace(spec.nodes[i].id, i);
    std::vector<std::vector<std::size_t>> out(n), in(n);
    for (const auto &e : spec.edges) {
        auto f = index.find(e.from.node), t = index.find(e.to.node);
        if (f != index.end() && t != index.end() && f->second != t->second) {
            out[f->second].push_back(t->second);
            in[t->second].push_back(f->second);
        }
    }
    // Kahn's algorithm for the longest-path depth; nodes on a cycle (invalid files) keep the
    // depth reached so far and are placed anyway.
    std::vector<int> depth(n, 0), pending(n);
    std::vector<std::size_t> order, queue;
    for (std::size_t i = 0; i < n; ++i) {
        pending[i] = int(in[i].size());
        if (pending[i] == 0)
            queue.push_back(i);
    }
    for (std::size_t q = 0; q < queue.size(); ++q) {
        const std::size_t u = queue[q];
        order.push_back(u);
        for (std::size_t v : out[u]) {
            depth[v] = std::max(depth[v], depth[u] + 1);
            if (--pending[v] == 0)
                queue.push_back(v);
        }
    }
    for (std::size_t i = 0; i < n; ++i)
        if (pending[i] > 0)
            order.push_back(i);

    // Row order: sources in file order; others by the mean row of their parents.
    std::map<int, std::vector<std::size_t>> columns;
    std::vector<double> row(n, 0);
    for (std::size_t u : order)
        columns[depth[u]];
    for (auto &[d, members] : columns) {
        for (std::size_t u : order)
            if (depth[u] == d)
                members.push_back(u);
        auto key = [&](std::size_t u) {
            if (in[u].empty())
                return double(u);
            double s = 0;
            for (std::size_t p : in[u])
                s += row[p];
            return s / double(in[u].size());
        };
        std::stable_sort(members.begin(), members.end(),
                         [&](std::size_t a, std::size_t b) { return key(a) < key(b); });
        for (std::size_t r = 0; r < members.size(); ++r)
            row[members[r]] = double(r);
    }
    // Centre each column vertically against the tallest one.
    std::size_t tallest = 0;
    for (const auto &[d, members] : columns)
        tallest = std::max(tallest, members.size());
    QHash<QString, QPointF> pos;
    for (const auto &[d, members] : columns) {
        const double offset = (double(tallest) - double(members.size())) * kRowHeight / 2;
        for (std::size_t r = 0; r < members.size(); ++r)
            pos.insert(qstr(spec.nodes[members[r]].id),
                       QPointF(40 + d * kColumnWidth, 40 + offset + double(r) * kRowHeight));
    }
    return pos;
}

void applyAutoLayout(PipelineSpec &spec, bool onlyMissing)
{
    bool any = false;
    for (const auto &node : spec.nodes)
        any = any || !hasPosition(node);
    if (onlyMissing && !any)
        return;
    const auto pos = layeredLayout(spec);
    for (auto &node : spec.nodes) {
        if (onlyMissing && hasPosition(node))
            continue;
        const QPointF p = pos.value(qstr(node.id));
        if (!node.ui.is_object())
            node.ui = Json::object();
        // Rounded to the canvas grid so that layouts stay tidy when nodes are moved later.
        node.ui["x"] = std::int64_t(std::lround(p.x() / 20) * 20);
        node.ui["y"] = std::int64_t(std::lround(p.y() / 20) * 20);
    }
}

} // namespace tideline::designer
