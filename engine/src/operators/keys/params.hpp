#pragma once
// Small readers of node params for the operator factories. Validation has already checked the
// types against the catalog, so these only pick values (with the kind's defaults when absent).

#include <tideline/engine/record.hpp>
#include <tideline/engine/spec.hpp>

#include <string>
#include <vector>

namespace tideline::keys {

/// A field path as records name it: `user`.id is user.id (fieldpath::canonical).
inline std::string fieldPathParam(const std::string &path)
{
    std::string canonical, error;
    return fieldpath::canonical(path, canonical, error) ? canonical : path;
}

/// A list of field paths (`key`, `left_key`, ...), each in canonical form.
inline std::vector<std::string> stringListParam(const Json &params, const char *name)
{
    std::vector<std::string> out;
    if (auto it = params.find(name); it != params.end()) {
        if (it->is_array()) {
            for (const auto &v : *it)
                if (v.is_string())
                    out.push_back(fieldPathParam(v.get<std::string>()));
        } else if (it->is_string()) {
            out.push_back(fieldPathParam(it->get<std::string>())); // one field as a string
        }
    }
    return out;
}

inline std::int64_t intParam(const Json &params, const char *name, std::int64_t fallback)
{
    if (auto it = params.find(name); it != params.end() && it->is_number())
        return it->get<std::int64_t>();
    return fallback;
}

inline std::string stringParam(const Json &params, const char *name, std::string fallback = {})
{
    if (auto it = params.find(name); it != params.end() && it->is_string())
        return it->get<std::string>();
    return fallback;
}

inline std::string joinList(const std::vector<std::string> &v)
{
    std::string s;
    for (const auto &x : v)
        s += (s.empty() ? "" : ",") + x;
    return s;
}

} // namespace tideline::keys
