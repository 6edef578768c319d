#include "expr/lexer.hpp"

#include <cerrno>
#include <cstdlib>

namespace tideline::expr {

namespace {

bool isIdentStart(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool isIdentChar(char c)
{
    return isIdentStart(c) || (c >= '0' && c <= '9');
}
bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}

Tok keyword(std::string_view w)
{
    // Keywords are case-insensitive like SQL's (AND, Or, NOT all work).
    auto eq = [&](std::string_view k) {
        if (w.size() != k.size())
            return false;
        for (std::size_t i = 0; i < w.size(); ++i) {
            char c = w[i];
            if (c >= 'A' && c <= 'Z')
                c = static_cast<char>(c - 'A' + 'a');
            if (c != k[i])
                return false;
        }
        return true;
    };
    if (eq("and"))
        return Tok::And;
    if (eq("or"))
        return Tok::Or;
    if (eq("not"))
        return Tok::Not;
    if (eq("in"))
        return Tok::In;
    if (eq("true"))
        return Tok::True;
    if (eq("false"))
        return Tok::False;
    if (eq("null"))
        return Tok::Null;
    return Tok::Ident;
}

} // namespace

bool tokenize(std::string_view src, std::vector<Token> &out, LexError &err)
{
    out.clear();
    std::size_t i = 0;
    const std::size_t n = src.size();
    auto fail = [&](std::string msg, std::size_t col) {
        err.message = std::move(msg);
        err.column = static_cast<int>(col);
        return false;
    };
    while (true) {
        while (i < n && (src[i] == ' ' || src[i] == '\t' || src[i] == '\n' || src[i] == '\r'))
            ++i;
        Token t;
        t.column = static_cast<int>(i);
        if (i >= n) {
            t.kind = Tok::End;
            out.push_back(std::move(t));
            return true;
        }
        char c = src[i];
        std::size_t start = i;
        if (isIdentStart(c)) {
            // A path: segments of [A-Za-z0-9_] joined by dots (user.id, items.0).
            while (i < n && isIdentChar(src[i]))
                ++i;
            while (i + 1 < n && src[i] == '.' && isIdentChar(src[i + 1])) {
                ++i;
                while (i < n && isIdentChar(src[i]))
                    ++i;
            }
            if (i < n && src[i] == '.')
                return fail("a field path cannot end with '.'", i);
            t.text.assign(src.substr(start, i - start));
            t.kind = t.text.find('.') == std::string::npos ? keyword(t.text) : Tok::Ident;
        } else if (c == '`') {
            // `field-with-dashes`: any bytes but a backtick.
            ++i;
            while (i < n && src[i] != '`')
                ++i;
            if (i >= n)
                return fail("unterminated `quoted field`: add the closing backtick", start);
            t.text.assign(src.substr(start + 1, i - start - 1));
            if (t.text.empty())
                return fail("empty `quoted field`", start);
            ++i;
            t.kind = Tok::Ident;
            t.quotedIdent = true;
        } else if (isDigit(c) || (c == '.' && i + 1 < n && isDigit(src[i + 1]))) {
            bool isDouble = false;
            while (i < n && isDigit(src[i]))
                ++i;
            if (i < n && src[i] == '.') {
                isDouble = true;
                ++i;
                if (i >= n || !isDigit(src[i]))
                    return fail("a number needs digits after '.'", i);
                while (i < n && isDigit(src[i]))
                    ++i;
            }
            if (i < n && (src[i] == 'e' || src[i] == 'E')) {
                isDouble = true;
                ++i;
                if (i < n && (src[i] == '+' || src[i] == '-'))
                    ++i;
                if (i >= n || !isDigit(src[i]))
                    return fail("a number needs digits in its exponent", i);
                while (i < n && isDigit(src[i]))
                    ++i;
            }
            if (i < n && isIdentStart(src[i]))
                return fail("unexpected '" + std::string(1, src[i]) + "' after a number", i);
            std::string num(src.substr(start, i - start));
            if (!isDouble) {
                errno = 0;
                char *end = nullptr;
                long long v = std::strtoll(num.c_str(), &end, 10);
                if (errno == ERANGE)
                    isDouble = true; // too large for int64: keep it as a double
                else {
                    t.kind = Tok::Int;
                    t.i = v;
                }
            }
            if (isDouble) {
                t.kind = Tok::Double;
                t.d = std::strtod(num.c_str(), nullptr);
            }
        } else if (c == '\'' || c == '"') {
            // Quotes: the other quote kind is literal; a backslash escapes the next byte
            // (\n, \t for newline and tab), and a doubled quote stands for itself (SQL style).
            char q = c;
            ++i;
            bool closed = false;
            while (i < n) {
                char ch = src[i];
                if (ch == '\\' && i + 1 < n) {
                    char e = src[i + 1];
                    t.text += e == 'n' ? '\n' : e == 't' ? '\t' : e;
                    i += 2;
                    continue;
                }
                if (ch == q) {
                    if (i + 1 < n && src[i + 1] == q) {
                        t.text += q;
                        i += 2;
                        continue;
                    }
                    ++i;
                    closed = true;
                    break;
                }
                t.text += ch;
                ++i;
            }
            if (!closed)
                return fail(std::string("unterminated string: add the closing ") + q, start);
            t.kind = Tok::String;
        } else {
            auto two = [&](char a, char b) {
                return c == a && i + 1 < n && src[i + 1] == b;
            };
            if (two('=', '=')) {
                t.kind = Tok::Eq;
                i += 2;
            } else if (two('!', '=')) {
                t.kind = Tok::Ne;
                i += 2;
            } else if (two('<', '>')) {
                t.kind = Tok::Ne;
                i += 2;
            } else if (two('<', '=')) {
                t.kind = Tok::Le;
                i += 2;
            } else if (two('>', '=')) {
                t.kind = Tok::Ge;
                i += 2;
            } else if (two('&', '&')) {
                t.kind = Tok::And;
                i += 2;
            } else if (two('|', '|')) {
                t.kind = Tok::Or;
                i += 2;
            } else {
                ++i;
                switch (c) {
                case '(':
                    t.kind = Tok::LParen;
                    break;
                case ')':
                    t.kind = Tok::RParen;
                    break;
                case '[':
                    t.kind = Tok::LBracket;
                    break;
                case ']':
                    t.kind = Tok::RBracket;
                    break;
                case ',':
                    t.kind = Tok::Comma;
                    break;
                case '+':
                    t.kind = Tok::Plus;
                    break;
                case '-':
                    t.kind = Tok::Minus;
                    break;
                case '*':
                    t.kind = Tok::Star;
                    break;
                case '/':
                    t.kind = Tok::Slash;
                    break;
                case '%':
                    t.kind = Tok::Percent;
                    break;
                case '=':
                    t.kind = Tok::Eq;
                    break;
                case '<':
                    t.kind = Tok::Lt;
                    break;
                case '>':
                    t.kind = Tok::Gt;
                    break;
                case '!':
                    t.kind = Tok::Not;
                    break;
                default: {
                    std::string shown = (static_cast<unsigned char>(c) < 0x20)
                                            ? "control character"
                                            : "'" + std::string(1, c) + "'";
                    return fail("unexpected " + shown, start);
                }
                }
            }
        }
        t.length = static_cast<int>(i - start);
        out.push_back(std::move(t));
    }
}

std::string describe(const Token &t)
{
    switch (t.kind) {
    case Tok::End:
        return "the end of the expression";
    case Tok::Int:
        return "number " + std::to_string(t.i);
    case Tok::Double:
        return "a number";
    case Tok::String:
        return "string '" + t.text + "'";
    case Tok::Ident:
        return "'" + t.text + "'";
    case Tok::True:
        return "'true'";
    case Tok::False:
        return "'false'";
    case Tok::Null:
        return "'null'";
    case Tok::And:
        return "'and'";
    case Tok::Or:
        return "'or'";
    case Tok::Not:
        return "'not'";
    case Tok::In:
        return "'in'";
    case Tok::LParen:
        return "'('";
    case Tok::RParen:
        return "')'";
    case Tok::LBracket:
        return "'['";
    case Tok::RBracket:
        return "']'";
    case Tok::Comma:
        return "','";
    case Tok::Plus:
        return "'+'";
    case Tok::Minus:
        return "'-'";
    case Tok::Star:
        return "'*'";
    case Tok::Slash:
        return "'/'";
    case Tok::Percent:
        return "'%'";
    case Tok::Eq:
        return "'=='";
    case Tok::Ne:
        return "'!='";
    case Tok::Lt:
        return "'<'";
    case Tok::Le:
        return "'<='";
    case Tok::Gt:
        return "'>'";
    case Tok::Ge:
        return "'>='";
    }
    return "?";
}

} // namespace tideline::expr
