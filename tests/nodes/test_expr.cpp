// The expression language of filter/map: evaluation semantics (nulls, missing fields, division
// by zero, types at run time), precedence, and compile errors with their exact columns; then
// validation of filter/map/join/dedup/enrich params as the runner and designer see it.

#include "expr/expr.hpp"

#include <tideline/engine/record_json.hpp>
#include <tideline/engine/spec.hpp>
#include <tideline/engine/validate.hpp>

#include <QtTest>

using namespace tideline;

namespace {

/// "int:3", "double:3.5", "str:ab", "bool:true", "null", or "compile error: ..." — exact and
/// independent of JSON number formatting.
std::string show(const Value &v)
{
    switch (v.type) {
    case ValueType::Null:
        return "null";
    case ValueType::Bool:
        return v.b ? "bool:true" : "bool:false";
    case ValueType::Int:
        return "int:" + std::to_string(v.i);
    case ValueType::Double: {
        char buf[64];
        std::snprintf(buf, sizeof buf, "double:%g", v.d);
        return buf;
    }
    case ValueType::String:
        return "str:" + std::string(v.s);
    case ValueType::Raw:
        return "raw:" + std::string(v.s);
    }
    return "?";
}

Record rec(const std::string &json)
{
    RecordParser p;
    Record r;
    std::string err;
    if (!p.parse(json, r, err))
        qFatal("bad test record %s: %s", json.c_str(), err.c_str());
    return r;
}

std::string eval(const std::string &text, const std::string &json = "{}")
{
    expr::CompileError err;
    auto e = expr::Expression::compile(text, err);
    if (!e)
        return "compile error: " + err.message;
    Record r = rec(json);
    return show(e->eval(r));
}

std::vector<Diagnostic> diagnosticsFor(const Json &pipeline, const std::string &nodeId)
{
    LoadResult loaded = loadSpec(pipeline.dump());
    std::vector<Diagnostic> out;
    for (const auto &d : loaded.diagnostics)
        if (d.nodeId == nodeId)
            out.push_back(d);
    return out;
}

/// generator -> watermark -> <node under test> -> console (or a file source instead).
Json pipelineWith(const Json &node, bool generator = true)
{
    Json j = Json::parse(R"({"format": "tideline/1", "name": "v", "nodes": [], "edges": [
        {"from": "src.out", "to": "wm.in"}, {"from": "wm.out", "to": "n.in"},
        {"from": "n.out", "to": "out.in"}]})");
    if (generator)
        j["nodes"].push_back(
            Json::parse(R"({"id": "src", "kind": "source.generator", "params": {"count": 10}})"));
    else
        j["nodes"].push_back(
            Json::parse(R"({"id": "src", "kind": "source.file", "params": {"path": "in.jsonl"}})"));
    j["nodes"].push_back(Json::parse(R"({"id": "wm", "kind": "watermark", "params":
        {"time_field": "event_time", "max_out_of_orderness_ms": 0}})"));
    Json n = node;
    n["id"] = "n";
    j["nodes"].push_back(n);
    j["nodes"].push_back(Json::parse(R"({"id": "out", "kind": "sink.console", "params": {}})"));
    return j;
}

const Diagnostic *find(const std::vector<Diagnostic> &ds,
                       Diagnostic::Severity sev,
                       const std::string &param,
                       const std::string &text)
{
    for (const auto &d : ds)
        if (d.severity == sev && d.param == param && d.message.find(text) != std::string::npos)
            return &d;
    return nullptr;
}

QString dump(const std::vector<Diagnostic> &ds)
{
    QString s;
    for (const auto &d : ds)
        s += QString::fromStdString(d.format()) + " [col " + QString::number(d.column) + "]\n";
    return s;
}

} // namespace

