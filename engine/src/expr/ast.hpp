#pragma once
// The compiled form of an expression: a flat vector of typed nodes (children by index), built
// and type-checked by the parser, evaluated by Expression::eval.

#include <tideline/engine/record.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace tideline::expr {

/// Static types. Any = decided by field values at run time.
enum class Type : std::uint8_t { Any, Null, Bool, Number, String };

const char *typeName(Type t);

enum class Op : std::uint8_t {
    Const, ///< value (string bytes in `text`)
    Field, ///< path in `text`
    Neg,   ///< -a
    Not,   ///< not a
    Add,   ///< a + b (numbers, or two strings: concatenation)
    Sub,
    Mul,
    Div,
    Mod,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
    In, ///< kids[0] in [kids[1..]]
    NotIn,
    IsNull,    ///< a == null
    IsNotNull, ///< a != null
    Lower,
    Upper,
    Len,
    Abs,
    Coalesce,
};

struct Node
{
    Op op = Op::Const;
    Type type = Type::Any;
    int column = 0;
    Value value;      ///< Const (for strings, `s` is re-pointed at `text` on eval)
    std::string text; ///< Field path, or String constant bytes
    std::vector<int> kids;
    int scratch = -1; ///< index of the scratch buffer for string results
};

} // namespace tideline::expr
