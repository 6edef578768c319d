// The keyed-state toolkit (engine/src/operators/keys/), one structure at a time against plain
// models: the hash both encoders feed, the two key encoders' round trips and equalities, the
// aligned window's RowTable (against std::map, across growth, touches and keepOnly), the
// one probing scheme under both tables (SlotIndex, both slot widths, with hashes made to
// collide), RowTable under the spill passes SpillPolicy drives (entries leave for a model
// store and come back when touched again, as the aligned window does it), the
// time prefix of spill keys, and SpillPolicy's decisions (when a pass runs, what it spills,
// its counters). KeyTable and ExpiryQueue have their own model tests in
// tests/nodes/test_state_structures.cpp.

#include "operators/keys/group_key_codec.hpp"
#include "operators/keys/hash.hpp"
#include "operators/keys/key_encoder.hpp"
#include "operators/keys/key_table.hpp"
#include "operators/keys/row_table.hpp"
#include "operators/keys/slot_index.hpp"
#include "operators/keys/spill_policy.hpp"
#include "operators/keys/time_key.hpp"

#include <QDir>
#include <QtTest>

#include <limits>
#include <map>
#include <random>
#include <set>

using namespace tideline;

namespace {

struct Cell32
{
    std::int64_t a = 0, b = 0, c = 0, d = 0;
};

Record rec(std::initializer_list<std::pair<const char *, Value>> fields)
{
    Record r;
    for (const auto &[name, v] : fields)
        r.append(name, v);
    return r;
}

/// SlotIndex against std::map<key, entry>: `distinct` distinct hash values for all keys.
template<class Slot>
void runSlotIndexModel(std::uint64_t distinct)
{
    using Index = keys::SlotIndex<Slot>;
    Index index;
    index.reset(16);
    std::vector<std::string> entries; // entry number -> key ("" = free)
    std::map<std::string, std::uint32_t> model;
    std::mt19937_64 rng(distinct * 31 + Slot::kHasWord);
    auto hashOf = [&](const std::string &k) {
        return keys::hashBytes(k) % distinct;
    };
    std::string k;
    for (int step = 0; step < 20000; ++step) {
        k.clear();
        const std::uint64_t id = rng() % 600;
        if (id % 2 == 0)
            keys::appendValue(Value::integer(static_cast<std::int64_t>(id)), k); // an int key
        else
            k = "key-" + std::to_string(id);
        const typename Index::Probe p(k, hashOf(k));
        auto equals = [&](std::uint32_t e) {
            return entries[e] == k;
        };
        std::uint32_t hole = 0;
        const std::uint32_t found = index.find(p, equals, hole);
        auto it = model.find(k);
        QCOMPARE(found == Index::kNone, it == model.end());
        if (it != model.end())
            QCOMPARE(found, it->second);
        if (found == Index::kNone && rng() % 3 != 0) {
            if (index.full(model.size())) {
                index.rehash(index.capacity() * 2);
                hole = index.holeFor(p.tag);
            }
            const auto e = static_cast<std::uint32_t>(entries.size());
            entries.push_back(k);
            index.place(hole, p, e);
            model.emplace(k, e);
        } else if (found != Index::kNone && rng() % 2 == 0) {
            index.erase(found, p.tag);
            entries[found].clear();
            model.erase(it);
        }
        QVERIFY(model.size() * 4 <= index.capacity() * 3);
    }
    for (const auto &[key, e] : model) { // every survivor still found after the erases
        const typename Index::Probe p(key, hashOf(key));
        QCOMPARE(index.find(p, [&](std::uint32_t x) { return entries[x] == key; }), e);
    }
}

} // namespace