class ExprTest : public QObject
{
    Q_OBJECT

private slots:
    void evaluation_data()
    {
        QTest::addColumn<QString>("expr");
        QTest::addColumn<QString>("record");
        QTest::addColumn<QString>("expected");
        auto row = [](const char *name, const char *e, const char *r, const char *x) {
            QTest::newRow(name) << e << r << x;
        };
        // literals, arithmetic, precedence
        row("int add", "value + 1", R"({"value": 41})", "int:42");
        row("precedence", "1 + 2 * 3", "{}", "int:7");
        row("parens", "(1 + 2) * 3", "{}", "int:9");
        row("unary minus", "-2 * 3", "{}", "int:-6");
        row("minus field", "-value", R"({"value": 5})", "int:-5");
        row("division is double", "7 / 2", "{}", "double:3.5");
        row("modulo", "7 % 3", "{}", "int:1");
        row("modulo sign of dividend", "-7 % 3", "{}", "int:-1");
        row("double modulo", "7.5 % 2", "{}", "double:1.5");
        row("mixed", "2 * 3.5", "{}", "double:7");
        row("overflow to double", "9223372036854775807 + 1", "{}", "double:9.22337e+18");
        row("nested path", "user.id * 10", R"({"user": {"id": 4}})", "int:40");
        row("quoted field", "`odd-name` + 1", R"({"odd-name": 1})", "int:2");
        row("exponent", "1e3 + 1", "{}", "double:1001");
        // strings
        row("single quotes", "'abc'", "{}", "str:abc");
        row("double quotes", "\"dq\"", "{}", "str:dq");
        row("doubled quote", "'it''s'", "{}", "str:it's");
        row("other quote inside", "\"it's\"", "{}", "str:it's");
        row("concat", "'a' + \"b\"", "{}", "str:ab");
        row("concat fields", "first + ' ' + last", R"({"first": "Ada", "last": "L"})", "str:Ada L");
        row("string order", "'abc' < 'abd'", "{}", "bool:true");
        // functions
        row("lower", "lower(c)", R"({"c": "DE"})", "str:de");
        row("upper + lower", "upper('a') + lower('B')", "{}", "str:Ab");
        row("len utf8", "len('h\xc3\xa9llo')", "{}", "int:5");
        row("len of number is null", "len(x)", R"({"x": 5})", "null");
        row("abs int", "abs(-3)", "{}", "int:3");
        row("abs double", "abs(x)", R"({"x": -2.5})", "double:2.5");
        row("coalesce default", "coalesce(a, b, 'none')", "{}", "str:none");
        row("coalesce second", "coalesce(a, b, 0)", R"({"b": 2})", "int:2");
        row("coalesce explicit null", "coalesce(a, 1)", R"({"a": null})", "int:1");
        // nulls and missing fields
        row("missing + 1", "value + 1", "{}", "null");
        row("null + 1", "value + 1", R"({"value": null})", "null");
        row("string * 2 at run time", "value * 2", R"({"value": "x"})", "null");
        row("missing > 1 is false", "a > 1", "{}", "bool:false");
        row("not (missing > 1)", "not (a > 1)", "{}", "bool:true");
        row("missing != 1 is false", "a != 1", "{}", "bool:false");
        row("null == 1 is false", "a == 1", R"({"a": null})", "bool:false");
        row("missing == null", "a == null", "{}", "bool:true");
        row("null == null field", "a == null", R"({"a": null})", "bool:true");
        row("null literal left", "null == a", R"({"a": 0})", "bool:false");
        row("not null", "a != null", R"({"a": 0})", "bool:true");
        row("object is not null", "user == null", R"({"user": {"id": 1}})", "bool:false");
        row("object != null", "user != null", R"({"user": {"id": 1}})", "bool:true");
        row("and with null", "a and b", R"({"a": true, "b": null})", "bool:false");
        row("or with null", "a or b", R"({"a": null, "b": true})", "bool:true");
        row("not null is true", "not a", "{}", "bool:true");
        // comparisons
        row("int == double", "x == 1", R"({"x": 1.0})", "bool:true");
        row("int < double", "x < 1.5", R"({"x": 1})", "bool:true");
        row("bool equality", "flag == true", R"({"flag": true})", "bool:true");
        row("string vs number at run time", "x == 1", R"({"x": "1"})", "bool:false");
        row("le bound", "x <= 3", R"({"x": 3})", "bool:true");
        row("ge bound", "x >= 3", R"({"x": 3})", "bool:true");
        row("ne", "x <> 3", R"({"x": 4})", "bool:true");
        row("keywords any case", "a > 1 AND b < 2 Or false", R"({"a": 2, "b": 1})", "bool:true");
        row("and binds tighter", "a == 1 or b == 2 and c == 3", R"({"a": 1, "b": 0})", "bool:true");
        row("not binds looser than ==", "not a == 1", R"({"a": 2})", "bool:true");
        // in
        row("in strings", "country in ['de', 'fr']", R"({"country": "de"})", "bool:true");
        row("in miss", "country in ['de', 'fr']", R"({"country": "us"})", "bool:false");
        row("in numbers 2.0", "x in [1, 2]", R"({"x": 2.0})", "bool:true");
        row("in negative", "x in [-1, 2]", R"({"x": -1})", "bool:true");
        row("not in", "x not in [1, 2]", R"({"x": 3})", "bool:true");
        row("missing in is false", "x in [1]", "{}", "bool:false");
        row("missing not in is false", "x not in [1]", "{}", "bool:false");
        row("in with lower", "lower(c) in ['de']", R"({"c": "DE"})", "bool:true");
        row("empty list", "x in []", R"({"x": 1})", "bool:false");
    }

