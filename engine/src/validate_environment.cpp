// validateEnvironment(): the part of a start that depends on the machine, checked without
// starting. tideline-run --validate runs it after validate(), so that "valid" means "starts
// here": the references of connection settings, secrets and paths resolve, and the files
// nodes read at start open. (Brokers and checkpoint contents are still met only at start.)

#include "operators/operators.hpp"
#include "runtime/references.hpp"

#include <tideline/engine/catalog.hpp>
#include <tideline/engine/operator.hpp>
#include <tideline/engine/validate.hpp>

#include <cerrno>
#include <cstring>
#include <fstream>

namespace tideline {

namespace {

/// A node that reads files at start (ParamDesc::input) and does nothing else in open(): it is
/// opened here as the run opens it, so the file is judged by the run's own reader (a CSV
/// header, an enrich table's rows and key column), then dropped.
void openToRead(const PipelineSpec &spec,
                std::size_t i,
                const NodeKind &kind,
                const std::string &baseDir,
                const NodeValidationContext &ctx)
{
    const KindImpl *impl = findKindImpl(kind.kind);
    if (!impl)
        return;
    ManualClock clock;
    OperatorContext octx{spec.nodes[i], kind, baseDir, clock, 1, nullptr};
    try {
        auto op = impl->make(octx);
        op->open();
    } catch (const std::exception &e) {
        std::string msg = e.what(), param;
        if (msg.rfind("params.", 0) == 0 && msg.find(": ") != std::string::npos) {
            param = msg.substr(7, msg.find(": ") - 7);
            msg = msg.substr(msg.find(": ") + 2);
        }
        ctx.error(param, msg);
    }
}

} // namespace

std::vector<Diagnostic> validateEnvironment(const PipelineSpec &spec, const std::string &baseDir)
{
    std::vector<Diagnostic> out;
    for (std::size_t i = 0; i < spec.nodes.size(); ++i) {
        const NodeSpec &node = spec.nodes[i];
        const NodeKind *kind = findNodeKind(node.kind);
        if (!kind || !node.params.is_object())
            continue;
        NodeValidationContext ctx{spec, static_cast<int>(i), out};
        const std::size_t before = out.size();
        bool readsFiles = false;
        for (const auto &d : kind->params) {
            readsFiles = readsFiles || d.input;
            auto it = node.params.find(d.name);
            if (it == node.params.end() || !(d.references || d.secret))
                continue;
            // (param path, text) pairs: the value, or each value of a map (Kafka properties).
            std::vector<std::pair<std::string, std::string>> texts;
            if (it->is_string())
                texts.emplace_back(d.name, it->get<std::string>());
            else if (it->is_object())
                for (auto v = it->begin(); v != it->end(); ++v)
                    if (v.value().is_string())
                        texts.emplace_back(d.name + "." + v.key(), v.value().get<std::string>());
            for (const auto &[param, text] : texts) {
                std::string value;
                try {
                    value = refs::resolveReferences(text);
                } catch (const ConfigError &e) {
                    ctx.error(param, e.what());
                    continue;
                }
                if (!d.input || d.type != ParamType::Path || value.empty())
                    continue;
                const std::string path = value[0] == '/' ? value : baseDir + "/" + value;
                std::ifstream in(path, std::ios::binary);
                if (!in)
                    ctx.error(param, "cannot open " + path + ": " + std::strerror(errno));
            }
        }
        if (readsFiles && out.size() == before)
            openToRead(spec, i, *kind, baseDir, ctx);
    }
    return out;
}

} // namespace tideline