class TestKeyedState : public QObject
{
    Q_OBJECT

private slots:
    // One hash for every table: deterministic, sensitive to every byte and to length (a key
    // and the same key with a trailing 0 differ), and spread in both halves (tables use the
    // low bits for the home slot, the high or low 31 bits as a tag).
    // hashFreshKey is hashBytes, put together another way for 9-byte keys: the same value for
    // every byte pattern (high bytes, sign bits, every tag) and for every other length.
    void freshKeyHashIsHashBytes()
    {
        std::uint64_t x = 0x12345678abcdefull;
        std::string key;
        for (int i = 0; i < 20000; ++i) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            key.assign(static_cast<std::size_t>(i % 24), '\0');
            for (std::size_t b = 0; b < key.size(); ++b)
                key[b] = static_cast<char>(x >> (8 * (b % 8)) ^ b * 37);
            QCOMPARE(keys::hashFreshKey(key), keys::hashBytes(key));
        }
        for (std::int64_t v :
             {std::int64_t{0}, std::int64_t{-1}, std::int64_t{905},
              std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()}) {
            key.clear();
            keys::appendValue(Value::integer(v), key);
            QCOMPARE(key.size(), std::size_t{9});
            QCOMPARE(keys::hashFreshKey(key), keys::hashBytes(key));
        }
    }

    void hashIsOneFunctionSpreadOverBothHalves()
    {
        const std::string k = "user-123";
        QCOMPARE(keys::hashBytes(k), keys::hashBytes(std::string_view(k)));
        QCOMPARE(keys::BytesHash{}(k), static_cast<std::size_t>(keys::hashBytes(k)));
        QVERIFY(keys::hashBytes(k) != keys::hashBytes(k + std::string(1, '\0')));
        QVERIFY(keys::hashBytes("") != keys::hashBytes(std::string(1, '\0')));
        std::set<std::uint64_t> low, high;
        std::string key;
        for (int i = 0; i < 4096; ++i) {
            key.clear();
            keys::appendValue(Value::integer(i), key);
            const std::uint64_t h = keys::hashBytes(key);
            low.insert(h & 4095);
            high.insert(h >> 52);
        }
        // 4096 keys into 4096 buckets: a random function fills about 63%.
        QVERIFY2(low.size() > 2400, qPrintable(QString::number(low.size())));
        QVERIFY2(high.size() > 2400, qPrintable(QString::number(high.size())));
    }

    // The window's codec decodes what it encoded (scalars, missing fields as null, nested
    // objects re-nested on output), and 1 and 1.0 group together.
    void groupKeyCodecRoundTrip()
    {
        keys::GroupKeyCodec codec({"user", "n", "gone", "geo"});
        Record r = rec({{"user", Value::string("ann")},
                        {"n", Value::number(2.0)},
                        {"geo.lat", Value::number(1.5)},
                        {"geo.city", Value::string("Oslo")}});
        std::string bytes;
        codec.encode(r, bytes);
        std::vector<keys::GroupKeyCodec::Decoded> d;
        codec.decode(bytes, d);
        QCOMPARE(d.size(), std::size_t(4));
        QCOMPARE(d[0].value.s, std::string_view("ann"));
        QCOMPARE(d[1].value.type, ValueType::Int); // 2.0 keys as 2
        QCOMPARE(d[1].value.i, std::int64_t(2));
        QVERIFY(d[2].value.isNull());
        QVERIFY(d[3].isObject);
        Record out;
        codec.writeTo(bytes, out);
        QCOMPARE(out.valueAt(static_cast<std::size_t>(out.indexOf("geo.city"))).s,
                 std::string_view("Oslo"));
        QCOMPARE(out.valueAt(static_cast<std::size_t>(out.indexOf("geo.lat"))).d, 1.5);
        std::string again;
        codec.encode(rec({{"user", Value::string("ann")},
                          {"n", Value::integer(2)},
                          {"geo.lat", Value::number(1.5)},
                          {"geo.city", Value::string("Oslo")}}),
                     again);
        QCOMPARE(again, bytes);
    }

    // The keys' encoder: equal values, equal bytes (1 == 1.0), nulls reported, no ambiguity
    // between field boundaries, byte order = value order within a type.
    void keyEncoderEqualitiesAndOrder()
    {
        keys::KeyEncoder enc({"a", "b"});
        std::string x, y;
        QVERIFY(enc.encode(rec({{"a", Value::integer(1)}, {"b", Value::string("z")}}), x));
        QVERIFY(enc.encode(rec({{"b", Value::string("z")}, {"a", Value::number(1.0)}}), y));
        QCOMPARE(x, y);
        QVERIFY(!enc.encode(rec({{"a", Value::integer(1)}}), y)); // b missing: null
        QVERIFY(enc.encode(rec({{"a", Value::string("ab")}, {"b", Value::string("c")}}), x));
        QVERIFY(enc.encode(rec({{"a", Value::string("a")}, {"b", Value::string("bc")}}), y));
        QVERIFY(x != y);
        std::string lo, hi;
        keys::appendValue(Value::integer(-5), lo);
        keys::appendValue(Value::integer(3), hi);
        QVERIFY(lo < hi);
    }

    // RowTable against a map: the same rows for the same keys, insertion order kept, cells
    // intact across growth; keepOnly keeps exactly the rows listed, in that order.
    void rowTableMatchesAMap()
    {
        std::mt19937_64 rng(7);
        keys::RowTable<Cell32> t;
        t.reset(16, 2);
        std::map<std::string, std::uint32_t> model;
        std::vector<std::string> order;
        for (int step = 0; step < 50000; ++step) {
            // Lengths 1-4, 7-13 (across the 12 bytes a row's header holds) and 21-53 (the arena).
            const std::size_t pad = rng() % 4 == 0 ? 20 + rng() % 30
                                    : rng() % 2    ? 6 + rng() % 6
                                                   : 0;
            std::string k = std::string(pad, 'x') + std::to_string(rng() % 8000);
            bool created = false;
            const std::uint32_t idx = t.findOrInsert(k, keys::hashBytes(k), created);
            auto it = model.find(k);
            QCOMPARE(created, it == model.end());
            if (created) {
                model.emplace(k, idx);
                order.push_back(k);
                QCOMPARE(idx, static_cast<std::uint32_t>(order.size() - 1));
            } else {
                QCOMPARE(idx, it->second);
            }
            t.acc(idx)[0].a += 1;
            t.acc(idx)[1].d = static_cast<std::int64_t>(k.size());
        }
        QCOMPARE(t.size(), model.size());
        for (std::uint32_t i = 0; i < t.size(); ++i) {
            QCOMPARE(std::string(t.key(i)), order[i]);
            QCOMPARE(t.acc(i)[1].d, static_cast<std::int64_t>(order[i].size()));
        }
        // Touch every third row; keep those (second chance), in order.
        t.clearTouches();
        std::vector<std::uint32_t> keep;
        for (std::uint32_t i = 0; i < t.size(); i += 3) {
            t.touch(i);
            keep.push_back(i);
        }
        std::vector<std::pair<std::string, std::int64_t>> expect;
        for (std::uint32_t i = 0; i < t.size(); ++i) {
            QCOMPARE(t.touched(i), i % 3 == 0);
            if (t.touched(i))
                expect.emplace_back(std::string(t.key(i)), t.acc(i)[0].a);
        }
        const std::size_t before = t.bytes();
        t.keepOnly(keep, 2);
        QCOMPARE(t.size(), expect.size());
        QVERIFY(t.bytes() < before);
        for (std::uint32_t i = 0; i < t.size(); ++i) {
            QCOMPARE(std::string(t.key(i)), expect[i].first);
            QCOMPARE(t.acc(i)[0].a, expect[i].second);
            QVERIFY(!t.touched(i));
            bool created = true;
            QCOMPARE(t.findOrInsert(expect[i].first, keys::hashBytes(expect[i].first), created), i);
            QVERIFY(!created);
        }
    }

    // SlotIndex, the probing both tables share, against a map, for both slot widths: random
    // inserts, finds and erases (backward shifting) across growth, with hashes that collide on
    // purpose (few distinct tags: long probe runs, equal tags decided by the key or, in wide
    // slots, by an integer key's word).
    void slotIndexMatchesAModel_data()
    {
        QTest::addColumn<bool>("wide");
        QTest::addColumn<int>("distinctHashes");
        for (bool wide : {true, false})
            for (int h : {3, 64, 1 << 30})
                QTest::addRow("%s-%d", wide ? "wide" : "narrow", h) << wide << h;
    }
    void slotIndexMatchesAModel()
    {
        QFETCH(bool, wide);
        QFETCH(int, distinctHashes);
        if (wide)
            runSlotIndexModel<keys::WideSlot>(static_cast<std::uint64_t>(distinctHashes));
        else
            runSlotIndexModel<keys::NarrowSlot>(static_cast<std::uint64_t>(distinctHashes));
    }

    // RowTable and KeyTable take the hash from their caller: with a hash that collides for
    // most keys they still find exactly their own rows and entries.
    void tablesRightUnderCollidingHashes()
    {
        keys::RowTable<Cell32> rows;
        rows.reset(16, 1);
        keys::KeyTable<int> table(16);
        std::map<std::string, std::uint32_t> model;
        std::string k;
        for (int i = 0; i < 3000; ++i) {
            k.clear();
            keys::appendValue(Value::integer(i % 1000), k); // 9 bytes: the inline-word case
            if (i % 3 == 0)
                k += "-long-enough-to-live-in-the-arena";
            const std::uint64_t h = static_cast<std::uint64_t>(i % 5); // 5 hashes for all
            bool created = false;
            const std::uint32_t idx = rows.findOrInsert(k, h, created);
            const auto [entry, inserted] = table.tryEmplace(k, h, i);
            auto it = model.find(k);
            QCOMPARE(created, it == model.end());
            QCOMPARE(inserted, created);
            if (created)
                model.emplace(k, idx);
            else
                QCOMPARE(idx, it->second);
            QCOMPARE(table.find(k, h), entry);
            QCOMPARE(std::string(rows.key(idx)), k);
        }
        QCOMPARE(rows.size(), model.size());
        QCOMPARE(table.size(), model.size());
    }

    // The aligned window's spill interplay, on the table itself: records reach keys, every
    // kCheckEvery new keys SpillPolicy decides, a pass moves untouched rows (then all rows) to
    // a store and keeps the rest with keepOnly, and a key that comes back is read back from
    // the store. Every key's total must be what a plain map counted, whatever was spilled
    // when, and the table must keep finding its rows after every rebuild.
    void rowTableUnderSpillPasses()
    {
        const std::string dir = QDir::tempPath().toStdString() + "/tideline-rowtable-spill-"
                                + std::to_string(QCoreApplication::applicationPid());
        std::string error;
        state::StateBackendConfig cfg;
        cfg.spill = true;
        cfg.memoryBudget = 64u << 10; // ~700 rows of 3 cells
        cfg.store = state::SpillStore::open(dir, 64u << 10, error);
        QVERIFY2(cfg.store, error.c_str());
        keys::SpillPolicy policy;
        policy.configure(cfg);
        keys::RowTable<Cell32> t;
        t.reset(16, 2);
        std::map<std::string, std::int64_t> disk, truth;
        std::mt19937_64 rng(22);
        std::string k;
        for (int step = 0; step < 40000; ++step) {
            // Mostly a hot set of 300 keys, sometimes one of 5,000 cold ones.
            k = "k" + std::to_string(rng() % 4 == 0 ? 300 + rng() % 5000 : rng() % 300);
            bool created = false;
            const std::uint32_t idx = t.findOrInsert(k, keys::hashBytes(k), created);
            t.touch(idx);
            if (created) {
                if (auto d = disk.find(k); d != disk.end()) { // read back
                    t.acc(idx)[0].a = d->second;
                    disk.erase(d);
                    policy.readBack(1);
                }
            }
            t.acc(idx)[0].a += 1;
            ++truth[k];
            if (!created || !policy.tick())
                continue;
            auto spillCold = [&] {
                std::vector<std::uint32_t> keep;
                for (std::uint32_t i = 0; i < t.size(); ++i) {
                    if (t.touched(i)) {
                        keep.push_back(i);
                        continue;
                    }
                    disk[std::string(t.key(i))] = t.acc(i)[0].a;
                    policy.spilled(1);
                }
                t.keepOnly(keep, 2);
            };
            auto spillMore = [&](auto overTarget) {
                if (!overTarget())
                    return;
                for (std::uint32_t i = 0; i < t.size(); ++i)
                    disk[std::string(t.key(i))] = t.acc(i)[0].a;
                policy.spilled(static_cast<std::int64_t>(t.size()));
                t.keepOnly({}, 2);
            };
            policy.maybeSpill([&] { return t.bytes(); }, spillCold, spillMore);
            QVERIFY(t.bytes() <= cfg.memoryBudget || t.size() < 2000);
            for (std::uint32_t i = 0; i < t.size(); ++i) { // rows still found after rebuilds
                bool again = true;
                QCOMPARE(t.findOrInsert(t.key(i), keys::hashBytes(t.key(i)), again), i);
                QVERIFY(!again);
            }
        }
        QVERIFY(policy.stats(0).spillPasses > 0);
        QCOMPARE(policy.entriesSpilled(), static_cast<std::int64_t>(disk.size()));
        std::map<std::string, std::int64_t> seen = disk;
        for (std::uint32_t i = 0; i < t.size(); ++i) {
            QVERIFY(!seen.count(std::string(t.key(i)))); // in memory or on disk, never both
            seen[std::string(t.key(i))] = t.acc(i)[0].a;
        }
        QCOMPARE(seen, truth);
        cfg.store.reset();
        QDir(QString::fromStdString(dir)).removeRecursively();
    }

    // Spill-store keys led by a time sort as the times do, negative ones first.
    void timeKeysSortAsTimes()
    {
        const std::vector<Timestamp> ts = {kMinTime, -1000, -1, 0, 1, 999, kMaxTime};
        std::string prev;
        for (Timestamp t : ts) {
            std::string k;
            keys::appendTimeKey(k, t);
            k += "key";
            QCOMPARE(keys::readTimeKey(k), t);
            QVERIFY(prev < k);
            prev = k;
        }
    }

    // SpillPolicy: off without a store; a check every kCheckEvery ticks; no pass under the
    // budget; over it, the cold entries first, then more until 3/4 of the budget; counters.
    void spillPolicyDecides()
    {
        keys::SpillPolicy off;
        off.configure(state::StateBackendConfig{});
        for (std::uint32_t i = 0; i < 1000; ++i)
            QVERIFY(!off.tick());

        std::string error;
        const std::string dir = QDir::tempPath().toStdString() + "/tideline-spill-policy-"
                                + std::to_string(QCoreApplication::applicationPid());
        state::StateBackendConfig cfg;
        cfg.spill = true;
        cfg.memoryBudget = 1000;
        cfg.store = state::SpillStore::open(dir, 64u << 10, error);
        QVERIFY2(cfg.store, error.c_str());
        keys::SpillPolicy p;
        p.configure(cfg);
        QVERIFY(p.enabled());
        QCOMPARE(p.target(), std::size_t(750));
        int ticks = 0;
        while (!p.tick())
            ++ticks;
        QCOMPARE(ticks + 1, static_cast<int>(keys::SpillPolicy::kCheckEvery));

        // 20 entries of 60 bytes, every other one touched since the last pass.
        std::vector<bool> touched(20), inMemory(20, true);
        for (std::size_t i = 0; i < 20; i += 2)
            touched[i] = true;
        auto memory = [&] {
            return static_cast<std::size_t>(std::count(inMemory.begin(), inMemory.end(), true))
                   * 60;
        };
        auto spill = [&](std::size_t i) {
            inMemory[i] = false;
            p.spilled(1);
        };
        int coldCalls = 0;
        auto cold = [&] {
            ++coldCalls;
            for (std::size_t i = 0; i < 20; ++i) {
                if (touched[i])
                    touched[i] = false;
                else if (inMemory[i])
                    spill(i);
            }
        };
        auto more = [&](auto over) {
            for (std::size_t i = 0; i < 20 && over(); ++i)
                if (inMemory[i])
                    spill(i);
        };
        QVERIFY(p.maybeSpill(memory, cold, more));
        // 1200 > 1000: the 10 cold go (600 left <= 750), nothing more.
        QCOMPARE(coldCalls, 1);
        QCOMPARE(memory(), std::size_t(600));
        QCOMPARE(p.entriesSpilled(), std::int64_t(10));
        QVERIFY(!p.maybeSpill(memory, cold, more)); // under budget: no pass
        QCOMPARE(coldCalls, 1);
        // Everything back in memory and all touched: only "more" can bring it down.
        std::fill(inMemory.begin(), inMemory.end(), true);
        std::fill(touched.begin(), touched.end(), true);
        p.readBack(10);
        QVERIFY(p.maybeSpill(memory, cold, more));
        QVERIFY(memory() <= p.target());
        QCOMPARE(memory(), std::size_t(720)); // 8 spilled in order: 12 * 60 <= 750
        const state::SpillStats st = p.stats(12);
        QCOMPARE(st.entriesInMemory, std::int64_t(12));
        QCOMPARE(st.entriesSpilled, std::int64_t(8));
        QCOMPARE(st.peakEntriesSpilled, std::int64_t(10));
        QCOMPARE(st.spillPasses, std::int64_t(2));
        QCOMPARE(st.readBacks, std::int64_t(10));
        p.dropped(8);
        QCOMPARE(p.entriesSpilled(), std::int64_t(0));

        // The spilled part of a snapshot: only the end mark without spilled entries, else the
        // entries of a pinned view, written on the writer's side.
        StateWriter w0;
        keys::deferSpilledEntries(w0, cfg.store, false, [](StateWriter &, auto, auto) {});
        QVERIFY(!w0.hasDeferred());
        QCOMPARE(w0.take(), std::string(1, '\0'));
        {
            state::SpillStore::Batch b(*cfg.store);
            b.put("k1", "v1");
            b.put("k2", "v2");
            b.commit();
        }
        StateWriter w1;
        keys::deferSpilledEntries(w1, cfg.store, true,
                                  [](StateWriter &out, std::string_view k, std::string_view v) {
                                      out.u8(1);
                                      out.str(std::string(k));
                                      out.str(std::string(v));
                                  });
        QVERIFY(w1.hasDeferred());
        cfg.store->erase("k2"); // after the cut: still in the snapshot
        const std::string bytes = w1.take();
        StateReader r(bytes);
        QCOMPARE(int(r.u8()), 1);
        QCOMPARE(r.str(), std::string("k1"));
        QCOMPARE(r.str(), std::string("v1"));
        QCOMPARE(int(r.u8()), 1);
        QCOMPARE(r.str(), std::string("k2"));
        QCOMPARE(r.str(), std::string("v2"));
        QCOMPARE(int(r.u8()), 0);
        QVERIFY(r.atEnd());
        std::string first;
        QVERIFY(cfg.store->first("k", "l", first));
        QCOMPARE(first, std::string("k1"));
        QVERIFY(!cfg.store->first("k2", "l", first));
    }
};

QTEST_GUILESS_MAIN(TestKeyedState)
#include "test_keyed_state.moc"
