// FiringOrder (engine/src/operators/window/firing_order.hpp), the order of a firing's results:
// its radix sort of normalized keys must give exactly the order of the comparison sort it
// replaced (compareValues field by field, ties by encoded bytes, then position) for every kind
// of key, at sizes below and above the radix threshold, with keys that share long prefixes,
// embedded NUL bytes, negative and extreme ints, several fields, and repeated keys (a session
// window fires one key's sessions together). Keys with doubles or nested objects take the
// comparison sort, which is checked against a plain model.

#include "operators/window/firing_order.hpp"

#include <QtTest>

#include <algorithm>
#include <limits>
#include <numeric>
#include <random>

using namespace tideline;
using window::FiringOrder;
using window::KeyCodec;

namespace {

Value randomValue(std::mt19937_64 &rng, int kinds, std::vector<std::string> &strings)
{
    static const std::int64_t extremes[] = {std::numeric_limits<std::int64_t>::min(),
                                            std::numeric_limits<std::int64_t>::min() + 1,
                                            -256,
                                            -1,
                                            0,
                                            1,
                                            255,
                                            256,
                                            std::numeric_limits<std::int64_t>::max()};
    switch (rng() % kinds) {
    case 0:
        return Value::integer(static_cast<std::int64_t>(rng() % 2000) - 1000);
    case 1:
        return Value::integer(extremes[rng() % 9]);
    case 2: {
        // Long shared prefixes, NUL bytes, and prefixes of each other.
        std::string s = rng() % 2 ? "user_0000" : "";
        const std::size_t n = rng() % 6;
        for (std::size_t i = 0; i < n; ++i)
            s.push_back("\0\x01"
                        "ab\xff"[rng() % 5]);
        strings.push_back(s);
        return Value::string(strings.back());
    }
    case 3:
        return rng() % 2 ? Value::boolean(rng() % 2 == 0) : Value::null();
    case 4:
        return Value::integer(static_cast<std::int64_t>(rng()));
    default: // only when kinds > 5: doubles, integral or not
        return rng() % 2 ? Value::number(static_cast<double>(rng() % 100) / 4.0)
                         : Value::number(1e300);
    }
}

/// Encoded keys of `n` random records over `fields` key fields (some repeated).
std::vector<std::string>
makeKeys(std::mt19937_64 &rng, std::size_t n, std::size_t fields, int kinds)
{
    KeyCodec codec(fields == 1 ? std::vector<std::string>{"a"}
                               : std::vector<std::string>{"a", "b", "c"});
    std::vector<std::string> out;
    std::string buf;
    for (std::size_t i = 0; i < n; ++i) {
        if (!out.empty() && rng() % 10 == 0) { // a repeated key
            out.push_back(out[rng() % out.size()]);
            continue;
        }
        std::vector<std::string> strings;
        strings.reserve(8);
        Record r;
        for (std::size_t f = 0; f < fields; ++f) {
            if (rng() % 16 == 0)
                continue; // missing: keys as null
            const Value v = randomValue(rng, kinds, strings);
            r.set(std::string(1, char('a' + f)), v);
        }
        codec.encode(r, buf);
        out.push_back(buf);
    }
    return out;
}

/// The contract's order, written plainly: decoded values field by field, then bytes, then index.
std::vector<std::uint32_t> modelOrder(const KeyCodec &codec,
                                      const std::vector<std::string_view> &keys)
{
    std::vector<std::uint32_t> order(keys.size());
    std::iota(order.begin(), order.end(), 0u);
    std::vector<std::vector<Value>> vals(keys.size());
    std::vector<KeyCodec::Decoded> d;
    for (std::size_t i = 0; i < keys.size(); ++i) {
        codec.decode(keys[i], d);
        for (const auto &x : d)
            vals[i].push_back(x.value);
    }
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
        for (std::size_t j = 0; j < vals[a].size(); ++j) {
            const int c = compareValues(vals[a][j], vals[b][j]);
            if (c != 0)
                return c < 0;
        }
        return keys[a] < keys[b];
    });
    return order;
}

} // namespace

