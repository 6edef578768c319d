// Typing of the expression language's function calls (lower, upper, len, abs, coalesce) and
// binary operators: each picks its node's operation and result type, or fails at the operand.
#include "expr/parser.hpp"

#include <tideline/engine/catalog.hpp>

#include <algorithm>

namespace tideline::expr {

int Parser::parseCall(const Token &name)
{
    static const std::vector<std::string> names = {"lower", "upper", "len", "abs", "coalesce"};
    Op op;
    if (name.text == "lower")
        op = Op::Lower;
    else if (name.text == "upper")
        op = Op::Upper;
    else if (name.text == "len")
        op = Op::Len;
    else if (name.text == "abs")
        op = Op::Abs;
    else if (name.text == "coalesce")
        op = Op::Coalesce;
    else {
        std::string close = closestMatch(name.text, names);
        fail("unknown function '" + name.text + "'"
                 + (close.empty() ? std::string() : " (did you mean '" + close + "'?)")
                 + "; functions: lower, upper, len, abs, coalesce",
             name.column);
    }
    next(); // (
    std::vector<int> args;
    if (peek().kind != Tok::RParen) {
        while (true) {
            args.push_back(parseExpr(0));
            if (peek().kind == Tok::Comma) {
                next();
                continue;
            }
            break;
        }
    }
    if (peek().kind != Tok::RParen)
        fail("expected ',' or ')' in the call of " + name.text + "(), found " + describe(peek()),
             peek().column);
    next();
    m_lastWasComparison = -1;
    auto arity = [&](std::size_t n) {
        if (args.size() != n)
            fail(name.text + "() takes " + std::to_string(n) + " argument" + (n == 1 ? "" : "s")
                     + ", got " + std::to_string(args.size()),
                 name.column);
    };
    switch (op) {
    case Op::Lower:
    case Op::Upper:
        arity(1);
        expectType(args[0], Type::String, name.text + "()");
        return makeNode(op, Type::String, name.column, std::move(args));
    case Op::Len:
        arity(1);
        expectType(args[0], Type::String, "len()");
        return makeNode(op, Type::Number, name.column, std::move(args));
    case Op::Abs:
        arity(1);
        expectType(args[0], Type::Number, "abs()");
        return makeNode(op, Type::Number, name.column, std::move(args));
    default: {
        if (args.empty())
            fail("coalesce() needs at least one argument", name.column);
        // All arguments of a known type must agree; the result has that type when every
        // argument is known, else it is decided at run time.
        Type known = Type::Any;
        bool allKnown = true;
        for (int a : args) {
            Type t = node(a).type;
            if (t == Type::Null)
                continue;
            if (t == Type::Any) {
                allKnown = false;
                continue;
            }
            if (known != Type::Any && known != t)
                fail(std::string("coalesce() arguments must have one type, but this is ")
                         + article(t) + typeName(t) + " and an earlier one is " + article(known)
                         + typeName(known),
                     node(a).column);
            known = t;
        }
        Type result = allKnown ? (known == Type::Any ? Type::Null : known) : Type::Any;
        return makeNode(Op::Coalesce, result, name.column, std::move(args));
    }
    }
}

int Parser::binary(const Token &opTok, int lhs, int rhs)
{
    Type lt = node(lhs).type, rt = node(rhs).type;
    std::string sym = describe(opTok);
    int col = opTok.column;
    switch (opTok.kind) {
    case Tok::And:
    case Tok::Or:
        expectType(lhs, Type::Bool, sym);
        expectType(rhs, Type::Bool, sym);
        return makeNode(opTok.kind == Tok::And ? Op::And : Op::Or, Type::Bool, col, {lhs, rhs});
    case Tok::Plus: {
        bool lStr = lt == Type::String, rStr = rt == Type::String;
        if (lStr || rStr) {
            // String concatenation: both sides strings (or unknown/null).
            int other = lStr ? rhs : lhs;
            Type ot = lStr ? rt : lt;
            if (ot != Type::String && ot != Type::Any && ot != Type::Null)
                fail(std::string("'+' joins two strings or adds two numbers, but this is ")
                         + article(ot) + typeName(ot) + " and the other side a string",
                     node(other).column);
            Type t = (lt == Type::Null || rt == Type::Null) ? Type::Null
                     : (lStr && rStr)                       ? Type::String
                                                            : Type::Any;
            return makeNode(Op::Add, t, col, {lhs, rhs});
        }
        expectType(lhs, Type::Number, sym);
        expectType(rhs, Type::Number, sym);
        // A number on either side makes the result a number (or null at run time).
        Type t = (lt == Type::Null || rt == Type::Null)       ? Type::Null
                 : (lt == Type::Number || rt == Type::Number) ? Type::Number
                                                              : Type::Any;
        return makeNode(Op::Add, t, col, {lhs, rhs});
    }
    case Tok::Minus:
    case Tok::Star:
    case Tok::Slash:
    case Tok::Percent: {
        expectType(lhs, Type::Number, sym);
        expectType(rhs, Type::Number, sym);
        Op op = opTok.kind == Tok::Minus   ? Op::Sub
                : opTok.kind == Tok::Star  ? Op::Mul
                : opTok.kind == Tok::Slash ? Op::Div
                                           : Op::Mod;
        Type t = (lt == Type::Null || rt == Type::Null) ? Type::Null : Type::Number;
        return makeNode(op, t, col, {lhs, rhs});
    }
    case Tok::Eq:
    case Tok::Ne: {
        bool eq = opTok.kind == Tok::Eq;
        // `x == null` is a null test (SQL's IS NULL), not a comparison.
        if (node(rhs).op == Op::Const && rt == Type::Null)
            return makeNode(eq ? Op::IsNull : Op::IsNotNull, Type::Bool, col, {lhs});
        if (node(lhs).op == Op::Const && lt == Type::Null)
            return makeNode(eq ? Op::IsNull : Op::IsNotNull, Type::Bool, col, {rhs});
        checkComparable(lhs, rhs, sym);
        return makeNode(eq ? Op::Eq : Op::Ne, Type::Bool, col, {lhs, rhs});
    }
    case Tok::Lt:
    case Tok::Le:
    case Tok::Gt:
    case Tok::Ge: {
        for (int side : {lhs, rhs})
            if (node(side).type == Type::Bool)
                fail(sym + " orders numbers or strings, but this is a boolean", node(side).column);
        checkComparable(lhs, rhs, sym);
        Op op = opTok.kind == Tok::Lt   ? Op::Lt
                : opTok.kind == Tok::Le ? Op::Le
                : opTok.kind == Tok::Gt ? Op::Gt
                                        : Op::Ge;
        return makeNode(op, Type::Bool, col, {lhs, rhs});
    }
    default:
        fail("unexpected " + sym, col);
    }
}

void Parser::checkComparable(int lhs, int rhs, const std::string &sym)
{
    Type lt = node(lhs).type, rt = node(rhs).type;
    if (lt == Type::Any || rt == Type::Any || lt == Type::Null || rt == Type::Null || lt == rt)
        return;
    fail(sym + " compares " + article(lt) + typeName(lt) + " with " + article(rt) + typeName(rt)
             + ": it is always false (convert one side, or compare like with " + "like)",
         node(rhs).column);
}

} // namespace tideline::expr
