// Params against the catalog's descriptors (every kind's, one checker) and the settings
// object. The graph rules are validate.cpp's.

#include "validate_params.hpp"

#include "runtime/references.hpp"
#include "semantics/semantics.hpp"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <string>

namespace tideline {

void NodeValidationContext::error(const std::string &param,
                                  const std::string &message,
                                  int column) const
{
    Diagnostic d;
    d.nodeIndex = nodeIndex;
    d.nodeId = spec.nodes[static_cast<std::size_t>(nodeIndex)].id;
    d.path = "nodes[" + std::to_string(nodeIndex) + "]" + (param.empty() ? "" : ".params." + param);
    d.param = param;
    d.message = message;
    d.column = column;
    out.push_back(d);
}

void NodeValidationContext::warning(const std::string &param, const std::string &message) const
{
    error(param, message);
    out.back().severity = Diagnostic::Severity::Warning;
}

namespace {

bool isReference(const std::string &s)
{
    return s.rfind("${env:", 0) == 0 || s.rfind("${file:", 0) == 0;
}

// Where ${env:…}/${file:…} references are resolved (ParamDesc::references): named in the
// message for a reference written anywhere else.
const std::string &referenceParams()
{
    static const std::string names = [] {
        std::vector<std::string> seen;
        for (const auto &k : nodeKinds())
            for (const auto &d : k.params)
                if ((d.references || d.secret)
                    && std::find(seen.begin(), seen.end(), d.name) == seen.end())
                    seen.push_back(d.name);
        std::string s;
        for (const auto &n : seen)
            s += (s.empty() ? "`" : ", `") + n + "`";
        return s;
    }();
    return names;
}

std::string referenceOutsideConnectionSettings()
{
    return "a `${env:…}`/`${file:…}` reference here is resolved when the pipeline runs, so the "
           "variable's value or the file's contents become part of this param (an expression's "
           "text, and then the records it writes). References are meant for connection "
           "settings, secrets and paths ("
           + referenceParams()
           + "); write the value itself unless that is what you want, and run a pipeline from "
             "someone else only after reading its references";
}

struct ParamChecker
{
    const NodeValidationContext &ctx;

    /// A string that holds a reference outside connection settings, secrets and paths. The
    /// contract lets any string param hold one (shared/pipeline-format.md), so this is a
    /// pitfall warning, not an error: it is how a pipeline file reads a file into its output.
    void checkNoReference(const ParamDesc &d, const Json &v, const std::string &path) const
    {
        if (d.references || d.secret || !v.is_string())
            return;
        if (refs::containsReference(v.get<std::string>()))
            ctx.warning(path, referenceOutsideConnectionSettings());
    }

