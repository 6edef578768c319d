#pragma once
// Defining a node kind. Each kind has one file next to its operator (window_kind.cpp,
// kafka_kind.cpp, ...) with a function returning its KindDef: the catalog entry (ports,
// param descriptors, traits) and its implementation (factory, validator, pitfall rules).
// kind_list.cpp lists those functions once, in palette order; the catalog (nodeKinds()) and
// findKindImpl() are built from that list, so adding a kind is one file and one line there.
//
// The builders below read like the descriptor they make:
//   range(def(p("size_ms", ParamType::Int, "Window length."), 1000), 1)

#include "operators/operators.hpp"

#include <tideline/engine/catalog.hpp>

#include <optional>
#include <string>
#include <vector>

namespace tideline {

struct KindDef
{
    NodeKind desc;
    KindImpl impl;
};

/// Every kind's definition, in palette order, with time params bounded (kind_list.cpp).
const std::vector<KindDef> &kindDefs();

namespace describe {

inline ParamDesc p(std::string name, ParamType type, std::string help)
{
    ParamDesc d;
    d.name = std::move(name);
    d.type = type;
    d.help = std::move(help);
    d.references = type == ParamType::Path; // a path may come from the environment
    return d;
}
/// A connection setting or secret: ${env:…}/${file:…} references are resolved in it.
inline ParamDesc refs(ParamDesc d)
{
    d.references = true;
    return d;
}
/// A file the node reads when it starts.
inline ParamDesc input(ParamDesc d)
{
    d.input = true;
    return d;
}
inline ParamDesc req(ParamDesc d)
{
    d.required = true;
    return d;
}
inline ParamDesc def(ParamDesc d, Json v)
{
    d.defaultValue = std::move(v);
    return d;
}
inline ParamDesc
range(ParamDesc d, std::optional<double> lo, std::optional<double> hi = std::nullopt)
{
    d.min = lo;
    d.max = hi;
    return d;
}
inline ParamDesc choices(ParamDesc d, std::vector<std::string> c)
{
    d.choices = std::move(c);
    return d;
}
inline ParamDesc fields(ParamDesc d, std::vector<ParamDesc> f)
{
    d.fields = std::move(f);
    return d;
}

inline PortDesc data(std::string name, bool multi = false)
{
    return {std::move(name), PortRole::Data, multi};
}
inline PortDesc late()
{
    return {"late", PortRole::Late, false};
}
inline PortDesc errors()
{
    return {"errors", PortRole::Errors, false};
}

/// `pace` of the sources that can replay slower than flat out (generator, file, Nexmark).
ParamDesc paceParam();

} // namespace describe

} // namespace tideline
