#include "expr/validate_expr.hpp"

#include "expr/schema.hpp"

#include <tideline/engine/operator.hpp>

namespace tideline::expr {

namespace {

/// Compile + the top-level type rule; fills err on failure.
std::unique_ptr<Expression> compileWanted(const std::string &text, Want want, CompileError &err)
{
    auto e = Expression::compile(text, err);
    if (!e)
        return nullptr;
    if (want == Want::Boolean && e->type() != Type::Bool && e->type() != Type::Any) {
        err.message = std::string("a filter needs a true/false expression, but this gives ")
                      + (e->type() == Type::Null ? "null" : std::string("a ") + typeName(e->type()))
                      + " (compare it, e.g. `... > 0`)";
        err.column = 0;
        return nullptr;
    }
    return e;
}

} // namespace

std::unique_ptr<Expression> checkExpression(const NodeValidationContext &ctx,
                                            const std::string &param,
                                            const std::string &text,
                                            Want want,
                                            const std::optional<std::vector<std::string>> &known)
{
    CompileError err;
    auto e = compileWanted(text, want, err);
    if (!e) {
        ctx.error(param, "bad expression: " + caretMessage(text, err), err.column);
        return nullptr;
    }
    if (known) {
        std::vector<std::string> warned;
        for (const auto &f : e->fields()) {
            if (fieldKnown(*known, f.path)
                || std::find(warned.begin(), warned.end(), f.path) != warned.end())
                continue;
            warned.push_back(f.path);
            ctx.warning(param, unknownFieldMessage(*known, f.path) + "\n    " + text + "\n    "
                                   + std::string(static_cast<std::size_t>(f.column), ' ') + "^");
        }
    }
    return e;
}

std::unique_ptr<Expression>
compileOrThrow(const std::string &param, const std::string &text, Want want)
{
    CompileError err;
    auto e = compileWanted(text, want, err);
    if (!e)
        throw ConfigError("params." + param + ": bad expression: " + caretMessage(text, err));
    return e;
}

} // namespace tideline::expr
