// The what-if sweep's axis parser (`tideline-run --sweep NODE.PARAM=V1,V2,...`, sweep.hpp:
// parseAxis, addAxis, Plan, apply) on arbitrary text against a fixed pipeline that has a
// param of every scalar type. Properties: nothing throws or crashes; a refused axis says why;
// an accepted one names a node of the pipeline and a param of its kind, has at least one
// value, each value of the param's type within its range and choices; every combination's
// apply() writes exactly those values and nothing else, and the result still writes and loads;
// the same axis twice is refused.

#include "fuzz_common.hpp"

#include <tideline/engine/catalog.hpp>
#include <tideline/engine/spec.hpp>
#include <tideline/engine/sweep.hpp>

#include <algorithm>

using namespace tideline;

namespace {

const char *kPipeline = "{\"format\":\"tideline/1\",\"name\":\"fuzz-sweep\",\"nodes\":["
                        "{\"id\":\"src\",\"kind\":\"source.generator\",\"params\":{\"count\":10}},"
                        "{\"id\":\"wm\",\"kind\":\"watermark\",\"params\":{\"time_field\":"
                        "\"event_time\",\"max_out_of_orderness_ms\":100}},"
                        "{\"id\":\"f\",\"kind\":\"filter\",\"params\":{\"expr\":\"true\"}},"
                        "{\"id\":\"w\",\"kind\":\"window\",\"params\":{\"type\":\"tumbling\","
                        "\"size_ms\":1000,\"key\":[\"user_id\"],\"aggregates\":[{\"op\":"
                        "\"count\",\"as\":\"n\"}]}},"
                        "{\"id\":\"d\",\"kind\":\"dedup\",\"params\":{\"key\":[\"event_id\"],"
                        "\"within_ms\":1000}},"
                        "{\"id\":\"out\",\"kind\":\"sink.discard\",\"params\":{}}],"
                        "\"edges\":[{\"from\":\"src.out\",\"to\":\"wm.in\"},{\"from\":"
                        "\"wm.out\",\"to\":\"f.in\"},{\"from\":\"f.out\",\"to\":\"d.in\"},"
                        "{\"from\":\"d.out\",\"to\":\"w.in\"},{\"from\":\"w.out\",\"to\":"
                        "\"out.in\"}]}";

const PipelineSpec &pipeline()
{
    static const PipelineSpec spec = [] {
        LoadResult r = loadSpec(kPipeline);
        FUZZ_CHECK(r.spec && r.ok(), "the harness's pipeline does not load");
        return *r.spec;
    }();
    return spec;
}

const ParamDesc *paramOf(const PipelineSpec &spec, const sweep::Axis &axis)
{
    const int idx = spec.nodeIndex(axis.node);
    if (idx < 0)
        return nullptr;
    const NodeKind *kind = findNodeKind(spec.nodes[static_cast<std::size_t>(idx)].kind);
    if (kind == nullptr)
        return nullptr;
    for (const ParamDesc &p : kind->params)
        if (p.name == axis.param)
            return &p;
    return nullptr;
}

void checkValue(const ParamDesc &p, const Json &v, const std::string &what)
{
    switch (p.type) {
    case ParamType::Int:
        FUZZ_CHECK(v.is_number_integer(), what + ": not an integer: " + v.dump());
        break;
    case ParamType::Number:
        FUZZ_CHECK(v.is_number(), what + ": not a number: " + v.dump());
        break;
    case ParamType::Bool:
        FUZZ_CHECK(v.is_boolean(), what + ": not a boolean: " + v.dump());
        break;
    case ParamType::Enum:
        FUZZ_CHECK(v.is_string()
                       && std::find(p.choices.begin(), p.choices.end(), v.get<std::string>())
                              != p.choices.end(),
                   what + ": not one of the choices: " + v.dump());
        break;
    default:
        break;
    }
    if (v.is_number()) {
        const double d = v.get<double>();
        FUZZ_CHECK(!p.min || d >= *p.min, what + ": below the minimum: " + v.dump());
        FUZZ_CHECK(!p.max || d <= *p.max, what + ": above the maximum: " + v.dump());
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    if (size > 4096)
        return 0;
    const std::string_view text = fuzz::asText(data, size);
    const PipelineSpec &spec = pipeline();
    sweep::Axis axis;
    const std::string error = sweep::parseAxis(text, spec, axis);
    if (!error.empty())
        return 0; // refused, with a reason
    const std::string what = "axis " + fuzz::shown(text);
    const ParamDesc *p = paramOf(spec, axis);
    FUZZ_CHECK(p != nullptr, what + ": accepted for no param of the pipeline: " + axis.label());
    FUZZ_CHECK(!axis.values.empty(), what + ": accepted without values");
    for (const Json &v : axis.values)
        checkValue(*p, v, what);

    sweep::Plan plan;
    const std::string added = sweep::addAxis(plan, axis);
    if (!added.empty())
        return 0; // e.g. more than kMaxCombinations
    FUZZ_CHECK(!sweep::addAxis(plan, axis).empty(), what + ": the same param swept twice");
    FUZZ_CHECK(plan.combinations() == axis.values.size(), what + ": wrong combination count");
    const int node = spec.nodeIndex(axis.node);
    for (std::size_t i = 0; i < plan.combinations() && i < 8; ++i) {
        const PipelineSpec applied = sweep::apply(spec, plan, i);
        const NodeSpec &n = applied.nodes[static_cast<std::size_t>(node)];
        FUZZ_CHECK(n.params.contains(axis.param) && n.params.at(axis.param) == axis.values[i],
                   what + ": apply() did not write value " + std::to_string(i));
        for (std::size_t k = 0; k < spec.nodes.size(); ++k)
            if (static_cast<int>(k) != node)
                FUZZ_CHECK(applied.nodes[k].params == spec.nodes[k].params,
                           what + ": apply() changed another node");
        const LoadResult again = loadSpec(writeSpec(applied));
        FUZZ_CHECK(again.spec.has_value(), what + ": the applied pipeline does not load back");
    }
    return 0;
}