    void evaluation()
    {
        QFETCH(QString, expr);
        QFETCH(QString, record);
        QFETCH(QString, expected);
        QCOMPARE(QString::fromStdString(eval(expr.toStdString(), record.toStdString())), expected);
    }

    void backtickPathsNameKeysWithDots()
    {
        const std::string r
            = R"({"service.name":"api","service":{"name":"x"},"a":{"b.c":2},"q`r":3})";
        QCOMPARE(eval("`service.name`", r), std::string("str:api"));
        QCOMPARE(eval("service.name", r), std::string("str:x"));
        QCOMPARE(eval("a.`b.c` + 1", r), std::string("int:3"));
        QCOMPARE(eval("`q``r`", r), std::string("int:3"));
        QCOMPARE(eval("`service`.`name`", r), std::string("str:x"));  // needless quotes
        QCOMPARE(eval("`and` == null", r), std::string("bool:true")); // a field, not a keyword
        expr::CompileError err;
        auto e = expr::Expression::compile("a.`b.c` > `x`", err);
        QVERIFY(e);
        QCOMPARE(e->fields()[0].path, std::string("a.`b.c`"));
        QCOMPARE(e->fields()[1].path, std::string("x"));
    }

    void nestingIsLimited()
    {
        for (const std::string &text :
             {std::string(300, '(') + "1" + std::string(300, ')'), std::string(300, '-') + "1",
              [] {
                  std::string s = "1";
                  for (int i = 0; i < 300; ++i)
                      s += " + 1";
                  return s;
              }(),
              std::string(100000, '(')}) {
            expr::CompileError err;
            QVERIFY(!expr::Expression::compile(text, err));
            QVERIFY2(err.message.find("nested too deeply") != std::string::npos,
                     err.message.c_str());
        }
        QCOMPARE(eval(std::string(250, '(') + "1" + std::string(250, ')')), std::string("int:1"));
    }

    void divisionByZeroIsNullAndCounted()
    {
        expr::CompileError err;
        auto e = expr::Expression::compile("a / b", err);
        QVERIFY(e);
        QCOMPARE(show(e->eval(rec(R"({"a": 1, "b": 0})"))), std::string("null"));
        QCOMPARE(show(e->eval(rec(R"({"a": 1.5, "b": 0.0})"))), std::string("null"));
        QCOMPARE(show(e->eval(rec(R"({"a": 1, "b": 4})"))), std::string("double:0.25"));
        QCOMPARE(e->divisionsByZero(), std::uint64_t(2));
        auto m = expr::Expression::compile("a % b", err);
        QVERIFY(m);
        QCOMPARE(show(m->eval(rec(R"({"a": 5, "b": 0})"))), std::string("null"));
        QCOMPARE(m->divisionsByZero(), std::uint64_t(1));
        // null / 0 is null because of the null, not a division: not counted
        QCOMPARE(show(m->eval(rec(R"({"b": 0})"))), std::string("null"));
        QCOMPARE(m->divisionsByZero(), std::uint64_t(1));
    }

    void fieldsAndTypes()
    {
        expr::CompileError err;
        auto e = expr::Expression::compile("lower(country) in ['de'] and value > 10", err);
        QVERIFY(e);
        QCOMPARE(e->type(), expr::Type::Bool);
        QCOMPARE(e->fields().size(), std::size_t(2));
        QCOMPARE(e->fields()[0].path, std::string("country"));
        QCOMPARE(e->fields()[0].column, 6);
        QCOMPARE(e->fields()[1].path, std::string("value"));
        QCOMPARE(e->fields()[1].column, 29);
        QCOMPARE(expr::Expression::compile("value * 2", err)->type(), expr::Type::Number);
        QCOMPARE(expr::Expression::compile("value", err)->type(), expr::Type::Any);
        QCOMPARE(expr::Expression::compile("lower(x)", err)->type(), expr::Type::String);
    }

    // Each bad expression fails with a message and the 0-based column of the culprit.
    void compileErrors_data()
    {
        QTest::addColumn<QString>("expr");
        QTest::addColumn<int>("column");
        QTest::addColumn<QString>("message");
        auto row = [](const char *e, int col, const char *msg) {
            QTest::newRow(e) << e << col << msg;
        };
        row("", 0, "the expression is empty");
        row("value >", 7, "expected a value after '>'");
        row("value > > 3", 8, "expected a value");
        row("(value > 3", 10, "expected ')' to close the '(' at column 0");
        row("value > 3)", 9, "unmatched ')'");
        row("value > 3 4", 10, "unexpected number 4");
        row("'abc", 0, "unterminated string");
        row("x == \"abc", 5, "unterminated string");
        row("value # 3", 6, "unexpected '#'");
        row("a.b. > 1", 3, "cannot end with '.'");
        row("`open", 0, "unterminated `quoted field`");
        row("1.x", 2, "digits after '.'");
        row("12abc", 2, "after a number");
        row("lowr(x)", 0, "unknown function 'lowr' (did you mean 'lower'?)");
        row("len(a, b)", 0, "len() takes 1 argument, got 2");
        row("coalesce()", 0, "coalesce() needs at least one argument");
        row("lower(x", 7, "expected ',' or ')'");
        row("'a' * 2", 0, "'*' needs a number, but this is a string");
        row("1 + 'x'", 0, "'+' joins two strings or adds two numbers, but this is a number");
        row("value > 'x' and 3", 16, "'and' needs a boolean, but this is a number");
        row("not 5", 4, "'not' needs a boolean, but this is a number");
        row("-'a'", 1, "'-' needs a number, but this is a string");
        row("a < b < c", 6, "comparisons cannot be chained");
        row("a == 1 == 2", 7, "comparisons cannot be chained");
        row("x in [1, 'a']", 9, "list items must have one type");
        row("x in [y]", 6, "list items must be constants");
        row("x in [null]", 6, "null in a list never matches");
        row("x in 1", 5, "expected '[' after 'in'");
        row("1 == 'a'", 5, "'==' compares a number with a string: it is always false");
        row("true < 1", 0, "'<' orders numbers or strings, but this is a boolean");
        row("abs('x')", 4, "abs() needs a number, but this is a string");
        row("upper(1)", 6, "upper() needs a string, but this is a number");
        row("coalesce(1, 'a')", 12, "coalesce() arguments must have one type");
        row("'a' in [1, 2]", 0, "'in' compares a string with a list of numbers");
        row("a`b` > 1", 1, "a backtick right after a name");
        row("`a`b > 1", 3, "unexpected 'b'");
        row("`a``b > 1", 0, "unterminated `quoted field`");
        row("x > 1e400", 4, "too large for a double");
        row("x > 1e-400", 4, "too small for a double");
        row("x > 99999999999999999999", 4, "does not fit in 64 bits");
    }

