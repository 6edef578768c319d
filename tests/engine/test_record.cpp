// Records: flat dotted storage, JSON parsing with limits, JSON/CSV writing.

#include "test_support.hpp"

#include <tideline/engine/record_json.hpp>
#include <tideline/engine/state_io.hpp>

#include <QtTest>

using namespace tideline;

namespace {
/// JSON written with single quotes (moc mis-parses raw strings holding quotes).
std::string j(std::string s)
{
    for (char &c : s)
        if (c == '\'')
            c = '"';
    return s;
}
} // namespace

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

    void fastAndFallbackParsingAgree()
    {
        // Plain lines take the parser's fast path; a line leaves it at the first thing outside
        // its subset (decimal, escape, non-ASCII, -0, a 19-digit number, an array) and is
        // parsed again by simdjson. Either way the record is the same.
        RecordParser p;
        Record r;
        std::string err;
        QVERIFY2(p.parse(" { \"a\" : -12 , \"b\":{\"c\":{}, \"d\":\"x y\"},\"e\":true,\"f\":null,"
                         "\"a\":0 }\r",
                         r, err),
                 err.c_str());
        // A duplicate key: the last value wins, at the place of the first (issue 15).
        QCOMPARE(r.size(), std::size_t(5));
        QCOMPARE(r.nameAt(0), std::string_view("a"));
        QCOMPARE(r.get("a").i, std::int64_t(0));
        QCOMPARE(r.get("b.c").type, ValueType::Raw);
        QCOMPARE(std::string(r.get("b.d").s), std::string("x y"));
        QCOMPARE(toJson(r), std::string(j("{'a':0,'b':{'c':{},'d':'x y'},'e':true,'f':null}")));
        // Leaves the fast path half-way: nothing is appended twice.
        QVERIFY(p.parse(j("{'a':1,'b':{'c':2,'d':1.5},'e':'z'}"), r, err));
        QCOMPARE(toJson(r), std::string(j("{'a':1,'b':{'c':2,'d':1.5},'e':'z'}")));
        QVERIFY(
            p.parse("{\"s\":\"caf\xc3\xa9\",\"t\":\"a\\tb\",\"n\":-0,\"big\":1234567890123456789,"
                    "\"u\":18446744073709551615,\"arr\":[1]}",
                    r, err));
        QCOMPARE(std::string(r.get("s").s), std::string("caf\xc3\xa9"));
        QCOMPARE(std::string(r.get("t").s), std::string("a\tb"));
        QCOMPARE(r.get("big").type, ValueType::Int);
        QCOMPARE(r.get("big").i, std::int64_t(1234567890123456789LL));
        QCOMPARE(r.get("u").type, ValueType::Raw); // beyond int64: its exact digits
        QCOMPARE(std::string(r.get("u").s), std::string("18446744073709551615"));
        QCOMPARE(r.get("arr").type, ValueType::Raw);
        QVERIFY(r.get("n").isNumber() && r.get("n").asDouble() == 0);
        // Integers of every length up to 18 digits stay exact (read 8 digits at a time).
        QVERIFY(p.parse(j("{'t':1700000000123,'x':1234567890123456,'y':-123456789012345678,"
                          "'z':12345678,'w':7}"),
                        r, err));
        QCOMPARE(r.get("t").i, std::int64_t(1700000000123LL));
        QCOMPARE(r.get("x").i, std::int64_t(1234567890123456LL));
        QCOMPARE(r.get("y").i, std::int64_t(-123456789012345678LL));
        QCOMPARE(r.get("z").i, std::int64_t(12345678));
        QCOMPARE(r.get("w").i, std::int64_t(7));
        // Field names repeat from line to line (cached): values never leak between lines.
        for (int i = 0; i < 3; ++i) {
            QVERIFY(p.parse(j("{'bid':{'auction':") + std::to_string(i) + j(",'url':'u")
                                + std::to_string(i) + j("'},'dateTime':5}"),
                            r, err));
            QCOMPARE(r.get("bid.auction").i, std::int64_t(i));
            QCOMPARE(std::string(r.get("bid.url").s), "u" + std::to_string(i));
            QCOMPARE(r.nameAt(2), std::string_view("dateTime"));
        }
        // Malformed after a valid start: rejected with the simdjson message.
        for (const char *bad : {"{\"a\":1,}", "{\"a\":1} x", "{\"a\":01}", "{\"a\":tru}",
                                "{\"a\":1", "{\"a\" 1}", "{\"a\":\"x\x01\"}"}) {
            QVERIFY2(!p.parse(bad, r, err), bad);
            QVERIFY(!err.empty());
        }
    }

    void projectionKeepsWhatIsReadAndAcceptsTheSame()
    {
        // The fused path parses a line into the fields its reader reads (event time, key,
        // aggregate inputs): kept fields exactly as a whole parse gives them, in their order;
        // the rest read and checked, not kept; what is accepted and every message unchanged.
        std::string err;
        auto only = FieldProjection::of({"t", "user.id", "`a.b`", "sum"}, err);
        QVERIFY2(only, err.c_str());
        QVERIFY(only->keeps("t") && only->keeps("user.id") && only->keeps("user.id.x"));
        QVERIFY(only->keeps("user")); // a scalar where an object is read: seen as not one
        QVERIFY(only->keeps("`a.b`") && !only->keeps("a") && !only->keeps("tt"));
        QVERIFY(!only->keeps("user.idx") && !only->keeps("users") && !only->keeps("v"));
        QVERIFY(!FieldProjection::of({"`open"}, err) && err.find("`open") != std::string::npos);

        RecordParser p, whole;
        Record r, w;
        // Twice each: the second time every name comes from the parser's cache.
        for (int pass = 0; pass < 2; ++pass) {
            QVERIFY2(p.parse(j("{'v':1,'t':5,'user':{'id':'u1','n':'x'},'sum':-3,'e':{}}"), r, err,
                             only.get()),
                     err.c_str());
            QCOMPARE(toJson(r), std::string(j("{'t':5,'user':{'id':'u1'},'sum':-3}")));
            QCOMPARE(r.size(), std::size_t(3));
            // An object where a scalar is read, a scalar where an object is, `{}`: kept.
            QVERIFY(p.parse(j("{'t':{'x':1,'y':true},'user':7,'sum':{},'z':null}"), r, err,
                            only.get()));
            QCOMPARE(toJson(r), std::string(j("{'t':{'x':1,'y':true},'user':7,'sum':{}}")));
            QVERIFY(r.hasObject("t") && r.indexOf("user.id") < 0);
            // Off the fast path (a decimal, an escape, a dotted key): the whole record.
            for (const char *line : {"{\"v\":1.5,\"t\":5}", "{\"v\":\"a\\nb\",\"t\":5}",
                                     "{\"a.b\":1,\"c\":2}", "{\"t\":1,\"t\":2,\"q\":3}"}) {
                QVERIFY2(p.parse(line, r, err, only.get()), line);
                QVERIFY(whole.parse(line, w, err));
                QCOMPARE(toJson(r), toJson(w));
            }
            // Rejected exactly as without a projection, also for a fault in a field not kept.
            for (const char *bad : {"{\"v\":1,}", "{\"v\":01,\"t\":1}", "{\"t\":1,\"v\":tru}",
                                    "{\"v\":{\"q\":1}", "{\"t\":1} x"}) {
                std::string e1, e2;
                QVERIFY2(!p.parse(bad, r, e1, only.get()), bad);
                QVERIFY(!whole.parse(bad, w, e2));
                QCOMPARE(e1, e2);
            }
        }
        // Integers in a field not kept are counted, not converted: every length from 1 to
        // 20 digits, signed, with leading zeros, "-0", a fraction or an exponent after, and
        // at the line's end (under a word left), accepted or refused as a whole parse does.
        for (int pass = 0; pass < 2; ++pass) {
            for (int digits = 1; digits <= 20; ++digits) {
                const std::string n = std::string("9876543210987654321098").substr(0, digits);
                for (const std::string &v : std::vector<std::string>{
                         n, "-" + n, "0" + n, "-0", "0", n + ".5", n + "e2", n + "E2", n + "x"}) {
                    for (const std::string &line :
                         {"{\"v\":" + v + ",\"t\":5}", "{\"t\":5,\"v\":" + v + "}",
                          "{\"t\":5,\"v\":" + v + "}  "}) {
                        std::string e1, e2;
                        const bool okP = p.parse(line, r, e1, only.get());
                        const bool okW = whole.parse(line, w, e2);
                        QVERIFY2(okP == okW, line.c_str());
                        QVERIFY2(e1 == e2, line.c_str());
                        // Kept fields only, or (off the fast path) the whole record.
                        if (okP)
                            QVERIFY2(toJson(r) == "{\"t\":5}" || toJson(r) == toJson(w),
                                     line.c_str());
                        if (okP && digits <= 18 && v == n)
                            QCOMPARE(toJson(r), std::string("{\"t\":5}"));
                    }
                }
            }
        }
        // Another projection on the same parser: its own answers, not the cached ones.
        auto other = FieldProjection::of({"v"}, err);
        QVERIFY(p.parse(j("{'v':1,'t':5,'user':{'id':'u1','n':'x'},'sum':-3,'e':{}}"), r, err,
                        other.get()));
        QCOMPARE(toJson(r), std::string(j("{'v':1}")));
        QVERIFY(p.parse(j("{'v':1,'t':5}"), r, err));
        QCOMPARE(toJson(r), std::string(j("{'v':1,'t':5}")));
    }

    void fastPathShapesAndNumbers()
    {
        // The fast path predicts a line's keys from the last line's order and reads integers
        // a word at a time; whatever the order, repeats and lengths, it must give exactly what
        // simdjson gives (accept or reject, record, message).
        RecordParser fast;
        RecordParser slow(RecordLimits{.fastPath = false});
        auto same = [&](const std::string &line) {
            Record a, b;
            std::string ea, eb;
            const bool okA = fast.parse(line, a, ea);
            const bool okB = slow.parse(line, b, eb);
            QVERIFY2(okA == okB, line.c_str());
            if (okA)
                QVERIFY2(a == b && toJson(a) == toJson(b), line.c_str());
            else
                QCOMPARE(ea, eb);
        };
        const std::vector<std::string> lines = {
            j("{'event_id':1,'user_id':8183,'value':21,'t':1700000000000,'p':0}"),
            j("{'event_id':2,'user_id':3811,'value':43,'t':1700000000001,'p':1}"),
            // The same keys in another order, a key missing, one more, one renamed.
            j("{'user_id':7,'event_id':3,'value':4,'t':5,'p':6}"),
            j("{'event_id':4,'value':43,'t':1700000000001,'p':1}"),
            j("{'event_id':5,'user_id':1,'value':2,'t':3,'p':4,'extra':'x'}"),
            j("{'event_id':6,'user_idx':1,'value':2,'t':3,'p':4}"),
            // A predicted key that is a prefix of the line's key, and the other way round.
            j("{'event_id':7,'user':1,'value':2,'t':3,'p':4}"),
            j("{'event_id':8,'user_id':1,'value':2,'t':3,'p':4}"),
            // Duplicates where the prediction points (the last value wins, simdjson decides).
            j("{'event_id':9,'event_id':10,'user_id':1,'value':2,'t':3,'p':4}"),
            j("{'event_id':9,'user_id':1,'value':2,'t':3,'p':4,'p':5}"),
            j("{'event_id':9,'user_id':1,'user_id':2,'value':2,'t':3,'p':4}"),
            // Nested objects, their first keys predicted too.
            j("{'bid':{'auction':1,'price':2},'n':{'a':{'b':3}},'e':4}"),
            j("{'bid':{'auction':5,'price':6},'n':{'a':{'b':7}},'e':8}"),
            j("{'bid':{'price':6,'auction':5},'n':{'a':{'c':7}},'e':8}"),
            j("{'bid':{'auction':5,'auction':6},'n':{},'e':8}"),
            j("{'bid':1,'n':{'a':{'b':7}},'e':8}"),
            // Space and malformed text after a predicted key.
            j("{ 'bid' : { 'auction' : 5 } , 'e' : 8 }"),
            j("{'bid':{'auction'5},'e':8}"),
            j("{'bid':{'auction':5},'e'"),
            j("{'bid':{'auction"),
            "{\"bid\":{\"auc\\u0074ion\":5},\"e\":8}",
        };
        for (int round = 0; round < 2; ++round)
            for (const auto &line : lines)
                same(line);
        // Integers of every length, with and without 8 bytes after them, signs, zeros, and
        // what follows a number.
        for (int digits = 1; digits <= 20; ++digits) {
            std::string n;
            for (int d = 0; d < digits; ++d)
                n += static_cast<char>('1' + (d * 7) % 9);
            for (const std::string &sign : {std::string(), std::string("-")})
                for (const std::string &after :
                     {std::string("}"), std::string(",\"k\":\"long enough tail\"}"),
                      std::string(".5}"), std::string("e3}"), std::string(" }"),
                      std::string("x}")}) {
                    same("{\"n\":" + sign + n + after);
                    same("{\"n\":" + sign + "0" + n + after);
                }
        }
        for (const char *line :
             {"{\"n\":0}", "{\"n\":-0}", "{\"n\":00}", "{\"n\":-}", "{\"n\":0,\"m\":\"12345678\"}",
              "{\"n\":99999999}", "{\"n\":100000000,\"m\":1}", "{\"n\":999999999999999999}",
              "{\"n\":-999999999999999999}", "{\"n\":1234567890123456789}"})
            same(line);
    }

    void staticNamesAndStrings()
    {
        // Process-lifetime names and strings are referenced, not copied; the record behaves
        // exactly as with copied ones (lookups, set, remove, copies, nesting, state).
        Record r;
        r.reserve(4, 0);
        r.append(StaticPath("bid.auction"), Value::integer(7));
        r.append(StaticPath("bid.url"), Value::staticString("https://x"));
        r.append(StaticPath("bid.extra"), Value::string("copied"));
        QCOMPARE(r.get("bid.url").stable, true);
        QCOMPARE(std::string(r.get("bid.url").s), std::string("https://x"));
        QCOMPARE(std::string(r.get("bid.extra").s), std::string("copied"));
        r.set(internPath("price_milli"), Value::integer(7 * 908));
        r.set(StaticPath("bid.auction"), Value::integer(8));
        QCOMPARE(r.get("bid.auction").i, std::int64_t(8));
        QCOMPARE(internPath("price_milli").s.data(),
                 internPath(std::string("price_milli")).s.data());
        Record copy = r;
        r.clear();
        QCOMPARE(
            toJson(copy),
            std::string(
                j("{'bid':{'auction':8,'url':'https://x','extra':'copied'},'price_milli':6356}")));
        Record outer;
        outer.setInt("k", 1);
        outer.appendNested("left", copy);
        outer.appendNested("self", outer); // a record nested into itself is copied first
        QCOMPARE(outer.get("left.bid.url").stable, true);
        QCOMPARE(toJson(outer),
                 j("{'k':1,'left':{'bid':{'auction':8,'url':'https://x','extra':'copied'},"
                   "'price_milli':6356},'self':{'k':1,'left':{'bid':{'auction':8,"
                   "'url':'https://x','extra':'copied'},'price_milli':6356}}}"));
        StateWriter w;
        w.record(outer);
        StateReader rd(w.data());
        Record back;
        rd.record(back);
        QVERIFY(back == outer);
        // A value that points into the record itself survives the arena growing.
        Record g;
        const std::string long40 = "abc" + std::string(37, '-');
        g.setString("a", long40);
        for (int i = 0; i < 8; ++i)
            g.set("b" + std::to_string(i), g.get("a"));
        // Named by its own value's first bytes ("abc"): the name is read from the arena too.
        g.append(std::string(g.get("a").s.substr(0, 3)), g.get("a"));
        QCOMPARE(std::string(g.get("b7").s), long40);
        QCOMPARE(std::string(g.get("abc").s), long40);
        QVERIFY(g.remove("b3"));
        g.keepOnly({"a", "b7"});
        QCOMPARE(g.size(), std::size_t(2));
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

        // A row is built on the stack in parts (csv.cpp): many integers (flushed on the way),
        // a string longer than the buffer, quoted and plain strings, a double, a bool, a null
        // and a missing column, after text already in `out`, give the row cell by cell.
        Record big;
        std::vector<std::string> bigCols;
        std::string want = "before|";
        for (int i = 0; i < 60; ++i) {
            const std::string name = "c" + std::to_string(i);
            bigCols.push_back(name);
            if (i)
                want += ',';
            switch (i % 10) {
            case 3:
                big.setString(name, std::string(700, 'x')); // over the 512-byte buffer
                want += std::string(700, 'x');
                break;
            case 5:
                big.setString(name, "q\"uote");
                want += "\"q\"\"uote\"";
                break;
            case 6:
                big.setDouble(name, 2.0);
                want += "2.0";
                break;
            case 7:
                big.setBool(name, false);
                want += "false";
                break;
            case 8:
                big.set(name, Value::null());
                break;
            case 9:
                break; // missing: an empty cell
            default:
                big.setInt(name, -1234567890123456789LL + i);
                want += std::to_string(-1234567890123456789LL + i);
            }
        }
        out = "before|";
        appendCsvRow(big, bigCols, out);
        QCOMPARE(out, want + "\n");
        // A row of one blank cell is quoted (a blank line would be skipped by readers).
        Record blank;
        blank.setString("s", "  ");
        out.clear();
        appendCsvRow(blank, {"s"}, out);
        QCOMPARE(out, std::string("\"  \"\n"));
    }

    void fieldPathsQuoteKeysWithDots()
    {
        using namespace fieldpath;
        QCOMPARE(quoteKey("service.name"), std::string("`service.name`"));
        QCOMPARE(quoteKey("a`b"), std::string("`a``b`"));
        QCOMPARE(quoteKey("plain key-1"), std::string("plain key-1"));
        QCOMPARE(keys("a.`b.c`.``.d"), (std::vector<std::string>{"a", "b.c", "", "d"}));
        std::string c, err;
        QVERIFY(canonical("`user`.id", c, err));
        QCOMPARE(c, std::string("user.id"));
        QVERIFY(canonical("`a.b`.`c``d`", c, err));
        QCOMPARE(c, std::string("`a.b`.`c``d`"));
        QVERIFY(!canonical("`open", c, err));
        QVERIFY(!canonical("a`b", c, err));
        QVERIFY(!canonical("`a`b", c, err));
        QVERIFY(isCanonical("a..b") && !isCanonical("`a`"));
        // A record: a dotted key and a nested field are different fields.
        Record r;
        r.setInt("`a.b`", 1);
        r.setInt("a.b", 2);
        r.setInt("`a.b`.c", 3); // replaces the scalar `a.b` by an object
        QCOMPARE(toJson(r), std::string(R"({"a":{"b":2},"a.b":{"c":3}})"));
        QCOMPARE(r.get("a.b").i, std::int64_t(2));
        QVERIFY(r.hasObject("`a.b`") && r.hasObject("a") && !r.hasObject("a.b"));
        QVERIFY(r.remove("`a.b`"));
        QCOMPARE(toJson(r), std::string(R"({"a":{"b":2}})"));
    }

    void csvColumnsAreKeys()
    {
        CsvReader csv;
        std::string err;
        QVERIFY(csv.setHeader("\xEF\xBB\xBFid,a.b,id", err));
        QCOMPARE(csv.columns(), (std::vector<std::string>{"id", "`a.b`", "id"}));
        Record r;
        QVERIFY(csv.parse("1,007,3", r, err));
        QCOMPARE(toJson(r), std::string(R"({"id":3,"a.b":"007"})"));
        std::string out;
        appendCsvHeader({"`a.b`", "user.id", "`x`.y"}, out);
        QCOMPARE(out, std::string("a.b,user.id,`x`.y\n"));
        QVERIFY(!csv.parse("1,\xff,3", r, err));
        QVERIFY(err.find("invalid UTF-8 at byte 3") != std::string::npos);
        CsvReader::QuoteScan scan;
        scan.feed("1,\"a");
        QVERIFY(scan.open());
        scan.feed("\n");
        scan.feed("b\"\"\"");
        QVERIFY(!scan.open());
        CsvReader::QuoteScan stray;
        stray.feed("a\"b,c"); // a quote inside an unquoted cell opens nothing
        QVERIFY(!stray.open());
    }

    void writerKeepsOutputValidUtf8()
    {
        Record r;
        r.setString("s", "ok \xc3\xa9 \xff end \xe2\x82");
        QCOMPARE(toJson(r), std::string("{\"s\":\"ok \xc3\xa9 \\ufffd end \\ufffd\\ufffd\"}"));
        QCOMPARE(utf8Prefix("ab\xc3\xa9", 3), std::size_t(2));
        std::string b64;
        appendBase64("\xff\xfe", b64);
        QCOMPARE(b64, std::string("//4="));
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
