#pragma once
// Text of key field lists for operator descriptions and state fingerprints. Params are read
// with NodeParams (operators/params.hpp), which applies the catalog's defaults.

#include <string>
#include <vector>

namespace tideline::keys {

inline std::string joinList(const std::vector<std::string> &v)
{
    std::string s;
    for (const auto &x : v)
        s += (s.empty() ? "" : ",") + x;
    return s;
}

} // namespace tideline::keys
