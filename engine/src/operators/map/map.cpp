// map: computes fields (`set`, in the order written: a later expression sees the fields set
// before it), then keeps only `keep` (when given) and removes `drop`.

#include "expr/schema.hpp"
#include "expr/validate_expr.hpp"
#include "operators/operators.hpp"
#include "operators/params.hpp"

#include <algorithm>

namespace tideline {

namespace {

struct Assignment
{
    StaticPath path; ///< interned once: records point at it instead of copying the name
    std::unique_ptr<expr::Expression> expr;
};

class MapOperator final : public Operator
{
public:
    MapOperator(std::vector<Assignment> set,
                std::vector<std::string> keep,
                std::vector<std::string> drop)
        : m_set(std::move(set))
        , m_keep(std::move(keep))
        , m_drop(std::move(drop))
    {
    }

    void processRecord(int, Record &&record, Output &out) override
    {
        for (const auto &a : m_set)
            record.set(a.path, a.expr->eval(record)); // set() copies bytes that point into record
        if (!m_keep.empty())
            record.keepOnly(m_keep, m_keepCache);
        for (const auto &d : m_drop)
            record.remove(d);
        out.emit(std::move(record));
    }

    void reportMetrics(observe::NodeMetrics &m) const override
    {
        for (const auto &a : m_set)
            m.errors += static_cast<std::int64_t>(a.expr->divisionsByZero());
    }

private:
    std::vector<Assignment> m_set;
    std::vector<std::string> m_keep;
    Record::KeepCache m_keepCache; ///< keep decisions per record shape (names by pointer)
    std::vector<std::string> m_drop;
};

// keep/drop: a list of field paths, or one path as a string (the catalog's shorthand).
std::vector<std::string> stringList(const Json &params, const char *name)
{
    static const NodeKind &map = *findNodeKind("map");
    return NodeParams(map, params).fieldList(name);
}

/// A field path written as a key of `set` (keys joined by dots, none empty; a key with a dot
/// in backticks: `service.name`): "" or what is wrong with it.
std::string pathProblem(const std::string &p)
{
    std::string canonical, error;
    if (!fieldpath::canonical(p, canonical, error))
        return error;
    for (const auto &k : fieldpath::keys(canonical))
        if (k.empty())
            return "an empty name (use names joined by single dots, e.g. user.country)";
    return {};
}

/// The canonical form of a path param (`a`.b is a.b), as records name fields.
std::string canonicalPath(const std::string &p)
{
    std::string canonical, error;
    return fieldpath::canonical(p, canonical, error) ? canonical : p;
}

std::vector<std::string> canonicalPaths(std::vector<std::string> paths)
{
    for (auto &p : paths)
        p = canonicalPath(p);
    return paths;
}

} // namespace

std::unique_ptr<Operator> makeMap(const OperatorContext &ctx)
{
    std::vector<Assignment> set;
    if (auto it = ctx.spec.params.find("set"); it != ctx.spec.params.end() && it->is_object())
        for (auto s = it->begin(); s != it->end(); ++s) {
            // References resolved as in filter (validation warns about them here).
            std::string text = ctx.resolve(s.value().get<std::string>());
            set.push_back({internPath(canonicalPath(s.key())),
                           expr::compileOrThrow("set." + s.key(), text, expr::Want::Anything)});
        }
    return std::make_unique<MapOperator>(std::move(set),
                                         canonicalPaths(stringList(ctx.spec.params, "keep")),
                                         canonicalPaths(stringList(ctx.spec.params, "drop")));
}

void validateMap(const NodeValidationContext &ctx)
{
    const NodeSpec &n = ctx.spec.nodes[static_cast<std::size_t>(ctx.nodeIndex)];
    auto known = expr::knownInputFields(ctx);
    bool any = false;
    if (auto it = n.params.find("set"); it != n.params.end() && it->is_object()) {
        for (auto s = it->begin(); s != it->end(); ++s) {
            any = true;
            std::string param = "set." + s.key();
            if (std::string why = pathProblem(s.key()); !why.empty()) {
                ctx.error(param, "'" + s.key() + "' is not a field path: " + why);
                continue;
            }
            if (!s.value().is_string()) {
                ctx.error(param, "must be an expression string, found " + s.value().dump());
                continue;
            }
            expr::checkExpression(ctx, param, s.value().get<std::string>(), expr::Want::Anything,
                                  known);
            if (known && !expr::fieldKnown(*known, s.key()))
                known->push_back(s.key()); // later expressions may read it
        }
    }
    auto keep = stringList(n.params, "keep");
    auto drop = stringList(n.params, "drop");
    any = any || !keep.empty() || !drop.empty();
    if (!any)
        ctx.warning("", "map has no `set`, `keep` or `drop`: it passes records unchanged");
    if (known) {
        for (const auto &k : keep)
            if (!expr::fieldKnown(*known, k))
                ctx.warning("keep", expr::unknownFieldMessage(*known, k));
        for (const auto &d : drop)
            if (!expr::fieldKnown(*known, d))
                ctx.warning("drop", expr::unknownFieldMessage(*known, d));
    }
    for (const auto &d : drop)
        if (std::find(keep.begin(), keep.end(), d) != keep.end())
            ctx.warning("drop", "'" + d + "' is both kept and dropped: it is dropped");
}

} // namespace tideline
