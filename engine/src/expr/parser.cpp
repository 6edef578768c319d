// Pratt parser and type checker of the expression language. Types are checked while the tree is
// built, so every error points at the operand that caused it.
//
// Binding powers (higher binds tighter): or 1, and 2, not 3, comparisons and `in` 4
// (not chainable), + - 5, * / % 6, unary minus 7.
//
// The class is declared in parser.hpp; the typing of calls and binary operators is in
// parser_ops.cpp.

#include "expr/parser.hpp"

#include <tideline/engine/catalog.hpp>

#include <algorithm>
#include <limits>

namespace tideline::expr {

const char *typeName(Type t)
{
    switch (t) {
    case Type::Any:
        return "any";
    case Type::Null:
        return "null";
    case Type::Bool:
        return "boolean";
    case Type::Number:
        return "number";
    case Type::String:
        return "string";
    }
    return "?";
}

int Parser::parseTop()
{
    int root = parseExpr(0);
    if (peek().kind != Tok::End) {
        const Token &t = peek();
        if (t.kind == Tok::RParen)
            fail("unmatched ')'", t.column);
        if (isComparison(t.kind) || (t.kind == Tok::Not && peek(1).kind == Tok::In))
            fail("comparisons cannot be chained: combine them with 'and'", t.column);
        fail("unexpected " + describe(t) + ": expected an operator or the end", t.column);
    }
    return root;
}

int Parser::add(Node n)
{
    // Depth of the tree (evaluation recurses over it): bounded like the nesting.
    int depth = 1;
    for (int k : n.kids)
        depth = std::max(depth, m_depthOf[static_cast<std::size_t>(k)] + 1);
    if (depth > kMaxDepth)
        tooDeep(n.column);
    // Nodes that may build a string (concatenation, lower/upper) own a scratch buffer.
    if (n.op == Op::Add || n.op == Op::Lower || n.op == Op::Upper) {
        n.scratch = static_cast<int>(m_e.m_scratch.size());
        m_e.m_scratch.emplace_back();
    }
    m_e.m_nodes.push_back(std::move(n));
    m_depthOf.push_back(depth);
    return static_cast<int>(m_e.m_nodes.size() - 1);
}

int Parser::makeNode(Op op, Type type, int column, std::vector<int> kids)
{
    Node n;
    n.op = op;
    n.type = type;
    n.column = column;
    n.kids = std::move(kids);
    return add(std::move(n));
}

/// Fails unless operand `i` can be of type `want` (Any and null always can).
void Parser::expectType(int i, Type want, const std::string &what)
{
    Type t = node(i).type;
    if (t == want || t == Type::Any || t == Type::Null)
        return;
    fail(what + " needs " + article(want) + typeName(want) + ", but this is " + article(t)
             + typeName(t),
         node(i).column);
}

int Parser::infixPower(const Token &t) const
{
    switch (t.kind) {
    case Tok::Or:
        return 1;
    case Tok::And:
        return 2;
    case Tok::Eq:
    case Tok::Ne:
    case Tok::Lt:
    case Tok::Le:
    case Tok::Gt:
    case Tok::Ge:
    case Tok::In:
        return 4;
    case Tok::Not:
        return peek(1).kind == Tok::In ? 4 : 0; // `x not in [..]`
    case Tok::Plus:
    case Tok::Minus:
        return 5;
    case Tok::Star:
    case Tok::Slash:
    case Tok::Percent:
        return 6;
    default:
        return 0;
    }
}

void Parser::tooDeep(int column)
{
    fail("the expression is nested too deeply (more than " + std::to_string(kMaxDepth)
             + " levels of parentheses, operators or calls); split it, or use `x in [...]` "
               "for a long list of alternatives",
         column);
}

int Parser::parseExpr(int minPower)
{
    Nesting guard(*this);
    int lhs = parsePrefix();
    while (true) {
        const Token &op = peek();
        int power = infixPower(op);
        if (power == 0 || power <= minPower)
            break;
        if (power == 4 && m_lastWasComparison == lhs)
            fail("comparisons cannot be chained: combine them with 'and'", op.column);
        Token opTok = next();
        if (opTok.kind == Tok::Not) {
            next(); // `in`
            lhs = parseIn(lhs, opTok, true);
        } else if (opTok.kind == Tok::In) {
            lhs = parseIn(lhs, opTok, false);
        } else {
            int rhs = parseExpr(power);
            lhs = binary(opTok, lhs, rhs);
        }
        if (power == 4)
            m_lastWasComparison = lhs;
    }
    return lhs;
}

int Parser::parsePrefix()
{
    const Token &t = peek();
    switch (t.kind) {
    case Tok::Int:
    case Tok::Double:
    case Tok::String:
    case Tok::True:
    case Tok::False:
    case Tok::Null: {
        Token tok = next();
        Node n;
        n.op = Op::Const;
        n.column = tok.column;
        if (tok.kind == Tok::Int) {
            n.value = Value::integer(tok.i);
            n.type = Type::Number;
        } else if (tok.kind == Tok::Double) {
            n.value = Value::number(tok.d);
            n.type = Type::Number;
        } else if (tok.kind == Tok::String) {
            n.value = Value::string({});
            n.text = tok.text;
            n.type = Type::String;
        } else if (tok.kind == Tok::Null) {
            n.type = Type::Null;
        } else {
            n.value = Value::boolean(tok.kind == Tok::True);
            n.type = Type::Bool;
        }
        return add(std::move(n));
    }
    case Tok::Ident: {
        Token tok = next();
        if (!tok.quotedIdent && peek().kind == Tok::LParen)
            return parseCall(tok);
        Node n;
        n.op = Op::Field;
        n.type = Type::Any;
        n.column = tok.column;
        n.text = tok.text;
        m_e.m_fields.push_back({tok.text, tok.column});
        return add(std::move(n));
    }
    case Tok::LParen: {
        Token open = next();
        int inner = parseExpr(0);
        if (peek().kind != Tok::RParen)
            fail("expected ')' to close the '(' at column " + std::to_string(open.column)
                     + ", found " + describe(peek()),
                 peek().column);
        next();
        m_lastWasComparison = -1; // (a < b) < c is explicit; the type check handles it
        return inner;
    }
    case Tok::Minus: {
        Token tok = next();
        int operand = parseExpr(6);
        expectType(operand, Type::Number, "'-'");
        Node &o = node(operand);
        if (o.op == Op::Const && o.value.type == ValueType::Int
            && o.value.i != std::numeric_limits<std::int64_t>::min()) {
            o.value.i = -o.value.i; // fold negative literals (usable in `in [..]`)
            o.column = tok.column;
            return operand;
        }
        if (o.op == Op::Const && o.value.type == ValueType::Double) {
            o.value.d = -o.value.d;
            o.column = tok.column;
            return operand;
        }
        Type rt = o.type == Type::Null ? Type::Null : Type::Number;
        return makeNode(Op::Neg, rt, tok.column, {operand});
    }
    case Tok::Not: {
        Token tok = next();
        int operand = parseExpr(2);
        expectType(operand, Type::Bool, "'not'");
        return makeNode(Op::Not, Type::Bool, tok.column, {operand});
    }
    case Tok::End:
        fail(m_pos == 0 ? "the expression is empty"
                        : "expected a value after " + describe(m_toks[m_pos - 1]),
             t.column);
    default:
        fail("expected a value (a field, number, 'string', true/false/null, '(' or a "
             "function) but found "
                 + describe(t),
             t.column);
    }
}

int Parser::parseIn(int lhs, const Token &opTok, bool negated)
{
    if (peek().kind != Tok::LBracket)
        fail("expected '[' after 'in' (a list like [1, 2] or ['a', 'b']), found "
                 + describe(peek()),
             peek().column);
    next();
    std::vector<int> kids{lhs};
    Type elem = Type::Any;
    if (peek().kind != Tok::RBracket) {
        while (true) {
            int item = parseExpr(0);
            const Node &n = node(item);
            if (n.op != Op::Const)
                fail("list items must be constants (numbers, strings, true/false)", n.column);
            if (n.type == Type::Null)
                fail("null in a list never matches (comparisons with null are false); "
                     "test with `x == null` instead",
                     n.column);
            if (elem != Type::Any && n.type != elem)
                fail(std::string("list items must have one type, but this is ") + article(n.type)
                         + typeName(n.type) + " and the first is " + article(elem) + typeName(elem),
                     n.column);
            elem = n.type;
            kids.push_back(item);
            if (peek().kind == Tok::Comma) {
                next();
                continue;
            }
            break;
        }
    }
    if (peek().kind != Tok::RBracket)
        fail("expected ',' or ']' in the list, found " + describe(peek()), peek().column);
    next();
    Type lt = node(lhs).type;
    if (elem != Type::Any && lt != Type::Any && lt != Type::Null && lt != elem)
        fail(std::string("'in' compares ") + article(lt) + typeName(lt) + " with a list of "
                 + typeName(elem) + "s: it is always false",
             node(lhs).column);
    return makeNode(negated ? Op::NotIn : Op::In, Type::Bool, opTok.column, std::move(kids));
}

std::unique_ptr<Expression> Expression::compile(std::string_view text, CompileError &err)
{
    std::vector<Token> toks;
    LexError lexErr;
    if (!tokenize(text, toks, lexErr)) {
        err = {lexErr.message, lexErr.column};
        return nullptr;
    }
    auto e = std::unique_ptr<Expression>(new Expression());
    e->m_text.assign(text);
    try {
        Parser p(std::move(toks), *e);
        e->m_root = p.parseTop();
    } catch (const ParseFailure &f) {
        err = f.err;
        return nullptr;
    }
    return e;
}

std::string caretMessage(std::string_view text, const CompileError &err)
{
    std::string out = err.message;
    if (err.column < 0)
        return out;
    // Show the expression on one line (newlines as spaces) so the caret lines up.
    std::string shown(text);
    for (char &c : shown)
        if (c == '\n' || c == '\r' || c == '\t')
            c = ' ';
    out += " (column ";
    out += std::to_string(err.column + 1);
    out += ")\n    ";
    out += shown;
    out += "\n    ";
    out.append(static_cast<std::size_t>(std::min<int>(err.column, static_cast<int>(shown.size()))),
               ' ');
    out += '^';
    return out;
}

} // namespace tideline::expr
