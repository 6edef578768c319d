// Resolution of ${env:…} / ${file:…} references, and OperatorContext::resolve / path. The
// contract lets any string param hold one; validation warns where the catalog does not mark a
// param as meant for references (an expression, a computed field), since that is how a
// pipeline file could copy a file or a variable into its output.

#include "runtime/references.hpp"

#include <tideline/engine/operator.hpp>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace tideline {

namespace refs {

bool containsReference(std::string_view text)
{
    return text.find("${env:") != std::string_view::npos
           || text.find("${file:") != std::string_view::npos;
}

std::string resolveReferences(const std::string &value)
{
    std::string out;
    std::size_t pos = 0;
    while (true) {
        std::size_t start = value.find("${", pos);
        if (start == std::string::npos) {
            out += value.substr(pos);
            return out;
        }
        std::size_t end = value.find('}', start);
        if (end == std::string::npos) {
            out += value.substr(pos);
            return out;
        }
        out += value.substr(pos, start - pos);
        std::string ref = value.substr(start + 2, end - start - 2);
        if (ref.rfind("env:", 0) == 0) {
            const char *v = std::getenv(ref.substr(4).c_str());
            if (!v)
                throw ConfigError("environment variable " + ref.substr(4)
                                  + " is not set (referenced as ${" + ref + "})");
            out += v;
        } else if (ref.rfind("file:", 0) == 0) {
            std::ifstream in(ref.substr(5));
            if (!in)
                throw ConfigError("cannot read " + ref.substr(5) + " (referenced as ${" + ref
                                  + "})");
            std::stringstream ss;
            ss << in.rdbuf();
            std::string content = ss.str();
            while (!content.empty() && (content.back() == '\n' || content.back() == '\r'))
                content.pop_back();
            out += content;
        } else {
            out += value.substr(start, end - start + 1);
        }
        pos = end + 1;
    }
}

} // namespace refs

std::string OperatorContext::resolve(const std::string &value) const
{
    return refs::resolveReferences(value);
}

std::string OperatorContext::path(const std::string &value) const
{
    std::string p = resolve(value);
    if (p.empty() || p[0] == '/')
        return p;
    return baseDir + "/" + p;
}

} // namespace tideline