    void check(const ParamDesc &d, const Json &v, const std::string &path) const
    {
        auto fail = [&](const std::string &msg) {
            ctx.error(path, msg);
        };
        auto typeFail = [&]() {
            std::string t = paramTypeName(d.type);
            bool vowel = !t.empty() && std::string("aeiou").find(t[0]) != std::string::npos;
            fail(std::string("must be ")
                 + (t.rfind("array", 0) == 0 || t.rfind("object", 0) == 0 ? "an "
                    : vowel                                               ? "an "
                                                                          : "a ")
                 + t + ", found " + v.dump());
        };
        switch (d.type) {
        case ParamType::Int:
            if (v.is_number_unsigned()
                && v.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX)) {
                // Read as a signed 64-bit integer by the run (it would wrap to a negative).
                fail("must be at most " + std::to_string(INT64_MAX) + ", found " + v.dump());
                return;
            }
            if (!v.is_number_integer()) {
                // A whole float such as 5.0 names an integer written the wrong way; say so.
                // std::trunc, not a cast: a cast of 1e21 to an integer is undefined.
                const double x = v.is_number_float() ? v.get<double>() : 0.5;
                if (std::isfinite(x) && x == std::trunc(x) && std::fabs(x) >= 0x1p63)
                    fail(std::string(x > 0 ? "must be at most " + std::to_string(INT64_MAX)
                                           : "must be at least " + std::to_string(INT64_MIN))
                         + ", found " + v.dump());
                else if (std::isfinite(x) && x == std::trunc(x))
                    fail("must be an integer without a fraction, found " + v.dump());
                else
                    typeFail();
                return;
            }
            checkRange(d, v.get<double>(), path);
            return;
        case ParamType::Number:
            if (!v.is_number())
                return typeFail();
            checkRange(d, v.get<double>(), path);
            return;
        case ParamType::Bool:
            if (!v.is_boolean())
                typeFail();
            return;
        case ParamType::String:
        case ParamType::Path:
        case ParamType::Expr:
            if (!v.is_string())
                return typeFail();
            if (d.required && v.get<std::string>().empty())
                fail("must not be empty");
            checkNoReference(d, v, path);
            if (d.secret && !isReference(v.get<std::string>()))
                fail("secrets must be given as ${env:NAME} or ${file:/path}, never literally");
            return;
        case ParamType::Enum: {
            if (!v.is_string())
                return typeFail();
            auto s = v.get<std::string>();
            if (std::find(d.choices.begin(), d.choices.end(), s) == d.choices.end()) {
                std::string msg = "`" + s + "` is not one of ";
                for (std::size_t i = 0; i < d.choices.size(); ++i)
                    msg += (i ? ", " : "") + d.choices[i];
                auto guess = closestMatch(s, d.choices);
                if (!guess.empty())
                    msg += ": did you mean `" + guess + "`?";
                fail(msg);
            }
            return;
        }
        case ParamType::StringList:
            if (v.is_string()) { // shorthand for a one-element list
                if (v.get<std::string>().empty())
                    fail("must be a non-empty string (a field path) or a list of them");
                checkNoReference(d, v, path);
                return;
            }
            if (!v.is_array())
                return typeFail();
            for (std::size_t i = 0; i < v.size(); ++i) {
                const std::string sub = path + "[" + std::to_string(i) + "]";
                if (!v[i].is_string() || v[i].get<std::string>().empty())
                    ctx.error(sub,
                              "must be a non-empty string (a field path), found " + v[i].dump());
                else
                    checkNoReference(d, v[i], sub);
            }
            return;
        case ParamType::ExprMap:
        case ParamType::StringMap:
            if (!v.is_object())
                return typeFail();
            for (auto it = v.begin(); it != v.end(); ++it) {
                if (!it.value().is_string())
                    ctx.error(path + "." + it.key(),
                              "must be a string, found " + it.value().dump());
                else
                    checkNoReference(d, it.value(), path + "." + it.key());
            }
            return;
        case ParamType::Object:
            if (!v.is_object())
                return typeFail();
            checkFields(d.fields, v, path);
            return;
        case ParamType::ObjectList:
            if (!v.is_array())
                return typeFail();
            if (d.required && v.empty())
                fail("must list at least one entry");
            for (std::size_t i = 0; i < v.size(); ++i) {
                std::string sub = path + "[" + std::to_string(i) + "]";
                if (!v[i].is_object())
                    ctx.error(sub, "must be an object, found " + v[i].dump());
                else
                    checkFields(d.fields, v[i], sub);
            }
            return;
        }
    }

    void checkRange(const ParamDesc &d, double x, const std::string &path) const
    {
        auto num = [](double y) {
            Json j = y;
            // Whole numbers print without ".0"; the cast is only defined within long long's
            // range (a fuzzed -9.2e19 found it).
            if (std::abs(y) < 9.2e18 && y == std::trunc(y))
                j = static_cast<long long>(y);
            return j.dump();
        };
        if (d.min && x < *d.min)
            ctx.error(path,
                      (*d.min == 0                                 ? "must be >= 0"
                       : (*d.min == 1 && d.type == ParamType::Int) ? "must be > 0"
                                                                   : "must be >= " + num(*d.min))
                          + ", found " + num(x));
        else if (d.max && x > *d.max)
            ctx.error(path, "must be <= " + num(*d.max) + ", found " + num(x));
    }

