#include <tideline/engine/catalog.hpp>
#include <tideline/engine/catalog_markdown.hpp>

namespace tideline {

namespace {

std::string typeText(const ParamDesc &d)
{
    std::string t = paramTypeName(d.type);
    if (d.type == ParamType::Enum) {
        t = "";
        for (std::size_t i = 0; i < d.choices.size(); ++i)
            t += (i ? " \\| " : "") + ("`" + d.choices[i] + "`");
    }
    auto num = [](double x) {
        Json j = x;
        if (x == static_cast<double>(static_cast<long long>(x)))
            j = static_cast<long long>(x);
        return j.dump();
    };
    if (d.min && d.max)
        t += ", " + num(*d.min) + "…" + num(*d.max);
    else if (d.min)
        t += ", ≥ " + num(*d.min);
    return t;
}

void paramRows(const std::vector<ParamDesc> &params, const std::string &prefix, std::string &out)
{
    for (const auto &d : params) {
        std::string name = prefix + d.name;
        out += "| `" + name + "`" + (d.required ? " **(required)**" : "") + " | " + typeText(d)
               + " | " + (d.defaultValue.is_null() ? "" : "`" + d.defaultValue.dump() + "`") + " | "
               + d.help
               + (d.secret       ? " Secret: only as `${env:…}`/`${file:…}`."
                  : d.references ? " May be `${env:…}`/`${file:…}`."
                                 : "")
               + " |\n";
        if (d.type == ParamType::Object)
            paramRows(d.fields, name + ".", out);
        if (d.type == ParamType::ObjectList)
            paramRows(d.fields, name + "[].", out);
    }
}

std::string ports(const std::vector<PortDesc> &ps)
{
    std::string s;
    for (const auto &p : ps) {
        if (!s.empty())
            s += ", ";
        s += "`" + p.name + "`";
        if (p.role == PortRole::Late)
            s += " (late records)";
        else if (p.role == PortRole::Errors)
            s += " (malformed records)";
        if (p.multi)
            s += " (any number of edges)";
    }
    return s.empty() ? "—" : s;
}

} // namespace

std::string catalogMarkdown()
{
    std::string out;
    std::string category;
    for (const auto &k : nodeKinds()) {
        if (k.category != category) {
            category = k.category;
            out += "### " + category + "\n\n";
        }
        out += "#### `" + k.kind + "` — " + k.displayName + "\n\n" + k.help + "\n\n";
        out += "Inputs: " + ports(k.inputs) + ". Outputs: " + ports(k.outputs) + ".";
        if (k.needsEventTime)
            out += " Needs event time (a `watermark` node upstream).";
        out += "\n\n";
        if (k.params.empty()) {
            out += "No params.\n\n";
            continue;
        }
        out += "| param | type | default | meaning |\n|---|---|---|---|\n";
        paramRows(k.params, "", out);
        out += "\n";
    }
    return out;
}

} // namespace tideline
