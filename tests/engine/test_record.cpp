// Records: flat dotted storage, JSON parsing with limits, JSON/CSV writing.

#include "test_support.hpp"

#include <tideline/engine/record_json.hpp>
#include <tideline/engine/state_io.hpp>

#include <QtTest>

using namespace tideline;

class TestRecord : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void parseAndWriteRoundTrip()
    {
        RecordParser p;
        Record r;
        std::string err;
        // (Plain literals: moc mis-parses raw strings that contain backslash-quote.)
        const std::string in = "{\"a\":1,\"b\":{\"c\":\"x\\\"y\\n\",\"d\":[1,{\"e\":2}],\"f\":{}},"
                               "\"g\":-2.5,\"h\":true,\"i\":null,\"j\":1e300}";
        QVERIFY2(p.parse(in, r, err), err.c_str());
        QCOMPARE(r.get("a").i, std::int64_t(1));
        QCOMPARE(std::string(r.get("b.c").s), std::string("x\"y\n"));
        QCOMPARE(r.get("b.d").type, ValueType::Raw);
        QCOMPARE(r.get("g").d, -2.5);
        QVERIFY(r.has("i") && r.get("i").isNull());
        QVERIFY(r.hasObject("b"));
        QCOMPARE(toJson(r),
                 std::string("{\"a\":1,\"b\":{\"c\":\"x\\\"y\\n\",\"d\":[1,{\"e\":2}],\"f\":{}},"
                             "\"g\":-2.5,\"h\":true,\"i\":null,\"j\":1e+300}"));
    }

    void setKeepsNestedFieldsTogether()
    {
        Record r;
        r.setInt("user.id", 1);
        r.setInt("n", 2);
        r.setString("user.name", "ann");
        QCOMPARE(toJson(r), std::string(R"({"user":{"id":1,"name":"ann"},"n":2})"));
        r.setInt("user", 5); // replaces the object
        QCOMPARE(toJson(r), std::string(R"({"n":2,"user":5})"));
        r.setString("n", r.get("user").type == ValueType::Int ? "five" : "");
        QVERIFY(r.remove("user"));
        QCOMPARE(toJson(r), std::string(R"({"n":"five"})"));
        Record inner;
        inner.setInt("x", 1);
        Record outer;
        outer.appendNested("left", inner);
        outer.appendNested("right", Record{});
        QCOMPARE(toJson(outer), std::string(R"({"left":{"x":1},"right":{}})"));
    }

    void doublesStayDoubles()
    {
        Record r;
        r.setDouble("avg", 2.0);
        r.setDouble("nan", std::nan(""));
        QCOMPARE(toJson(r), std::string(R"({"avg":2.0,"nan":null})"));
    }

    void rejectsNonObjectsMalformedDeepAndHuge()
    {
        RecordParser p;
        Record r;
        std::string err;
        for (const char *bad :
             {"[1,2]", "42", "\"s\"", "{\"a\":", "{'a':1}", "{\"a\":1}}", "not json"}) {
            QVERIFY2(!p.parse(bad, r, err), bad);
            QVERIFY(!err.empty());
        }
        std::string deep = std::string(100000, '[') + std::string(100000, ']');
        QVERIFY(!p.parse(deep, r, err));
        std::string deepObj;
        for (int i = 0; i < 100000; ++i)
            deepObj += "{\"a\":";
        deepObj += "1" + std::string(100000, '}');
        QVERIFY(!p.parse(deepObj, r, err));
        QVERIFY2(err.find("deep") != std::string::npos || err.find("large") != std::string::npos,
                 err.c_str());
        std::string huge = "{\"a\":\"" + std::string(10u << 20, 'x') + "\"}";
        QVERIFY(!p.parse(huge, r, err));
        QVERIFY(err.find("too large") != std::string::npos);
        // The parser is still usable afterwards.
        QVERIFY(p.parse(R"({"ok":1})", r, err));
    }

    void csvReadingAndWriting()
    {
        CsvReader csv;
        std::string err;
        QVERIFY(csv.setHeader("id,name,score,flag,empty", err));
        Record r;
        QVERIFY2(csv.parse(R"(7,"Doe, ""J""",3.5,true,)", r, err), err.c_str());
        QCOMPARE(r.get("id").i, std::int64_t(7));
        QCOMPARE(std::string(r.get("name").s), std::string("Doe, \"J\""));
        QCOMPARE(r.get("score").d, 3.5);
        QVERIFY(r.get("flag").b);
        QVERIFY(r.get("empty").isNull());
        QVERIFY(!csv.parse("1,2", r, err));
        QVERIFY(err.find("expected 5 cells") != std::string::npos);
        QVERIFY(!csv.parse("1,\"open", r, err));
        std::string out;
        appendCsvRow(r.empty() ? r : r, {"id"}, out);
        std::vector<std::string> cols{"id", "name"};
        Record w;
        w.setInt("id", 1);
        w.setString("name", "a,b");
        out.clear();
        appendCsvHeader(cols, out);
        appendCsvRow(w, cols, out);
        QCOMPARE(out, std::string("id,name\n1,\"a,b\"\n"));
    }

    void stateRoundTrip()
    {
        Record r;
        r.setInt("a", 1);
        r.setString("b.c", "x");
        r.set("d", Value::raw("[1]"));
        r.time = 42;
        StateWriter w;
        w.record(r);
        StateReader rd(w.data());
        Record back;
        rd.record(back);
        QVERIFY(!rd.failed());
        QVERIFY(back == r);
        StateReader truncated(std::string_view(w.data()).substr(0, w.data().size() - 3));
        Record partial;
        truncated.record(partial);
        QVERIFY(truncated.failed());
    }

    void valueOrderAndEquality()
    {
        QVERIFY(valuesEqual(Value::integer(1), Value::number(1.0)));
        QVERIFY(compareValues(Value::null(), Value::integer(0)) < 0);
        QVERIFY(compareValues(Value::integer(2), Value::number(1.5)) > 0);
        QVERIFY(compareValues(Value::string("a"), Value::string("b")) < 0);
    }
};

QTEST_APPLESS_MAIN(TestRecord)
#include "test_record.moc"
