#pragma once
// The one reader of a node's params: each value as the kind's descriptor types it, and the
// catalog's default (ParamDesc::defaultValue) when the param is absent, null or of the wrong
// type. Operator factories read their params through it, so a default is written once, in
// the kind's descriptor; validation's pitfall rules read other nodes' params through it too.
//
// It never fails: validation has checked the params against the descriptors before a run
// builds an operator, and pitfall rules read params whether or not they passed (a value of the
// wrong type reads as the default). Asking for a param the kind does not declare is a
// programming error (std::logic_error), so a misspelt name cannot silently read a default.

#include <tideline/engine/catalog.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tideline {

struct OperatorContext;
struct NodeValidationContext;

class NodeParams
{
public:
    NodeParams(const NodeKind &kind, const Json &params);
    /// It keeps a reference to the params: never to a temporary.
    NodeParams(const NodeKind &kind, Json &&params) = delete;
    explicit NodeParams(const OperatorContext &ctx);
    /// The params of the node a per-kind validator checks (its kind is known: validate()
    /// calls validators of known kinds only).
    explicit NodeParams(const NodeValidationContext &ctx);

    /// Given in the file (present and not null).
    bool has(std::string_view name) const;
    /// An integer (a JSON number without fraction); otherwise the default, or 0 without one.
    std::int64_t integer(std::string_view name) const;
    /// Any JSON number; otherwise the default, or 0.
    double number(std::string_view name) const;
    /// true/false; otherwise the default, or false.
    bool boolean(std::string_view name) const;
    /// A string (an enum, path or expression too); otherwise the default, or "".
    std::string string(std::string_view name) const;
    /// A list of field paths, each in canonical form (`user`.id is user.id); one field may be
    /// written as a string. Non-string entries are skipped. Otherwise the default, or [].
    std::vector<std::string> fieldList(std::string_view name) const;
    /// An Object param (pace, disorder): its fields read the same way, with their defaults.
    NodeParams object(std::string_view name) const;
    /// The param's JSON as given, or its default (null without one): for StringMap/ExprMap.
    const Json &json(std::string_view name) const;

private:
    NodeParams(std::string_view owner, const std::vector<ParamDesc> &descs, const Json &params);
    const ParamDesc &desc(std::string_view name) const;
    /// The given value when `ok` accepts it, else the descriptor's default when `ok` accepts
    /// that, else nullptr.
    template<typename Ok>
    const Json *pick(std::string_view name, Ok ok) const;

    std::string_view m_owner; ///< the kind (and object param) named in a logic_error
    const std::vector<ParamDesc> *m_descs;
    const Json *m_params;
};

} // namespace tideline
