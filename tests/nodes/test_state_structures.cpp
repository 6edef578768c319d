// The state structures under dedup and join, checked against plain models: KeyTable (against
// std::unordered_map, across growth and backward-shift deletion, for integer keys compared in
// the slot and byte keys compared in the entry), ExpiryQueue (against one binary heap on
// (time, push order)) and the join's flat blocks (against Record::appendNested).

#include "operators/join/flat_record.hpp"
#include "operators/keys/expiry_queue.hpp"
#include "operators/keys/key_encoder.hpp"
#include "operators/keys/key_table.hpp"

#include <QtTest>
#include <queue>

#include <random>
#include <unordered_map>

using namespace tideline;

namespace {

std::string intKey(std::int64_t v)
{
    std::string k;
    keys::appendValue(Value::integer(v), k);
    return k;
}

std::string stringKey(const std::string &s)
{
    std::string k;
    keys::appendValue(Value::string(s), k);
    return k;
}

} // namespace

class TestStateStructures : public QObject
{
    Q_OBJECT

private slots:
    void keyTableMatchesAMap()
    {
        std::mt19937_64 rng(42);
        keys::KeyTable<std::int64_t> table(16);
        std::unordered_map<std::string, std::pair<std::uint32_t, std::int64_t>> model;
        std::vector<std::string> live;
        for (int step = 0; step < 200000; ++step) {
            const int op = static_cast<int>(rng() % 10);
            if (op < 6 || live.empty()) {
                // Integer keys (slot-compared), strings, and 9-byte strings that start like
                // an integer encoding but are not one (must not be confused with it).
                std::string k;
                switch (rng() % 3) {
                case 0:
                    k = intKey(static_cast<std::int64_t>(rng() % 5000) - 2500);
                    break;
                case 1:
                    k = stringKey("user-" + std::to_string(rng() % 3000));
                    break;
                default:
                    k = std::string(1, '\x03') + std::to_string(10000000 + rng() % 2000);
                    k.resize(9 + rng() % 2, 'x');
                    break;
                }
                auto [idx, inserted] = table.tryEmplace(k, step);
                auto it = model.find(k);
                QCOMPARE(inserted, it == model.end());
                if (inserted) {
                    model[k] = {idx, step};
                    live.push_back(k);
                } else {
                    QCOMPARE(idx, it->second.first);
                    QCOMPARE(table.entry(idx).value, it->second.second);
                }
            } else {
                std::size_t pos = rng() % live.size();
                std::string k = live[pos];
                live[pos] = live.back();
                live.pop_back();
                std::uint32_t idx = table.find(k);
                QCOMPARE(idx, model.at(k).first);
                table.erase(idx);
                model.erase(k);
                QCOMPARE(table.find(k), keys::KeyTable<std::int64_t>::kNone);
            }
            QCOMPARE(table.size(), model.size());
        }
        for (const auto &[k, v] : model) {
            QCOMPARE(table.find(k), v.first);
            QCOMPARE(table.entry(v.first).key, k);
        }
        std::size_t seen = 0;
        table.forEach([&](std::uint32_t, const auto &) { ++seen; });
        QCOMPARE(seen, model.size());
    }

    void expiryQueuePopsInHeapOrder()
    {
        struct Item
        {
            Timestamp at;
            std::uint64_t seq;
            int payload;
            bool operator>(const Item &o) const { return at != o.at ? at > o.at : seq > o.seq; }
        };
        std::mt19937_64 rng(7);
        keys::ExpiryQueue<int> q;
        std::priority_queue<Item, std::vector<Item>, std::greater<>> model;
        std::uint64_t seq = 0;
        Timestamp clock = 0;
        for (int step = 0; step < 100000; ++step) {
            if (rng() % 3 != 0) {
                // Mostly non-decreasing times (ring), sometimes earlier ones (heap), with ties.
                clock += static_cast<Timestamp>(rng() % 3);
                Timestamp at = rng() % 8 == 0 ? clock - static_cast<Timestamp>(rng() % 50) : clock;
                q.push(at, step);
                model.push({at, seq++, step});
            } else if (!model.empty()) {
                QCOMPARE(q.top().at, model.top().at);
                QCOMPARE(q.top().payload, model.top().payload);
                q.pop();
                model.pop();
            }
            QCOMPARE(q.size(), model.size());
            if (step % 10007 == 0) {
                auto all = q.sorted();
                auto copy = model;
                QCOMPARE(all.size(), copy.size());
                for (const auto &it : all) {
                    QCOMPARE(it.payload, copy.top().payload);
                    copy.pop();
                }
            }
        }
        while (!model.empty()) {
            QCOMPARE(q.top().payload, model.top().payload);
            q.pop();
            model.pop();
        }
        QVERIFY(q.empty());
    }

