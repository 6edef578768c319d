#pragma once
// Tokens of the expression language (filter/map). The lexer works on the expression text once,
// at compile time; nothing here runs per record.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tideline::expr {

enum class Tok : std::uint8_t {
    End,
    Int,    ///< 42
    Double, ///< 4.2, 1e3
    String, ///< 'a' or "a" (text holds the unescaped bytes)
    Ident,  ///< field path or function name: user.id, `odd-name`, lower
    True,
    False,
    Null,
    And,
    Or,
    Not,
    In,
    LParen,
    RParen,
    LBracket,
    RBracket,
    Comma,
    Plus,
    Minus,
    Star,
    Slash,
    Percent,
    Eq, ///< == or =
    Ne, ///< != or <>
    Lt,
    Le,
    Gt,
    Ge,
};

struct Token
{
    Tok kind = Tok::End;
    int column = 0;   ///< 0-based byte offset of the token's first character
    int length = 0;   ///< bytes of source text
    std::string text; ///< identifier path or unescaped string bytes
    std::int64_t i = 0;
    double d = 0;
    bool quotedIdent = false; ///< written `like-this`: never a function or keyword
};

struct LexError
{
    std::string message;
    int column = -1;
};

/// Splits `src` into tokens (the last one is End). Returns false and fills `err` on the first
/// problem (unterminated string, stray character, malformed number).
bool tokenize(std::string_view src, std::vector<Token> &out, LexError &err);

/// How a token is shown in messages: `'>'`, `end of expression`, `name`.
std::string describe(const Token &t);

} // namespace tideline::expr