    void compileErrors()
    {
        QFETCH(QString, expr);
        QFETCH(int, column);
        QFETCH(QString, message);
        expr::CompileError err;
        auto e = expr::Expression::compile(expr.toStdString(), err);
        QVERIFY2(!e, "expected a compile error");
        QVERIFY2(QString::fromStdString(err.message).contains(message),
                 qPrintable(QString::fromStdString(err.message)));
        QCOMPARE(err.column, column);
    }

    void caretLinesUpUnderTheColumn()
    {
        expr::CompileError err;
        QVERIFY(!expr::Expression::compile("value >", err));
        QCOMPARE(expr::caretMessage("value >", err),
                 std::string("expected a value after '>' (column 8)\n"
                             "    value >\n"
                             "           ^"));
    }

    // --- validation of the nodes' params, as `tideline-run --validate` reports it ---

    void filterSyntaxErrorIsDiagnosticWithColumnAndCaret()
    {
        auto ds = diagnosticsFor(
            pipelineWith(Json{{"kind", "filter"}, {"params", {{"expr", "value > > 3"}}}}), "n");
        const Diagnostic *d = find(ds, Diagnostic::Severity::Error, "expr", "expected a value");
        QVERIFY2(d, qPrintable(dump(ds)));
        QCOMPARE(d->column, 8);
        QCOMPARE(d->path, std::string("nodes[2].params.expr"));
        QVERIFY2(d->message.find("\n    value > > 3\n            ^") != std::string::npos,
                 d->message.c_str());
        QVERIFY(d->format().find("nodes[2] \"n\": params.expr") != std::string::npos);
    }

