// Reading the window params and the node's semantic validation (what the param descriptors of
// the catalog cannot express: which sizes each window type needs, aggregate fields and output
// name collisions).

#include "operators/window/window_config.hpp"

#include "operators/operators.hpp"
#include "operators/params.hpp"
#include "operators/window/mode_window.hpp"
#include "semantics/semantics.hpp"

#include <tideline/engine/catalog.hpp>
#include <tideline/engine/validate.hpp>

#include <algorithm>
#include <set>

namespace tideline {
namespace window {

const char *windowTypeName(WindowType t)
{
    switch (t) {
    case WindowType::Tumbling:
        return "tumbling";
    case WindowType::Sliding:
        return "sliding";
    case WindowType::Session:
        return "session";
    }
    return "?";
}

namespace {

bool present(const Json &params, const char *name)
{
    auto it = params.find(name);
    return it != params.end() && !it->is_null();
}

// The window's params read as every kind's are (NodeParams: the catalog's defaults).
NodeParams windowParams(const Json &params)
{
    static const NodeKind &kind = *findNodeKind("window");
    return NodeParams(kind, params);
}

// A positive integer param, or 0 when absent or of the wrong type (reported elsewhere).
Timestamp positiveInt(const Json &params, const char *name)
{
    return std::max<Timestamp>(0, windowParams(params).integer(name));
}

bool isPrefixPath(const std::string &a, const std::string &b)
{
    return b.size() > a.size() && b.compare(0, a.size(), a) == 0 && b[a.size()] == '.';
}

// Two output names that cannot both be written: equal, or one nests inside the other.
bool clashes(const std::string &a, const std::string &b)
{
    return a == b || isPrefixPath(a, b) || isPrefixPath(b, a);
}

} // namespace

bool readWindowConfig(const Json &params, WindowConfig &cfg, std::string &error)
{
    if (!params.is_object()) {
        error = "params: must be an object";
        return false;
    }
    const NodeParams read = windowParams(params);
    const std::string type = read.string("type");
    if (type == "tumbling")
        cfg.type = WindowType::Tumbling;
    else if (type == "sliding")
        cfg.type = WindowType::Sliding;
    else if (type == "session")
        cfg.type = WindowType::Session;
    else {
        error = "params.type: must be tumbling, sliding or session";
        return false;
    }
    cfg.size = positiveInt(params, "size_ms");
    cfg.slide = positiveInt(params, "slide_ms");
    cfg.gap = positiveInt(params, "gap_ms");
    if (cfg.type != WindowType::Session && cfg.size == 0) {
        error = "params.size_ms: required (an integer > 0) for a " + type + " window";
        return false;
    }
    if (cfg.type == WindowType::Tumbling)
        cfg.slide = cfg.size;
    if (cfg.type == WindowType::Sliding && (cfg.slide == 0 || cfg.slide > cfg.size)) {
        error = "params.slide_ms: required for a sliding window, > 0 and <= size_ms";
        return false;
    }
    if (cfg.type == WindowType::Session && cfg.gap == 0) {
        error = "params.gap_ms: required (an integer > 0) for a session window";
        return false;
    }
    cfg.key.clear();
    if (auto it = params.find("key"); it != params.end() && !it->is_null()) {
        // One field may be given as a string, as for every list of field paths.
        const Json list = it->is_string() ? Json::array({*it}) : *it;
        if (!list.is_array()) {
            error = "params.key: must be a list of field paths";
            return false;
        }
        for (const auto &k : list) {
            if (!k.is_string() || k.get<std::string>().empty()) {
                error = "params.key: every entry must be a non-empty field path";
                return false;
            }
            std::string canonical, why; // `user`.id names user.id
            cfg.key.push_back(fieldpath::canonical(k.get<std::string>(), canonical, why)
                                  ? canonical
                                  : k.get<std::string>());
        }
    }
    cfg.aggregates.clear();
    auto aggs = params.find("aggregates");
    if (aggs == params.end() || !aggs->is_array() || aggs->empty()) {
        error = "params.aggregates: required, a non-empty list like [{\"op\": \"count\"}]";
        return false;
    }
    for (const auto &a : *aggs) {
        AggSpec s;
        if (!a.is_object() || !a.contains("op") || !a["op"].is_string()
            || !parseAggOp(a["op"].get<std::string>(), s.op)) {
            error = "params.aggregates: every entry needs an op (count, sum, min, max or avg)";
            return false;
        }
        if (a.contains("field") && a["field"].is_string())
            s.field = a["field"].get<std::string>();
        if (s.op != AggOp::Count && s.field.empty()) {
            error = std::string("params.aggregates: ") + aggOpName(s.op) + " needs a field";
            return false;
        }
        if (a.contains("as") && a["as"].is_string() && !a["as"].get<std::string>().empty())
            s.as = a["as"].get<std::string>();
        else
            s.as = defaultAggName(s.op, s.field);
        cfg.aggregates.push_back(std::move(s));
    }
    if (auto it = params.find("allowed_lateness_ms");
        it != params.end() && !it->is_null()
        && (!it->is_number_integer() || it->get<std::int64_t>() < 0)) {
        error = "params.allowed_lateness_ms: must be an integer >= 0";
        return false;
    }
    cfg.lateness = read.integer("allowed_lateness_ms");
    return true;
}

} // namespace window

using namespace window;

namespace {

void validateWindowParams(const NodeValidationContext &ctx)
{
    const Json &params = ctx.spec.nodes[static_cast<std::size_t>(ctx.nodeIndex)].params;
    if (!params.is_object())
        return; // reported by the generic checks
    const auto typeIt = params.find("type");
    if (typeIt == params.end() || !typeIt->is_string())
        return; // required / type errors come from the descriptors
    const std::string type = typeIt->get<std::string>();
    if (type != "tumbling" && type != "sliding" && type != "session")
        return; // enum error comes from the descriptors

    // --- sizes: which ones each type needs ---
    const bool hasSize = present(params, "size_ms");
    const bool hasSlide = present(params, "slide_ms");
    const bool hasGap = present(params, "gap_ms");
    if (type == "tumbling") {
        if (!hasSize)
            ctx.error("size_ms", "required for a tumbling window: the window length in ms, "
                                 "e.g. 60000 for one-minute windows");
        if (hasSlide)
            ctx.warning("slide_ms", "ignored by a tumbling window (its slide is size_ms); remove "
                                    "it, or set type to \"sliding\"");
        if (hasGap)
            ctx.warning("gap_ms", "ignored by a tumbling window; remove it, or set type to "
                                  "\"session\"");
    } else if (type == "sliding") {
        if (!hasSize)
            ctx.error("size_ms", "required for a sliding window: the window length in ms");
        // Under semantics "kafka-streams" a sliding window without slide_ms is Kafka Streams'
        // record-aligned SlidingWindows (size_ms is its time difference).
        if (!hasSlide && semantics::engineOf(ctx.spec.settings) != semantics::Engine::KafkaStreams)
            ctx.error("slide_ms", "required for a sliding window: the distance between window "
                                  "starts in ms (<= size_ms), e.g. size_ms 60000 with slide_ms "
                                  "10000 (only semantics \"kafka-streams\" has record-aligned "
                                  "sliding windows without it)");
        if (hasGap)
            ctx.warning("gap_ms", "ignored by a sliding window; remove it, or set type to "
                                  "\"session\"");
        const Timestamp size = positiveInt(params, "size_ms");
        const Timestamp slide = positiveInt(params, "slide_ms");
        if (size > 0 && slide > 0) {
            if (slide > size) {
                ctx.error("slide_ms",
                          "is larger than size_ms (" + std::to_string(slide) + " > "
                              + std::to_string(size)
                              + "): records between two windows would belong to none; use "
                                "slide_ms <= size_ms (equal means tumbling)");
            } else {
                const Timestamp perRecord = (size + slide - 1) / slide;
                if (perRecord > 100000)
                    ctx.error("slide_ms", "puts every record in " + std::to_string(perRecord)
                                              + " windows (size_ms / slide_ms); use a larger "
                                                "slide_ms (at most 100000 windows per record)");
                else if (perRecord > 1000)
                    ctx.warning("slide_ms", "puts every record in " + std::to_string(perRecord)
                                                + " windows (size_ms / slide_ms), which is slow; "
                                                  "consider a larger slide_ms");
            }
        }
    } else {
        if (!hasGap)
            ctx.error("gap_ms", "required for a session window: the inactivity in ms that "
                                "closes a session, e.g. 30000");
        if (hasSize)
            ctx.warning("size_ms", "ignored by a session window (sessions grow with gap_ms); "
                                   "remove it, or set type to \"tumbling\" or \"sliding\"");
        if (hasSlide)
            ctx.warning("slide_ms", "ignored by a session window; remove it, or set type to "
                                    "\"sliding\"");
    }

    // --- key fields ---
    std::vector<std::string> keys;
    if (auto it = params.find("key"); it != params.end() && (it->is_array() || it->is_string())) {
        const bool one = it->is_string(); // the one-field shorthand
        const Json list = one ? Json::array({*it}) : *it;
        std::set<std::string> seen;
        for (std::size_t i = 0; i < list.size(); ++i) {
            const Json &k = list[i];
            const std::string where = one ? "key" : "key[" + std::to_string(i) + "]";
            if (!k.is_string())
                continue; // type error from the descriptors
            const std::string name = k.get<std::string>();
            if (name.empty()) {
                ctx.error(where, "is empty: give a field path such as \"user_id\" or "
                                 "\"user.id\", or remove the entry");
                continue;
            }
            if (!seen.insert(name).second) {
                ctx.error(where, "\"" + name + "\" is listed twice; remove the duplicate");
                continue;
            }
            for (const auto &other : keys) {
                if (clashes(name, other))
                    ctx.error(where, "\"" + name + "\" overlaps key field \"" + other
                                         + "\" (one is nested in the other); keep only one");
            }
            for (const char *reserved : {kWindowStart, kWindowEnd, kEmit}) {
                if (clashes(name, reserved))
                    ctx.error(where, "\"" + name + "\" collides with the output field \"" + reserved
                                         + "\" that every window result carries; rename the "
                                           "field upstream (map node) before grouping");
            }
            keys.push_back(name);
        }
    }

    // --- aggregates ---
    auto aggs = params.find("aggregates");
    if (aggs == params.end() || !aggs->is_array())
        return; // required / type errors come from the descriptors
    if (aggs->empty()) {
        ctx.error("aggregates", "is empty: add at least one aggregate, e.g. {\"op\": \"count\", "
                                "\"as\": \"events\"}");
        return;
    }
    std::vector<std::pair<std::string, std::string>> names; // (as, where)
    for (std::size_t i = 0; i < aggs->size(); ++i) {
        const Json &a = (*aggs)[i];
        const std::string where = "aggregates[" + std::to_string(i) + "]";
        if (!a.is_object())
            continue; // type error from the descriptors
        AggOp op;
        auto opIt = a.find("op");
        if (opIt == a.end() || !opIt->is_string() || !parseAggOp(opIt->get<std::string>(), op))
            continue; // required / enum errors from the descriptors
        std::string field;
        if (auto f = a.find("field"); f != a.end() && f->is_string()) {
            field = f->get<std::string>();
            if (field.empty())
                ctx.error(where + ".field", "is empty: give the input field path, or remove "
                                            "\"field\" to count records");
        }
        if (op != AggOp::Count && field.empty()
            && (a.find("field") == a.end() || a["field"].is_null()))
            ctx.error(where + ".field", std::string("required for \"") + aggOpName(op)
                                            + "\": the numeric input field, e.g. {\"op\": \""
                                            + aggOpName(op) + "\", \"field\": \"value\"}");
        std::string as;
        if (auto s = a.find("as"); s != a.end() && s->is_string()) {
            as = s->get<std::string>();
            if (as.empty()) {
                ctx.error(where + ".as", "is empty: give an output field name, or remove "
                                         "\"as\" to use \""
                                             + defaultAggName(op, field) + "\"");
                continue;
            }
        } else {
            as = defaultAggName(op, field);
        }
        const std::string asWhere = where + ".as";
        bool reported = false;
        for (const auto &[other, otherWhere] : names) {
            if (clashes(as, other)) {
                ctx.error(asWhere,
                          "output name \"" + as + "\" "
                              + (as == other ? "is already used by " + otherWhere
                                             : "overlaps \"" + other + "\" of " + otherWhere)
                              + "; give each aggregate its own \"as\"");
                reported = true;
                break;
            }
        }
        for (const auto &k : keys) {
            if (!reported && clashes(as, k)) {
                ctx.error(asWhere, "output name \"" + as + "\" collides with key field \"" + k
                                       + "\" (also written to every result); choose another "
                                         "\"as\"");
                reported = true;
            }
        }
        for (const char *reserved : {kWindowStart, kWindowEnd, kEmit}) {
            if (!reported && clashes(as, reserved)) {
                ctx.error(asWhere, "output name \"" + as + "\" collides with \"" + reserved
                                       + "\" that every window result carries; choose another "
                                         "\"as\"");
                reported = true;
            }
        }
        names.emplace_back(as, where);
    }
}

} // namespace

void validateWindow(const NodeValidationContext &ctx)
{
    const std::size_t before = ctx.out.size();
    validateWindowParams(ctx);
    const bool reported
        = std::any_of(ctx.out.begin() + static_cast<std::ptrdiff_t>(before), ctx.out.end(),
                      [](const Diagnostic &d) { return d.isError(); });
    if (reported)
        return;
    // The run reads the params with readWindowConfig(): whatever it refuses must be refused
    // here too, or a pipeline that validates would fail at start.
    WindowConfig cfg;
    std::string error;
    bool recordAligned = false;
    const Json params
        = paramsForEngine(ctx.spec.nodes[static_cast<std::size_t>(ctx.nodeIndex)].params,
                          semantics::engineOf(ctx.spec.settings), recordAligned);
    if (!readWindowConfig(params, cfg, error)) {
        std::string param;
        if (error.rfind("params.", 0) == 0 && error.find(':') != std::string::npos) {
            param = error.substr(7, error.find(':') - 7);
            error = error.substr(error.find(':') + 2);
        }
        ctx.error(param, error);
    }
}

} // namespace tideline
