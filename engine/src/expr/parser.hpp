#pragma once
// The expression parser's class (internal to engine/src/expr/): a Pratt parser that type-checks
// while it builds the tree. parser.cpp holds the Pratt loop, prefixes and `in` lists;
// parser_ops.cpp the typing of function calls and binary operators.

#include "expr/expr.hpp"
#include "expr/lexer.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace tideline::expr {

struct ParseFailure
{
    CompileError err;
};

inline const char *article(Type t)
{
    return t == Type::Any ? "" : "a ";
}

inline bool isComparison(Tok k)
{
    return k == Tok::Eq || k == Tok::Ne || k == Tok::Lt || k == Tok::Le || k == Tok::Gt
           || k == Tok::Ge || k == Tok::In;
}

class Parser
{
public:
    Parser(std::vector<Token> toks, Expression &e)
        : m_toks(std::move(toks))
        , m_e(e)
    {
    }

    int parseTop();

private:
    const Token &peek(int ahead = 0) const
    {
        std::size_t i = std::min(m_pos + static_cast<std::size_t>(ahead), m_toks.size() - 1);
        return m_toks[i];
    }
    const Token &next() { return m_toks[std::min(m_pos++, m_toks.size() - 1)]; }

    [[noreturn]] void fail(std::string msg, int column)
    {
        throw ParseFailure{CompileError{std::move(msg), column}};
    }

    Node &node(int i) { return m_e.m_nodes[static_cast<std::size_t>(i)]; }

    int add(Node n);

    int makeNode(Op op, Type type, int column, std::vector<int> kids);

    /// Fails unless operand `i` can be of type `want` (Any and null always can).
    void expectType(int i, Type want, const std::string &what);

    int infixPower(const Token &t) const;

    [[noreturn]] void tooDeep(int column);

    /// Counts parseExpr's recursion: a 10,000-deep `((((` fails here, not on the stack.
    struct Nesting
    {
        Parser &p;
        explicit Nesting(Parser &parser)
            : p(parser)
        {
            if (++p.m_nesting > kMaxDepth)
                p.tooDeep(p.peek().column);
        }
        ~Nesting() { --p.m_nesting; }
        Nesting(const Nesting &) = delete;
        Nesting &operator=(const Nesting &) = delete;
    };

    int parseExpr(int minPower);

    int parsePrefix();

    int parseCall(const Token &name);

    int parseIn(int lhs, const Token &opTok, bool negated);

    int binary(const Token &opTok, int lhs, int rhs);

    void checkComparable(int lhs, int rhs, const std::string &sym);

    static constexpr int kMaxDepth = 256;

    std::vector<Token> m_toks;
    std::size_t m_pos = 0;
    int m_nesting = 0;          ///< parseExpr calls in progress
    std::vector<int> m_depthOf; ///< per node: depth of its subtree
    Expression &m_e;
    int m_lastWasComparison = -1; ///< node index of the last comparison built at this level
};

} // namespace tideline::expr
