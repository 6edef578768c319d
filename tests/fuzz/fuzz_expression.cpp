// The expression language: lexer, parser/type checker and evaluation. The input is an
// expression, optionally followed by a NUL byte and a JSON record to evaluate it on (else a
// few fixed records). Properties: nothing crashes (deep nesting is a compile error, not a
// stack overflow); a compile error has a message and a column inside the text; evaluation
// gives a value of the static type (or null); test() agrees with eval().

#include "expr/expr.hpp"
#include "fuzz_common.hpp"

#include <tideline/engine/record_json.hpp>

#include <vector>

using namespace tideline;

namespace {

bool typeFits(expr::Type t, const Value &v)
{
    switch (t) {
    case expr::Type::Any:
        return true;
    case expr::Type::Null:
        return v.isNull();
    case expr::Type::Bool:
        return v.isNull() || v.type == ValueType::Bool;
    case expr::Type::Number:
        return v.isNull() || v.isNumber();
    case expr::Type::String:
        return v.isNull() || v.type == ValueType::String;
    }
    return false;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    std::string_view in = fuzz::asText(data, size);
    std::string_view text = in, json;
    if (auto nul = in.find('\0'); nul != std::string_view::npos) {
        text = in.substr(0, nul);
        json = in.substr(nul + 1);
    }
    expr::CompileError err;
    auto e = expr::Expression::compile(text, err);
    if (!e) {
        FUZZ_CHECK(!err.message.empty(), "compile error without a message: " + fuzz::shown(text));
        FUZZ_CHECK(err.column >= -1 && err.column <= static_cast<int>(text.size()),
                   "column " + std::to_string(err.column) + " outside " + fuzz::shown(text));
        (void)expr::caretMessage(text, err);
        return 0;
    }
    static RecordParser parser;
    std::vector<Record> records(4);
    std::string perr;
    FUZZ_CHECK(
        parser.parse(R"({"a":1,"b":-2.5,"s":"x","t":true,"n":null,"o":{"p":9223372036854775807}})",
                     records[0], perr),
        perr);
    FUZZ_CHECK(parser.parse(R"({"a":-9223372036854775808,"b":0,"s":"","arr":[1,2],"a.b":"dot"})",
                            records[1], perr),
               perr);
    records[2] = Record{};
    if (json.empty() || !parser.parse(json, records[3], perr))
        records.pop_back();
    for (const auto &r : records) {
        const Value v = e->eval(r);
        FUZZ_CHECK(typeFits(e->type(), v),
                   "a value outside the static type for " + fuzz::shown(text));
        const bool t = e->test(r);
        FUZZ_CHECK(t == (v.type == ValueType::Bool && v.b),
                   "test() disagrees with eval() for " + fuzz::shown(text));
        for (const auto &f : e->fields())
            FUZZ_CHECK(fieldpath::isCanonical(f.path),
                       "field path not canonical: " + fuzz::shown(f.path));
    }
    return 0;
}
