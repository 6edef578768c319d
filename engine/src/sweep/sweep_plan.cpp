// A sweep's plan: the axes (NODE.PARAM and typed values) read against the pipeline and the
// catalog, the combinations, and each combination written into a copy of the spec.
//
// A value is typed here, once, like the param it goes into (an Int param takes "5000", not
// "5s"; an Enum one of its choices), so a typo fails before any run starts, with the node, the
// param and what to write instead — not as 16 identical validation errors afterwards.

#include <tideline/engine/catalog.hpp>
#include <tideline/engine/expected_outputs.hpp>
#include <tideline/engine/record_json.hpp>
#include <tideline/engine/sweep.hpp>

#include <charconv>
#include <cmath>
#include <cstdlib>

namespace tideline::sweep {

namespace {

std::string joined(const std::vector<std::string> &words)
{
    std::string s;
    for (const auto &w : words)
        s += (s.empty() ? "" : ", ") + w;
    return s;
}

std::string formatBound(double v)
{
    Json j
        = v == std::floor(v) && std::abs(v) < 9e15 ? Json(static_cast<std::int64_t>(v)) : Json(v);
    return j.dump();
}

/// The value `text` as param `d` takes it, or an error (what is wrong and what fits).
std::string typed(const ParamDesc &d, const std::string &text, Json &out)
{
    switch (d.type) {
    case ParamType::Int: {
        std::int64_t v = 0;
        auto r = std::from_chars(text.data(), text.data() + text.size(), v);
        if (r.ec != std::errc() || r.ptr != text.data() + text.size())
            return "`" + text + "` is not an integer (" + d.name + " is a whole number"
                   + (d.name.size() > 3 && d.name.ends_with("_ms") ? " of milliseconds" : "") + ")";
        out = v;
        break;
    }
    case ParamType::Number: {
        char *end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(v))
            return "`" + text + "` is not a number";
        out = v;
        break;
    }
    case ParamType::Bool:
        if (text != "true" && text != "false")
            return "`" + text + "` is not true or false";
        out = text == "true";
        return {};
    case ParamType::Enum:
        for (const auto &c : d.choices)
            if (c == text) {
                out = text;
                return {};
            }
        return "`" + text + "` is not one of " + joined(d.choices);
    case ParamType::String:
    case ParamType::Path:
    case ParamType::Expr:
        out = text;
        return {};
    default:
        return std::string("a sweep sets params of type int, number, bool, string, enum, path "
                           "or expression; ")
               + d.name + " is a " + paramTypeName(d.type);
    }
    const double v = out.get<double>();
    if ((d.min && v < *d.min) || (d.max && v > *d.max))
        return "`" + text + "` is out of range (" + d.name + " takes "
               + (d.min && d.max ? formatBound(*d.min) + " to " + formatBound(*d.max)
                  : d.min        ? "at least " + formatBound(*d.min)
                                 : "at most " + formatBound(*d.max))
               + ")";
    return {};
}

} // namespace

std::size_t Plan::combinations() const
{
    if (axes.empty())
        return 0;
    std::size_t n = 1;
    for (const auto &a : axes)
        n *= a.values.size();
    return n;
}

std::vector<Json> Plan::valuesOf(std::size_t index) const
{
    std::vector<Json> values(axes.size());
    for (std::size_t k = axes.size(); k-- > 0;) {
        values[k] = axes[k].values[index % axes[k].values.size()];
        index /= axes[k].values.size();
    }
    return values;
}