    void filterMustBeBoolean()
    {
        auto ds = diagnosticsFor(
            pipelineWith(Json{{"kind", "filter"}, {"params", {{"expr", "value + 1"}}}}), "n");
        QVERIFY2(find(ds, Diagnostic::Severity::Error, "expr", "true/false"), qPrintable(dump(ds)));
    }

    void filterTypeMismatchIsError()
    {
        auto ds = diagnosticsFor(
            pipelineWith(Json{{"kind", "filter"}, {"params", {{"expr", "user_id == 'u1'"}}}}), "n");
        // user_id's type is not known statically: no error for a field vs string.
        QVERIFY2(!find(ds, Diagnostic::Severity::Error, "expr", ""), qPrintable(dump(ds)));
        ds = diagnosticsFor(
            pipelineWith(Json{{"kind", "filter"}, {"params", {{"expr", "value > 1 and 'x'"}}}}),
            "n");
        const Diagnostic *d = find(ds, Diagnostic::Severity::Error, "expr", "needs a boolean");
        QVERIFY2(d, qPrintable(dump(ds)));
        QCOMPARE(d->column, 14);
    }

    void unknownFieldWarnsOnlyForKnownSchema()
    {
        auto ds = diagnosticsFor(
            pipelineWith(Json{{"kind", "filter"}, {"params", {{"expr", "vlaue > 3"}}}}), "n");
        const Diagnostic *d = find(ds, Diagnostic::Severity::Warning, "expr", "'vlaue'");
        QVERIFY2(d, qPrintable(dump(ds)));
        QVERIFY(d->message.find("did you mean 'value'") != std::string::npos);
        QVERIFY(!find(ds, Diagnostic::Severity::Error, "expr", ""));
        // Known fields: no warning.
        ds = diagnosticsFor(
            pipelineWith(
                Json{{"kind", "filter"}, {"params", {{"expr", "value > 3 and user_id != 1"}}}}),
            "n");
        QVERIFY2(ds.empty(), qPrintable(dump(ds)));
        // A file source's schema is unknown: no warning at all.
        ds = diagnosticsFor(
            pipelineWith(Json{{"kind", "filter"}, {"params", {{"expr", "vlaue > 3"}}}}, false),
            "n");
        QVERIFY2(ds.empty(), qPrintable(dump(ds)));
    }