    void
    checkFields(const std::vector<ParamDesc> &descs, const Json &obj, const std::string &path) const
    {
        std::vector<std::string> names;
        for (const auto &f : descs)
            names.push_back(f.name);
        for (auto it = obj.begin(); it != obj.end(); ++it) {
            auto f = std::find_if(descs.begin(), descs.end(),
                                  [&](const ParamDesc &x) { return x.name == it.key(); });
            std::string sub = path.empty() ? it.key() : path + "." + it.key();
            if (f == descs.end()) {
                std::string guess = closestMatch(it.key(), names);
                std::string msg = "unknown param `" + it.key() + "`";
                if (!guess.empty())
                    msg += ": did you mean `" + guess + "`?";
                else {
                    msg += " (valid: ";
                    for (std::size_t i = 0; i < names.size(); ++i)
                        msg += (i ? ", " : "") + names[i];
                    msg += ")";
                }
                ctx.error(sub, msg);
                continue;
            }
            check(*f, it.value(), sub);
        }
        for (const auto &f : descs)
            if (f.required && !obj.contains(f.name))
                ctx.error(path.empty() ? f.name : path + "." + f.name, missingText(f));
    }

    /// "missing required param `time_field`: set it to a string (field holding the event
    /// time)": the param by name, what to set, and its help as the hint.
    static std::string missingText(const ParamDesc &f)
    {
        std::string fix;
        switch (f.type) {
        case ParamType::Enum:
            fix = "set it to one of ";
            for (std::size_t i = 0; i < f.choices.size(); ++i)
                fix += (i ? ", " : "") + f.choices[i];
            break;
        case ParamType::Int:
            fix = "set it to an integer";
            break;
        case ParamType::Number:
            fix = "set it to a number";
            break;
        case ParamType::Bool:
            fix = "set it to true or false";
            break;
        case ParamType::Path:
            fix = "set it to a file path";
            break;
        case ParamType::Expr:
            fix = "set it to an expression";
            break;
        case ParamType::StringList:
            fix = "set it to a list of field paths, e.g. [\"user_id\"]";
            break;
        case ParamType::ObjectList:
            fix = "add at least one entry";
            break;
        case ParamType::Object:
        case ParamType::ExprMap:
        case ParamType::StringMap:
            fix = "set it to an object";
            break;
        case ParamType::String:
            fix = "set it to a string";
            break;
        }
        std::string hint = f.help;
        while (!hint.empty() && (hint.back() == '.' || hint.back() == ' '))
            hint.pop_back();
        if (!hint.empty() && hint.size() > 1 && std::isupper(static_cast<unsigned char>(hint[0]))
            && !std::isupper(static_cast<unsigned char>(hint[1])))
            hint[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(hint[0])));
        return "missing required param `" + f.name + "`: " + fix
               + (hint.empty() ? "" : " (" + hint + ")");
    }
};

} // namespace

void checkParams(const NodeValidationContext &ctx,
                 const std::vector<ParamDesc> &descs,
                 const Json &params)
{
    ParamChecker{ctx}.checkFields(descs, params, "");
}

