#include "expr/lexer.hpp"

#include <tideline/engine/record.hpp>

#include <charconv>
#include <cstdint>

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

/// Where the first significant digit of a decimal literal sits (1 for 1.5, -2 for 0.001,
/// 401 for 1e400), for telling numbers too large from numbers too small.
long long magnitude(std::string_view num)
{
    long long mag = 0, exp10 = 0;
    bool seenPoint = false, seenDigit = false;
    std::size_t i = 0;
    for (; i < num.size() && num[i] != 'e' && num[i] != 'E'; ++i) {
        const char c = num[i];
        if (c == '.') {
            seenPoint = true;
        } else if (!seenDigit && c == '0') {
            if (seenPoint)
                --mag;
        } else if (!seenDigit) {
            seenDigit = true;
            if (!seenPoint)
                mag = 1; // after the point, mag already counts the zeros before this digit
        } else if (!seenPoint) {
            ++mag;
        }
    }
    if (i < num.size()) {
        bool neg = false;
        ++i;
        if (i < num.size() && (num[i] == '+' || num[i] == '-'))
            neg = num[i++] == '-';
        for (; i < num.size() && exp10 < 1'000'000'000; ++i)
            exp10 = exp10 * 10 + (num[i] - '0');
        mag += neg ? -exp10 : exp10;
    }
    return mag;
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
        if (isIdentStart(c) || c == '`') {
            // A path: keys joined by dots (user.id, items.0). A key of [A-Za-z0-9_] is written
            // as it is; any other key in backticks, a backtick in it doubled (`odd-name`,
            // `service.name`, resource.`service.name`). The token's text is the canonical path
            // records use (tideline/engine/record.hpp, fieldpath).
            bool firstQuoted = false, plainOnly = true;
            std::string key;
            bool firstSeg = true;
            while (true) {
                key.clear();
                if (i < n && src[i] == '`') {
                    const std::size_t open = i;
                    if (!fieldpath::readQuotedKey(src, i, key))
                        return fail("unterminated `quoted field`: add the closing backtick "
                                    "(a backtick inside it is written ``)",
                                    open);
                    if (firstSeg)
                        firstQuoted = true;
                    plainOnly = false;
                } else if (i < n && isIdentChar(src[i]) && (!firstSeg || isIdentStart(src[i]))) {
                    while (i < n && isIdentChar(src[i]))
                        key += src[i++];
                } else {
                    return fail("a field path cannot end with '.'", i - 1);
                }
                fieldpath::appendKey(t.text, key);
                firstSeg = false;
                if (i < n && src[i] == '.' && i + 1 < n
                    && (isIdentChar(src[i + 1]) || src[i + 1] == '`')) {
                    t.text += '.';
                    ++i;
                    plainOnly = false;
                    continue;
                }
                break;
            }
            if (i < n && src[i] == '.')
                return fail("a field path cannot end with '.'", i);
            if (i < n && src[i] == '`')
                return fail("a backtick right after a name: join keys with '.' (a.`b`)", i);
            t.kind = plainOnly ? keyword(t.text) : Tok::Ident;
            t.quotedIdent = firstQuoted;
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
            const std::string_view num = src.substr(start, i - start);
            if (!isDouble) {
                std::int64_t v = 0;
                auto r = std::from_chars(num.data(), num.data() + num.size(), v);
                if (r.ec != std::errc())
                    return fail("the integer " + std::string(num)
                                    + " does not fit in 64 bits (at most 9223372036854775807)",
                                start);
                t.kind = Tok::Int;
                t.i = v;
            } else {
                // from_chars, not strtod: the C locale's decimal point whatever the process's.
                double d = 0;
                auto r = std::from_chars(num.data(), num.data() + num.size(), d);
                if (r.ec != std::errc()) {
                    const bool tiny = magnitude(num) <= 0;
                    return fail(tiny ? "the number " + std::string(num)
                                           + " is too small for a double (it would be 0)"
                                     : "the number " + std::string(num)
                                           + " is too large for a double (beyond 1.8e308)",
                                start);
                }
                t.kind = Tok::Double;
                t.d = d;
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