    void flatBlocksGiveTheFieldsOfAppendNested()
    {
        std::vector<Record> inputs(5);
        inputs[0].append("id", Value::string(std::string_view("a\0b", 3)));
        inputs[0].append("n", Value::integer(-5));
        inputs[0].append("x", Value::number(2.5));
        inputs[0].append("ok", Value::boolean(true));
        inputs[0].append("none", Value::null());
        inputs[0].append("user.name", Value::string("Zoë"));
        inputs[0].append("tags", Value::raw("[1,2]"));
        inputs[0].append("", Value::integer(1));
        inputs[1].append("k", Value::string("only"));
        // inputs[2] stays empty: `prefix: {}`
        // Same names as inputs[0], other types: one shape, types per block.
        inputs[3].append("id", Value::integer(7));
        inputs[3].append("n", Value::string("five"));
        inputs[3].append("x", Value::null());
        inputs[3].append("ok", Value::boolean(false));
        inputs[3].append("none", Value::number(-0.5));
        inputs[3].append("user.name", Value::raw("{}"));
        inputs[3].append("tags", Value::string(""));
        inputs[3].append("", Value::integer(2));
        inputs[4].append("k", Value::integer(1)); // same names as inputs[1]
        for (std::string_view prefix : {"left", "right"}) {
            flat::Codec codec(prefix);
            for (int round = 0; round < 2; ++round) { // second round: shapes already known
                for (const Record &in : inputs) {
                    Record expected;
                    expected.appendNested(prefix, in);
                    std::string block;
                    codec.write(block, in);
                    QCOMPARE(flat::header(block.data()).size, std::uint32_t(block.size()));
                    Record got;
                    codec.appendTo(got, block.data());
                    QVERIFY(got == expected);
                    QVERIFY(codec.unprefixed(block.data()) == in);
                }
            }
            QCOMPARE(codec.shapes(), std::size_t(2));
        }
        // A pair is left fields then right fields, as appendNested twice writes them.
        Record expected;
        expected.appendNested("left", inputs[0]);
        expected.appendNested("right", inputs[1]);
        flat::Codec lc("left"), rc("right");
        std::string l, r;
        lc.write(l, inputs[0]);
        rc.write(r, inputs[1]);
        Record got;
        lc.appendTo(got, l.data());
        rc.appendTo(got, r.data());
        QVERIFY(got == expected);
    }

    void flatBlocksBeyondTheShapeLimitDescribeThemselves()
    {
        flat::Codec codec("left");
        for (std::size_t k = 0; k < flat::Codec::kMaxShapes + 10; ++k) {
            Record in;
            in.append("f" + std::to_string(k), Value::integer(static_cast<std::int64_t>(k)));
            in.append("s", Value::string("v" + std::to_string(k)));
            std::string block;
            codec.write(block, in);
            const bool shaped = flat::header(block.data()).shape != flat::Codec::kSelfDescribing;
            QCOMPARE(shaped, k < flat::Codec::kMaxShapes);
            Record expected, got;
            expected.appendNested("left", in);
            codec.appendTo(got, block.data());
            QVERIFY(got == expected);
            QVERIFY(codec.unprefixed(block.data()) == in);
        }
        QCOMPARE(codec.shapes(), flat::Codec::kMaxShapes);
    }

    void blockPoolReusesBlocks()
    {
        flat::BlockPool pool;
        char *a = pool.take(100);
        pool.give(a, 100);
        QVERIFY(pool.take(97) == a); // same 16-byte class (pointers, not C strings)
        char *big = pool.take(100000);
        pool.give(big, 100000); // beyond the classes: freed, not kept
        pool.give(a, 97);
    }
};

QTEST_APPLESS_MAIN(TestStateStructures)
#include "test_state_structures.moc"