std::string makeAxis(const PipelineSpec &spec,
                     const std::string &node,
                     const std::string &param,
                     const std::vector<std::string> &values,
                     Axis &out)
{
    const std::string what = node + "." + param;
    const int index = spec.nodeIndex(node);
    if (index < 0) {
        // The guess is among the nodes that have such a param, if any does.
        std::vector<std::string> ids, withParam;
        for (const auto &n : spec.nodes) {
            ids.push_back(n.id);
            if (const NodeKind *k = findNodeKind(n.kind); k && k->param(param))
                withParam.push_back(n.id);
        }
        std::string guess = closestMatch(node, withParam);
        if (guess.empty())
            guess = closestMatch(node, ids);
        return "--sweep " + what + ": the pipeline has no node `" + node + "`"
               + (guess.empty() ? "" : "; did you mean `" + guess + "." + param + "`?")
               + " (its nodes: " + joined(ids) + ")";
    }
    const NodeSpec &n = spec.nodes[static_cast<std::size_t>(index)];
    const NodeKind *kind = findNodeKind(n.kind);
    if (kind == nullptr)
        return "--sweep " + what + ": node `" + node + "` has the unknown kind `" + n.kind + "`";
    const ParamDesc *desc = kind->param(param);
    if (desc == nullptr) {
        std::vector<std::string> names;
        for (const auto &p : kind->params)
            names.push_back(p.name);
        const std::string guess = closestMatch(param, names);
        return "--sweep " + what + ": node `" + node + "` (" + n.kind + ") has no param `" + param
               + "`" + (guess.empty() ? "" : "; did you mean `" + node + "." + guess + "`?")
               + " (its params: " + joined(names) + ")";
    }
    if (desc->secret)
        return "--sweep " + what + ": " + param + " is a secret; a sweep does not set secrets";
    if (values.empty())
        return "--sweep " + what + ": no values; write " + what + "=V1,V2,...";
    Axis axis;
    axis.node = node;
    axis.param = param;
    for (const auto &text : values) {
        if (text.empty())
            return "--sweep " + what + ": an empty value (two commas, or one at the end)";
        // A pipeline file is UTF-8 JSON: a value that is not would make the combination's
        // pipeline unwritable (found by the sweep_axis fuzz harness).
        if (const std::size_t bad = invalidUtf8At(text); bad != std::string_view::npos)
            return "--sweep " + what + ": a value is not UTF-8 text (byte " + std::to_string(bad)
                   + "); write it as UTF-8";
        Json v;
        if (std::string e = typed(*desc, text, v); !e.empty())
            return "--sweep " + what + "=" + text + ": " + e;
        for (const auto &seen : axis.values)
            if (seen == v)
                return "--sweep " + what + ": the value " + text + " is listed twice";
        axis.values.push_back(std::move(v));
    }
    out = std::move(axis);
    return {};
}

std::string parseAxis(std::string_view text, const PipelineSpec &spec, Axis &out)
{
    const auto eq = text.find('=');
    const std::string_view target = text.substr(0, eq);
    // Param names have no dot; node ids may: the param is after the last dot.
    const auto dot = target.rfind('.');
    if (eq == std::string_view::npos || dot == std::string_view::npos || dot == 0
        || dot + 1 == target.size())
        return "--sweep " + std::string(text)
               + ": expected NODE.PARAM=V1,V2,... (for example --sweep "
                 "event_time.max_out_of_orderness_ms=0,5000,10000)";
    std::vector<std::string> values;
    std::string_view rest = text.substr(eq + 1);
    while (true) {
        const auto comma = rest.find(',');
        values.emplace_back(rest.substr(0, comma));
        if (comma == std::string_view::npos)
            break;
        rest.remove_prefix(comma + 1);
    }
    if (values.size() == 1 && values[0].empty())
        values.clear();
    return makeAxis(spec, std::string(target.substr(0, dot)), std::string(target.substr(dot + 1)),
                    values, out);
}

std::string addAxis(Plan &plan, Axis axis)
{
    for (const auto &a : plan.axes)
        if (a.node == axis.node && a.param == axis.param)
            return "--sweep " + axis.label()
                   + " is given twice; list all its values in one "
                     "--sweep "
                   + axis.label() + "=V1,V2,...";
    std::size_t n = axis.values.size();
    for (const auto &a : plan.axes)
        n *= a.values.size();
    if (n > kMaxCombinations)
        return "--sweep: " + std::to_string(n) + " combinations is more than "
               + std::to_string(kMaxCombinations) + "; sweep fewer values";
    plan.axes.push_back(std::move(axis));
    return {};
}

PipelineSpec apply(const PipelineSpec &spec, const Plan &plan, std::size_t index)
{
    PipelineSpec copy = spec;
    const std::vector<Json> values = plan.valuesOf(index);
    for (std::size_t k = 0; k < plan.axes.size(); ++k) {
        const int n = copy.nodeIndex(plan.axes[k].node);
        if (n >= 0)
            copy.nodes[static_cast<std::size_t>(n)].params[plan.axes[k].param] = values[k];
    }
    return copy;
}

std::string checkBounded(const PipelineSpec &spec, const std::string &caller)
{
    for (const auto &n : spec.nodes)
        if (std::string why = expected::unboundedSource(n); !why.empty())
            return caller
                   + " needs a bounded input (a file, a generator with a count, a bounded "
                     "Kafka read or a recording), but source `"
                   + n.id + "` (" + n.kind + ") would run forever: " + why;
    return {};
}

} // namespace tideline::sweep
