#pragma once
// Validation of expression params (filter.expr, map.set.*): compile errors become diagnostics
// with the column and a caret; reads of fields that cannot exist become warnings.

#include "expr/expr.hpp"

#include <tideline/engine/validate.hpp>

#include <optional>
#include <string>
#include <vector>

namespace tideline::expr {

enum class Want { Anything, Boolean };

/// Compiles `text` and reports problems on `param`. Returns the expression when it compiled.
std::unique_ptr<Expression> checkExpression(const NodeValidationContext &ctx,
                                            const std::string &param,
                                            const std::string &text,
                                            Want want,
                                            const std::optional<std::vector<std::string>> &known);

/// Compiles an expression for an operator factory; throws ConfigError (the runtime prefixes the
/// node).
std::unique_ptr<Expression>
compileOrThrow(const std::string &param, const std::string &text, Want want);

} // namespace tideline::expr