    void mapValidation()
    {
        // A type error in one `set` entry names that entry.
        auto ds = diagnosticsFor(
            pipelineWith(Json{{"kind", "map"}, {"params", {{"set", {{"total", "value * 'x'"}}}}}}),
            "n");
        const Diagnostic *d = find(ds, Diagnostic::Severity::Error, "set.total", "needs a number");
        QVERIFY2(d, qPrintable(dump(ds)));
        QCOMPARE(d->column, 8);
        QCOMPARE(d->path, std::string("nodes[2].params.set.total"));
        // Fields set earlier are known to later expressions; unknown keep fields warn.
        ds = diagnosticsFor(
            pipelineWith(Json{{"kind", "map"},
                              {"params",
                               {{"set", {{"double", "value * 2"}, {"plus", "double + 1"}}},
                                {"keep", {"double", "plus", "nope"}}}}}),
            "n");
        QVERIFY2(find(ds, Diagnostic::Severity::Warning, "keep", "'nope'"), qPrintable(dump(ds)));
        QCOMPARE(ds.size(), std::size_t(1));
        ds = diagnosticsFor(pipelineWith(Json{{"kind", "map"}, {"params", Json::object()}}), "n");
        QVERIFY2(find(ds, Diagnostic::Severity::Warning, "", "passes records unchanged"),
                 qPrintable(dump(ds)));
        ds = diagnosticsFor(
            pipelineWith(Json{{"kind", "map"}, {"params", {{"set", {{"a..b", "1"}}}}}}), "n");
        QVERIFY2(find(ds, Diagnostic::Severity::Error, "set.a..b", "not a field path"),
                 qPrintable(dump(ds)));
    }

    void dedupAndUpsertNeedAKey()
    {
        auto ds = diagnosticsFor(
            pipelineWith(
                Json{{"kind", "dedup"}, {"params", {{"key", Json::array()}, {"within_ms", 10}}}}),
            "n");
        QVERIFY2(find(ds, Diagnostic::Severity::Error, "key", "at least one field"),
                 qPrintable(dump(ds)));
    }

    void joinValidation()
    {
        Json j = Json::parse(R"({"format": "tideline/1", "name": "v", "nodes": [
            {"id": "a", "kind": "source.generator", "params": {"count": 10}},
            {"id": "b", "kind": "source.generator", "params": {"count": 10}},
            {"id": "wa", "kind": "watermark", "params": {"time_field": "event_time", "max_out_of_orderness_ms": 0}},
            {"id": "wb", "kind": "watermark", "params": {"time_field": "event_time", "max_out_of_orderness_ms": 0}},
            {"id": "j", "kind": "join", "params": {"left_key": ["user_id"], "right_key": ["user_id", "event_id"],
                                                  "lower_ms": 10, "upper_ms": 5}},
            {"id": "out", "kind": "sink.console", "params": {}}],
            "edges": [{"from": "a.out", "to": "wa.in"}, {"from": "b.out", "to": "wb.in"},
                      {"from": "wa.out", "to": "j.left"}, {"from": "wb.out", "to": "j.right"},
                      {"from": "j.out", "to": "out.in"}]})");
        auto ds = diagnosticsFor(j, "j");
        QVERIFY2(
            find(ds, Diagnostic::Severity::Error, "right_key", "has 2 field(s) but left_key has 1"),
            qPrintable(dump(ds)));
        QVERIFY2(find(ds, Diagnostic::Severity::Error, "lower_ms", "need lower_ms <= upper_ms"),
                 qPrintable(dump(ds)));
        j["nodes"][4]["params"]["right_key"] = {"user_id"};
        j["nodes"][4]["params"]["lower_ms"] = -5;
        ds = diagnosticsFor(j, "j");
        for (const auto &d : ds) // (the lead's "late is not connected" warning may remain)
            QVERIFY2(!d.isError(), qPrintable(dump(ds)));
    }

    void enrichAsMustBeAPath()
    {
        auto ds = diagnosticsFor(pipelineWith(Json{{"kind", "enrich"},
                                                   {"params",
                                                    {{"table", "users.csv"},
                                                     {"key", "user_id"},
                                                     {"table_key", "user_id"},
                                                     {"as", "user."}}}}),
                                 "n");
        QVERIFY2(find(ds, Diagnostic::Severity::Error, "as", "not a field path"),
                 qPrintable(dump(ds)));
    }
};

QTEST_GUILESS_MAIN(ExprTest)
#include "test_expr.moc"
