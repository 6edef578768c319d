// Kafka Streams session windows under "emit": "updates": the retraction rows Tideline writes for
// the sessions a record merges away, held to Kafka Streams' own
// KStreamSessionWindowAggregateProcessorTest (caching off, as a TopologyTestDriver without a
// cache runs it: every forward is seen). KStreamSessionWindowAggregate removes each session it
// merged and forwards a tombstone (a null value) for its window, unless the merged window is the
// record's own [t, t]; then it forwards the merged session. Tideline writes each tombstone as a
// row of that session's key fields, window_start and window_end with every aggregate null and
// "emit": "retract" (docs/reference/semantics.md), right before the merged session's row. The
// peer tests use a gap of 5 minutes; here gap_ms is 300000 and t is in milliseconds.

// clang-format off
#include "semantics_runner.hpp"
#include "qt_lines.hpp"
// clang-format on

#include <QtTest>

using namespace tideline;
using testing::ModeRun;

namespace {

constexpr std::int64_t kGap = 300000; // GAP_MS = 5 * 60 * 1000

Json kafka(const char *mode)
{
    Json s = Json::object();
    s["semantics"] = "kafka-streams";
    s["kafka_streams"]["emit"] = mode; // (a Qt macro is called `emit`)
    return s;
}

Json sessions(std::int64_t gap)
{
    return {{"kind", "window"},
            {"params",
             {{"type", "session"},
              {"gap_ms", gap},
              {"key", {"k"}},
              {"aggregates", {{{"op", "count"}, {"as", "count"}}}}}}};
}

std::string put(const char *k, std::int64_t start, std::int64_t end, int count)
{
    return Json({{"k", k},
                 {"window_start", start},
                 {"window_end", end},
                 {"count", count},
                 {"emit", "update"}})
        .dump();
}

std::string tombstone(const char *k, std::int64_t start, std::int64_t end)
{
    return Json({{"k", k},
                 {"window_start", start},
                 {"window_end", end},
                 {"count", nullptr},
                 {"emit", "retract"}})
        .dump();
}

std::vector<Json> records(const std::vector<std::pair<const char *, std::int64_t>> &in)
{
    std::vector<Json> out;
    for (const auto &[k, t] : in)
        out.push_back({{"k", k}, {"t", t}});
    return out;
}

QStringList q(const std::vector<std::string> &v)
{
    return testing::toQStringList(v);
}

} // namespace

class SemanticsRetractTest : public QObject
{
    Q_OBJECT

    testing::TempDir m_dir;

    ModeRun run(const char *mode, std::int64_t gap, const std::vector<Json> &in)
    {
        ModeRun r = testing::runMode(m_dir.path.string(), kafka(mode), sessions(gap), 0, in);
        if (!r.error.empty())
            qWarning("%s", r.error.c_str());
        return r;
    }

private slots:
    // "shouldImmediatelyForwardRemovedSessionsWhenMerging": a at 0, a at 5 -> [0,0] = 1, the
    // tombstone of [0,0], [0,5] = 2.
    void forwardsRemovedSessionsWhenMerging()
    {
        const auto r = run("updates", kGap, records({{"a", 0}, {"a", 5}}));
        QVERIFY2(r.error.empty(), r.error.c_str());
        QCOMPARE(q(r.lines), q({put("a", 0, 0, 1), tombstone("a", 0, 0), put("a", 0, 5, 2)}));
    }

    // "shouldMergeSessions": mel at 0, at GAP + 1 (a second session: 0 is not within the gap),
    // then at GAP / 2, which merges both into [0, GAP + 1] = 3: a tombstone for each of the two
    // (in the order the session store finds them: by end), then the merged session.
    void mergesTwoSessionsIntoOne()
    {
        const auto r
            = run("updates", kGap, records({{"mel", 0}, {"mel", kGap + 1}, {"mel", kGap / 2}}));
        QVERIFY2(r.error.empty(), r.error.c_str());
        QCOMPARE(q(r.lines),
                 q({put("mel", 0, 0, 1), put("mel", kGap + 1, kGap + 1, 1), tombstone("mel", 0, 0),
                    tombstone("mel", kGap + 1, kGap + 1), put("mel", 0, kGap + 1, 3)}));
    }

    // "shouldUpdateSessionIfTheSameTime": two records at 0 -> [0,0] = 1, then [0,0] = 2. The
    // merged window is the record's own [0, 0], so Kafka Streams puts over the session without a
    // tombstone.
    void sameTimeUpdatesWithoutTombstone()
    {
        const auto r = run("updates", kGap, records({{"mel", 0}, {"mel", 0}}));
        QVERIFY2(r.error.empty(), r.error.c_str());
        QCOMPARE(q(r.lines), q({put("mel", 0, 0, 1), put("mel", 0, 0, 2)}));
    }

    // A record inside a session's bounds changes no bound but still replaces it in the store:
    // the session's tombstone, then the same window with the new count.
    void recordInsideASessionReplacesIt()
    {
        const auto r = run("updates", kGap, records({{"a", 0}, {"a", 10}, {"a", 4}}));
        QVERIFY2(r.error.empty(), r.error.c_str());
        QCOMPARE(q(r.lines), q({put("a", 0, 0, 1), tombstone("a", 0, 0), put("a", 0, 10, 2),
                                tombstone("a", 0, 10), put("a", 0, 10, 3)}));
    }

    // "shouldHaveMultipleSessionsForSameIdWhenTimestampApartBySessionGap" (without the cache
    // that test runs with, so every update is seen): sessions more than a gap apart never merge,
    // so nothing is retracted.
    void sessionsApartAreNotRetracted()
    {
        const std::int64_t t1 = kGap + 1, t2 = 2 * (kGap + 1);
        const auto r
            = run("updates", kGap, records({{"mel", 0}, {"mel", t1}, {"mel", t1}, {"mel", t2}}));
        QVERIFY2(r.error.empty(), r.error.c_str());
        QCOMPARE(q(r.lines), q({put("mel", 0, 0, 1), put("mel", t1, t1, 1), put("mel", t1, t1, 2),
                                put("mel", t2, t2, 1)}));
    }

    // on_close writes each session once, when it closes: no tombstones (EmitStrategy.onWindowClose
    // forwards final results only). The last row is the end-of-input flush.
    void onCloseWritesNoRetractions()
    {
        const auto r = run("on_close", 10, records({{"a", 0}, {"a", 5}, {"b", 40}}));
        QVERIFY2(r.error.empty(), r.error.c_str());
        auto fin = [](const char *k, std::int64_t s, std::int64_t e, int n) {
            return Json({{"k", k},
                         {"window_start", s},
                         {"window_end", e},
                         {"count", n},
                         {"emit", "final"}})
                .dump();
        };
        QCOMPARE(q(r.lines), q({fin("a", 0, 5, 2), fin("b", 40, 40, 1) /* flush */}));
    }

    // The ledger still balances: a retraction counts as one of the window's update rows.
    void retractionsAreAccounted()
    {
        const auto r = run("updates", kGap, records({{"a", 0}, {"a", 5}}));
        const auto *m = r.metrics.node("op");
        QVERIFY(m != nullptr);
        QCOMPARE(m->recordsOut, std::int64_t(3));
    }
};

QTEST_GUILESS_MAIN(SemanticsRetractTest)
#include "test_semantics_retract.moc"
