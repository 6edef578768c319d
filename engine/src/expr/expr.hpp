#pragma once
// The expression language of `filter` and `map` (pipeline-format.md, "Expressions").
//
// An expression is compiled once (lexer -> Pratt parser -> statically typed node tree) and then
// evaluated against each Record by walking the tree: no text is parsed per record, and nothing
// is allocated per record once each string-producing node's scratch buffer has grown.
//
// Semantics (SQL-like, documented in docs/reference/nodes-transform-join.md):
// - a missing field is null; arithmetic with null is null; a comparison with null is false;
//   `x == null` / `x != null` (the literal null) test for null/missing instead;
// - `and`/`or`/`not` treat anything but `true` as false;
// - `/` always gives a double; `/` or `%` by zero gives null and is counted (divisionsByZero());
// - a value of the wrong type at run time (a string field in `value * 2`) gives null.

#include "expr/ast.hpp"

#include <tideline/engine/record.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tideline::expr {

struct CompileError
{
    std::string message; ///< what is wrong and how to fix it (no caret; see caretMessage)
    int column = -1;     ///< 0-based column in the expression text
};

/// A field the expression reads, with the column where it is written (for warnings).
struct FieldRef
{
    std::string path;
    int column = 0;
};

class Expression
{
public:
    /// Compiles `text`. Returns nullptr and fills `err` on a syntax or type error.
    static std::unique_ptr<Expression> compile(std::string_view text, CompileError &err);

    /// Evaluates against `r`. String results point into `r` or into this expression's scratch
    /// buffers, valid until the next eval() or until `r` changes.
    Value eval(const Record &r) const;
    /// True only when the expression evaluates to the boolean true (filters).
    bool test(const Record &r) const;

    /// The static type of the result (Any when it depends on field values).
    Type type() const { return m_nodes[static_cast<std::size_t>(m_root)].type; }
    const std::vector<FieldRef> &fields() const { return m_fields; }
    const std::string &text() const { return m_text; }
    /// How many `/` or `%` by zero were evaluated (each gave null).
    std::uint64_t divisionsByZero() const { return m_divZero; }

private:
    friend class Parser;
    Value evalNode(int idx, const Record &r) const;
    bool truthy(int idx, const Record &r) const;
    Value compare(const Node &n, const Record &r) const;
    Value arith(const Node &n, const Record &r) const;

    std::string m_text;
    std::vector<Node> m_nodes;
    int m_root = 0;
    std::vector<FieldRef> m_fields;
    mutable std::vector<std::string> m_scratch; ///< one per string-producing node
    mutable std::uint64_t m_divZero = 0;
};

/// "message\n  <text>\n  <spaces>^" — the expression with a caret under the column.
std::string caretMessage(std::string_view text, const CompileError &err);

} // namespace tideline::expr