class TestFiringOrder : public QObject
{
    Q_OBJECT

private slots:
    void radixMatchesComparison_data()
    {
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("fields");
        QTest::addColumn<int>("kinds");
        for (int n : {2, 3, 17, 63, 64, 65, 500, 5000})
            for (int fields : {1, 3}) {
                QTest::addRow("n%d-f%d-ints", n, fields) << n << fields << 2;
                QTest::addRow("n%d-f%d-mixed", n, fields) << n << fields << 5;
                QTest::addRow("n%d-f%d-doubles", n, fields) << n << fields << 6;
            }
    }

    void radixMatchesComparison()
    {
        QFETCH(int, n);
        QFETCH(int, fields);
        QFETCH(int, kinds);
        std::mt19937_64 rng(static_cast<std::uint64_t>(n * 131 + fields * 7 + kinds));
        for (int round = 0; round < 8; ++round) {
            const auto owned = makeKeys(rng, static_cast<std::size_t>(n),
                                        static_cast<std::size_t>(fields), kinds);
            std::vector<std::string_view> keys(owned.begin(), owned.end());
            KeyCodec codec(fields == 1 ? std::vector<std::string>{"a"}
                                       : std::vector<std::string>{"a", "b", "c"});
            const auto expected = modelOrder(codec, keys);
            FiringOrder fo;
            std::vector<std::uint32_t> fast(keys.size()), slow(keys.size());
            std::iota(fast.begin(), fast.end(), 0u);
            std::iota(slow.begin(), slow.end(), 0u);
            fo.sort(codec, fast, keys);
            fo.comparisonSort(codec, slow, keys);
            QCOMPARE(slow, expected);
            QCOMPARE(fast, expected);
        }
    }

    // Keys of one int field (no nulls) take the direct path: the same order, repeats by
    // position.
    void singleIntKeys()
    {
        std::mt19937_64 rng(5);
        KeyCodec codec({"a"});
        for (std::size_t n : {2u, 40u, 64u, 3000u}) {
            std::vector<std::string> owned;
            std::string buf;
            for (std::size_t i = 0; i < n; ++i) {
                if (!owned.empty() && rng() % 8 == 0) {
                    owned.push_back(owned[rng() % owned.size()]);
                    continue;
                }
                std::vector<std::string> strings;
                Record r;
                r.set("a", randomValue(rng, i % 2 ? 2 : 5, strings).type == ValueType::Int
                               ? Value::integer(static_cast<std::int64_t>(rng()) >> (rng() % 60))
                               : Value::integer(-static_cast<std::int64_t>(i)));
                codec.encode(r, buf);
                owned.push_back(buf);
            }
            std::vector<std::string_view> keys(owned.begin(), owned.end());
            std::vector<std::uint32_t> fast(keys.size());
            std::iota(fast.begin(), fast.end(), 0u);
            FiringOrder fo;
            fo.sort(codec, fast, keys);
            QCOMPARE(fast, modelOrder(codec, keys));
        }
    }

    // The normalized form itself: memcmp order is the value order, and the cases that have no
    // form (a double, a nested object) say so.
    void normalizedFormOrdersLikeValues()
    {
        KeyCodec codec({"a"});
        auto form = [&](const Value &v, bool &ok) {
            Record r;
            r.set("a", v);
            std::string enc, out;
            codec.encode(r, enc);
            ok = codec.appendNormalized(enc, out);
            return out;
        };
        bool ok = false;
        const std::vector<Value> ascending = {Value::null(),
                                              Value::boolean(false),
                                              Value::boolean(true),
                                              Value::integer(-5),
                                              Value::integer(0),
                                              Value::number(3.0), // keys as int 3
                                              Value::integer(7),
                                              Value::string(""),
                                              Value::string(std::string_view("\0", 1)),
                                              Value::string("\x01"),
                                              Value::string("a"),
                                              Value::string(std::string_view("a\0", 2)),
                                              Value::string("a\x01"),
                                              Value::string("ab"),
                                              Value::string("\xff")};
        std::string prev;
        for (std::size_t i = 0; i < ascending.size(); ++i) {
            const std::string f = form(ascending[i], ok);
            QVERIFY2(ok, qPrintable(QString::number(i)));
            if (i > 0)
                QVERIFY2(prev < f, qPrintable(QString::number(i)));
            prev = f;
        }
        form(Value::number(2.5), ok);
        QVERIFY(!ok);
        std::string out;
        QVERIFY(!codec.appendNormalized(std::string_view("\x03\x01", 2), out)); // cut short
    }
};

QTEST_APPLESS_MAIN(TestFiringOrder)
#include "test_firing_order.moc"