void checkSettings(const Json &settings, std::vector<Diagnostic> &out)
{
    auto fileErr = [&](const std::string &path, const std::string &msg) {
        Diagnostic d;
        d.path = path;
        d.message = msg;
        out.push_back(d);
    };
    {
        const Json &s = settings;
        static const std::vector<std::string> keys{"checkpoint",      "delivery",    "state",
                                                   "state_memory_mb", "parallelism", "semantics",
                                                   "kafka_streams",   "spark"};
        for (auto it = s.begin(); it != s.end(); ++it) {
            if (std::find(keys.begin(), keys.end(), it.key()) == keys.end()) {
                auto guess = closestMatch(it.key(), keys);
                fileErr("settings." + it.key(),
                        "unknown setting `" + it.key() + "`"
                            + (guess.empty() ? "" : ": did you mean `" + guess + "`?"));
            }
        }
        semantics::checkSemanticsSettings(s, out); // semantics/semantics.cpp
        if (s.contains("delivery")
            && !(s["delivery"] == "at_least_once" || s["delivery"] == "exactly_once"))
            fileErr("settings.delivery", "must be \"at_least_once\" or \"exactly_once\"");
        // Key groups (128) bound the instances a keyed node can be split into.
        if (s.contains("parallelism")
            && !(s["parallelism"] == "auto"
                 || (s["parallelism"].is_number_integer() && s["parallelism"].get<double>() >= 1
                     && s["parallelism"].get<double>() <= 128)))
            fileErr("settings.parallelism",
                    "must be an integer from 1 to 128 or \"auto\" (the cores available), found "
                        + s["parallelism"].dump()
                        + " (keyed nodes run as that many instances on as many threads)");
        if (s.contains("state") && !(s["state"] == "memory" || s["state"] == "rocksdb"))
            fileErr("settings.state", "must be \"memory\" or \"rocksdb\"");
        // The budget becomes a byte count (size_t): beyond the range it would wrap to nothing.
        constexpr double kMinStateMb = 0.001, kMaxStateMb = 1048576; // 1 KiB .. 1 TiB
        if (s.contains("state_memory_mb")
            && (!s["state_memory_mb"].is_number() || !(s["state_memory_mb"].get<double>() > 0)
                || s["state_memory_mb"].get<double>() < kMinStateMb
                || s["state_memory_mb"].get<double>() > kMaxStateMb))
            fileErr("settings.state_memory_mb",
                    "must be a number of megabytes from 0.001 to 1048576 (1 TiB), found "
                        + s["state_memory_mb"].dump()
                        + " (keyed state each stateful node keeps in memory when settings.state "
                          "is \"rocksdb\"; default 256)");
        if (s.contains("checkpoint")) {
            const Json &c = s["checkpoint"];
            if (!c.is_object())
                fileErr("settings.checkpoint", "must be an object {interval_ms, dir, keep}");
            else {
                static const std::vector<std::string> ck{"interval_ms", "dir", "keep"};
                for (auto it = c.begin(); it != c.end(); ++it)
                    if (std::find(ck.begin(), ck.end(), it.key()) == ck.end()) {
                        auto guess = closestMatch(it.key(), ck);
                        fileErr("settings.checkpoint." + it.key(),
                                "unknown key `" + it.key() + "`"
                                    + (guess.empty() ? "" : ": did you mean `" + guess + "`?"));
                    }
                // Upper bounds keep the run's arithmetic in range (a timer at now + interval,
                // keep read as an int).
                constexpr long long kMaxIntervalMs = 31'536'000'000; // a year
                constexpr long long kMaxKeep = 10000;
                if (!c.contains("interval_ms") || !c["interval_ms"].is_number_integer()
                    || c["interval_ms"].get<double>() <= 0
                    || c["interval_ms"].get<double>() > static_cast<double>(kMaxIntervalMs))
                    fileErr("settings.checkpoint.interval_ms",
                            "must be an integer from 1 to 31536000000 (milliseconds between "
                            "checkpoints; at most a year)");
                if (!c.contains("dir") || !c["dir"].is_string()
                    || c["dir"].get<std::string>().empty())
                    fileErr("settings.checkpoint.dir", "must be a folder path for checkpoints");
                else if (refs::containsReference(c["dir"].get<std::string>()))
                    fileErr("settings.checkpoint.dir",
                            "`${env:…}`/`${file:…}` references are not resolved in settings; "
                            "write the folder, or give it with --checkpoint-dir");
                if (c.contains("keep")
                    && (!c["keep"].is_number_integer() || c["keep"].get<double>() < 1
                        || c["keep"].get<double>() > static_cast<double>(kMaxKeep)))
                    fileErr("settings.checkpoint.keep", "must be an integer from 1 to 10000");
            }
        }
    }
}

} // namespace tideline
