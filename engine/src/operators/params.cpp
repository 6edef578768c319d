// NodeParams: reading a node's params with the catalog's defaults (see params.hpp).

#include "operators/params.hpp"

#include <tideline/engine/operator.hpp>
#include <tideline/engine/record.hpp>
#include <tideline/engine/validate.hpp>

#include <stdexcept>

namespace tideline {

namespace {

const Json &nullJson()
{
    static const Json null;
    return null;
}

const Json &emptyObject()
{
    static const Json empty = Json::object();
    return empty;
}

std::string canonicalPath(const std::string &path)
{
    std::string canonical, error;
    return fieldpath::canonical(path, canonical, error) ? canonical : path;
}

} // namespace

NodeParams::NodeParams(const NodeKind &kind, const Json &params)
    : NodeParams(kind.kind, kind.params, params)
{
}

NodeParams::NodeParams(const OperatorContext &ctx)
    : NodeParams(ctx.kind, ctx.spec.params)
{
}

namespace {
const NodeKind &kindOf(const NodeValidationContext &ctx)
{
    const std::string &name = ctx.spec.nodes[static_cast<std::size_t>(ctx.nodeIndex)].kind;
    if (const NodeKind *k = findNodeKind(name))
        return *k;
    throw std::logic_error("unknown kind `" + name + "`");
}
} // namespace

NodeParams::NodeParams(const NodeValidationContext &ctx)
    : NodeParams(kindOf(ctx), ctx.spec.nodes[static_cast<std::size_t>(ctx.nodeIndex)].params)
{
}

NodeParams::NodeParams(std::string_view owner,
                       const std::vector<ParamDesc> &descs,
                       const Json &params)
    : m_owner(owner)
    , m_descs(&descs)
    , m_params(params.is_object() ? &params : &emptyObject())
{
}

const ParamDesc &NodeParams::desc(std::string_view name) const
{
    for (const auto &d : *m_descs)
        if (d.name == name)
            return d;
    throw std::logic_error("`" + std::string(m_owner) + "` declares no param `" + std::string(name)
                           + "`");
}

template<typename Ok>
const Json *NodeParams::pick(std::string_view name, Ok ok) const
{
    const ParamDesc &d = desc(name);
    if (auto it = m_params->find(name); it != m_params->end() && ok(*it))
        return &*it;
    return ok(d.defaultValue) ? &d.defaultValue : nullptr;
}

bool NodeParams::has(std::string_view name) const
{
    desc(name);
    auto it = m_params->find(name);
    return it != m_params->end() && !it->is_null();
}

std::int64_t NodeParams::integer(std::string_view name) const
{
    const Json *v = pick(name, [](const Json &j) { return j.is_number_integer(); });
    return v ? v->get<std::int64_t>() : 0;
}

double NodeParams::number(std::string_view name) const
{
    const Json *v = pick(name, [](const Json &j) { return j.is_number(); });
    return v ? v->get<double>() : 0.0;
}

bool NodeParams::boolean(std::string_view name) const
{
    const Json *v = pick(name, [](const Json &j) { return j.is_boolean(); });
    return v ? v->get<bool>() : false;
}

std::string NodeParams::string(std::string_view name) const
{
    const Json *v = pick(name, [](const Json &j) { return j.is_string(); });
    return v ? v->get<std::string>() : std::string();
}

std::vector<std::string> NodeParams::fieldList(std::string_view name) const
{
    const Json *v = pick(name, [](const Json &j) { return j.is_array() || j.is_string(); });
    std::vector<std::string> out;
    if (!v)
        return out;
    if (v->is_string()) {
        out.push_back(canonicalPath(v->get<std::string>())); // one field as a string
        return out;
    }
    for (const auto &f : *v)
        if (f.is_string())
            out.push_back(canonicalPath(f.get<std::string>()));
    return out;
}

NodeParams NodeParams::object(std::string_view name) const
{
    const ParamDesc &d = desc(name);
    auto it = m_params->find(name);
    return NodeParams(d.name, d.fields,
                      it != m_params->end() && it->is_object() ? *it : emptyObject());
}

const Json &NodeParams::json(std::string_view name) const
{
    const ParamDesc &d = desc(name);
    if (auto it = m_params->find(name); it != m_params->end() && !it->is_null())
        return *it;
    return d.defaultValue.is_null() ? nullJson() : d.defaultValue;
}

} // namespace tideline
