// Dedup, join, top and window_join under settings.state "rocksdb" with a tiny budget (20 KB): their
// keyed state spills (the metrics say so, and entries are read back), and everything observable is
// what the same node does in memory: the outputs and late records line by line, and the state
// snapshot byte for byte at the same point of the input (the snapshot layout does not depend on
// where the state lives). A dedup snapshot taken in memory also restores into a spilling instance,
// which spills as it loads and goes on identically. The nodes run in testing::OperatorHarness, fed
// what the pipelines' watermark node emits; one job per operator checks the same end to end
// (outputs equal, the end-of-run spill line).

#include "state/state_backend.hpp"
#include "test_support.hpp"

#include <tideline/engine/job.hpp>
#include <tideline/engine/spec.hpp>
#include <tideline/engine/state_io.hpp>
#include <tideline/engine/testing/operator_harness.hpp>
#include <tideline/engine/time.hpp>

#include <QtTest>

#include <algorithm>

using namespace tideline;
using tideline::testing::Emitted;
using tideline::testing::OperatorHarness;
using tideline::testing::readLines;

namespace {

void writeLines(const std::string &path, const std::vector<std::string> &lines)
{
    std::string text;
    for (const auto &l : lines)
        text += l + "\n";
    tideline::testing::writeFile(path, text);
}

/// Times mostly rising with some disorder (and some records late), keys drawn from `keys`.
std::vector<std::string> records(int n, int keys, std::uint32_t seed, const char *field, int step)
{
    std::vector<std::string> out;
    std::uint32_t x = seed;
    for (int i = 0; i < n; ++i) {
        x = x * 1103515245u + 12345u;
        const int jitter = static_cast<int>((x >> 16) % 40) + ((x >> 20) % 13 == 0 ? 120 : 0);
        out.push_back(R"({"t":)" + std::to_string(i * step - jitter) + R"(,"k":"k)"
                      + std::to_string((x >> 5) % static_cast<std::uint32_t>(keys)) + R"(",")"
                      + field + R"(":)" + std::to_string(i) + "}");
    }
    return out;
}

/// For top: ranked values with many ties (0, 1 or 2), so that a group keeps several rows.
std::vector<std::string> tiedRecords(int n, int keys, std::uint32_t seed)
{
    std::vector<std::string> out = records(n, keys, seed, "i", 1);
    std::uint32_t x = seed;
    for (auto &line : out) {
        x = x * 1103515245u + 12345u;
        line.insert(line.size() - 1, R"(,"v":)" + std::to_string((x >> 9) % 3));
    }
    return out;
}

const Json kSpill = {{"state", "rocksdb"}, {"state_memory_mb", 0.02}};
constexpr double kSpillMb = 0.02;

const Json kDedupParams = {{"key", Json::array({"k"})}, {"within_ms", 3000}};
const Json kJoinParams = {{"left_key", Json::array({"k"})},
                          {"right_key", Json::array({"k"})},
                          {"lower_ms", -400},
                          {"upper_ms", 400},
                          {"type", "left_outer"}};

const Json kTopParams = {{"field", "v"}, {"size_ms", 2000}, {"by", Json::array({"k"})}};

Json windowJoinParams(const char *output)
{
    return {{"left_key", Json::array({"k"})},
            {"right_key", Json::array({"k"})},
            {"size_ms", 2000},
            {"output", output}};
}

std::unique_ptr<OperatorHarness>
harness(const std::string &kind, const Json &params, double spillMb)
{
    testing::HarnessOptions options;
    options.spillMemoryMb = spillMb;
    std::string error;
    auto h = OperatorHarness::create({"op", kind, params, {}}, options, error);
    if (!h)
        qFatal("%s", error.c_str());
    return h;
}

/// Per input line, what the pipelines' watermark node (time_field t, 30 ms) emits.
std::vector<std::vector<Emitted>> watermarked(const std::vector<std::string> &input)
{
    testing::HarnessOptions options;
    std::string error;
    auto wm = OperatorHarness::create(
        {"wm", "watermark", {{"time_field", "t"}, {"max_out_of_orderness_ms", 30}}, {}}, options,
        error);
    if (!wm)
        qFatal("%s", error.c_str());
    std::vector<std::vector<Emitted>> out;
    for (const auto &line : input) {
        wm->processRecord(OperatorHarness::record(line));
        out.push_back(wm->takeEmitted());
    }
    return out;
}

void feed(OperatorHarness &h, int input, const std::vector<Emitted> &events)
{
    for (const auto &e : events) {
        if (e.type == Emitted::Type::Watermark) {
            h.processWatermark(input, e.watermark);
        } else if (e.type == Emitted::Type::Record) {
            Record copy = e.record;
            h.processRecord(input, std::move(copy));
        }
    }
}

/// Feeds lines [from, to) of each input, alternating between inputs record by record.
void feedRange(OperatorHarness &h,
               const std::vector<std::vector<std::vector<Emitted>>> &inputs,
               std::size_t from,
               std::size_t to)
{
    for (std::size_t i = from; i < to; ++i)
        for (std::size_t in = 0; in < inputs.size(); ++in)
            if (i < inputs[in].size())
                feed(h, static_cast<int>(in), inputs[in][i]);
}

state::StatefulOperator &stateful(OperatorHarness &h)
{
    auto *s = dynamic_cast<state::StatefulOperator *>(&h.op());
    if (s == nullptr)
        qFatal("the operator does not implement StatefulOperator");
    return *s;
}

} // namespace

class TestKeyedSpill : public QObject
{
    Q_OBJECT

private:
    tideline::testing::TempDir m_tmp;
    int m_runs = 0;

    /// Runs `mem` and `spill` (the same node, memory and rocksdb) side by side: part way the
    /// spilling one has state on disk and equal state bytes; at the end equal outputs.
    void compare(OperatorHarness &mem,
                 OperatorHarness &spill,
                 const std::vector<std::vector<std::vector<Emitted>>> &inputs,
                 std::size_t split,
                 bool expectDeferred)
    {
        feedRange(mem, inputs, 0, split);
        feedRange(spill, inputs, 0, split);
        const state::SpillStats mid = stateful(spill).spillStats();
        QVERIFY2(mid.entriesSpilled > 100, qPrintable(QString::number(mid.entriesSpilled)));
        QVERIFY(mid.spillPasses > 0);
        const observe::NodeMetrics m = spill.metrics(), mm = mem.metrics();
        QCOMPARE(m.stateSpilled, mid.entriesSpilled); // the metrics show it
        QCOMPARE(m.stateEntries, mm.stateEntries);
        QVERIFY(m.stateBytes < mm.stateBytes);
        // The budget is checked every SpillPolicy::kCheckEvery inserts: memory stays within
        // the budget plus that many entries (here: twice the average entry, for slack).
        const std::int64_t perEntry = mm.stateBytes / mm.stateEntries;
        QVERIFY2(m.stateBytes <= 20 * 1024 + 256 * 2 * perEntry,
                 qPrintable(QString::number(m.stateBytes)));
        StateWriter w;
        spill.op().snapshotState(w);
        QCOMPARE(w.hasDeferred(), expectDeferred);
        QCOMPARE(w.take(), mem.snapshot().state);

        std::size_t n = 0;
        for (const auto &in : inputs)
            n = std::max(n, in.size());
        feedRange(mem, inputs, split, n);
        feedRange(spill, inputs, split, n);
        mem.finish();
        spill.finish();
        const state::SpillStats end = stateful(spill).spillStats();
        QVERIFY(end.readBacks > 0);
        QVERIFY(end.peakEntriesSpilled >= mid.entriesSpilled);
        const auto out = spill.lines();
        QVERIFY(out.size() > 1000);
        QCOMPARE(out, mem.lines());
        QCOMPARE(spill.lines(Emitted::Type::Late, spill.outputIndex("late")),
                 mem.lines(Emitted::Type::Late, mem.outputIndex("late")));
        QVERIFY(!mem.lines(Emitted::Type::Late, mem.outputIndex("late"))
                     .empty()); // lateness is exercised
    }

    /// The same node in a whole job, memory and spilling: equal outputs, and the spilling run
    /// says what it spilled when it ends.
    void endToEnd(const std::string &kind,
                  const Json &params,
                  const std::vector<std::vector<std::string>> &inputs)
    {
        std::vector<std::string> outputs;
        for (const Json &settings : {Json(), kSpill}) {
            const std::string tag = std::to_string(++m_runs);
            Json j = {{"format", "tideline/1"}, {"name", kind + "-spill-" + tag}};
            j["nodes"] = Json::array();
            j["edges"] = Json::array();
            const char *ports[] = {"left", "right"};
            for (std::size_t i = 0; i < inputs.size(); ++i) {
                const std::string src = "src" + std::to_string(i), wm = "wm" + std::to_string(i);
                writeLines(m_tmp.file("in_" + tag + "_" + std::to_string(i)), inputs[i]);
                j["nodes"].push_back(
                    {{"id", src},
                     {"kind", "source.file"},
                     {"params", {{"path", "in_" + tag + "_" + std::to_string(i)}}}});
                j["nodes"].push_back(
                    {{"id", wm},
                     {"kind", "watermark"},
                     {"params", {{"time_field", "t"}, {"max_out_of_orderness_ms", 30}}}});
                j["edges"].push_back({{"from", src + ".out"}, {"to", wm + ".in"}});
                j["edges"].push_back(
                    {{"from", wm + ".out"},
                     {"to", std::string("op.") + (inputs.size() == 1 ? "in" : ports[i])}});
            }
            j["nodes"].push_back({{"id", "op"}, {"kind", kind}, {"params", params}});
            j["nodes"].push_back(
                {{"id", "out"}, {"kind", "sink.file"}, {"params", {{"path", "out_" + tag}}}});
            j["edges"].push_back({{"from", "op.out"}, {"to", "out.in"}});
            if (!settings.is_null())
                j["settings"] = settings;
            const LoadResult loaded = loadSpec(j.dump());
            QVERIFY(loaded.ok() && loaded.spec);
            JobOptions options;
            options.baseDir = m_tmp.path.string();
            std::vector<std::string> log;
            options.log = [&log](const std::string &line) {
                log.push_back(line);
            };
            std::string error;
            auto job = Job::create(*loaded.spec, std::move(options), error);
            QVERIFY2(job, error.c_str());
            QCOMPARE(job->run(), Job::Status::Finished);
            if (!settings.is_null())
                QVERIFY(std::any_of(log.begin(), log.end(), [](const std::string &l) {
                    return l.find("state entries on disk") != std::string::npos;
                }));
            outputs.push_back(tideline::testing::readFile(m_tmp.file("out_" + tag)));
        }
        QVERIFY(outputs[0].size() > 1000);
        QCOMPARE(outputs[1], outputs[0]);
    }

private slots:
    void dedupSpillsWithTheSameOutputAndState()
    {
        const auto input = records(30000, 5000, 987654321u, "v", 1);
        const auto events = watermarked(input);
        auto mem = harness("dedup", kDedupParams, 0);
        auto spill = harness("dedup", kDedupParams, kSpillMb);
        compare(*mem, *spill, {events}, 15000, true);
        QCOMPARE(spill->metrics().duplicatesDropped, mem->metrics().duplicatesDropped);
        QVERIFY(mem->metrics().duplicatesDropped > 1000);
        endToEnd("dedup", kDedupParams, {input});
    }

    // A state written in memory mode loads into a spilling instance (spilling as it loads), and
    // a state written while spilling loads into a memory instance: both go on as the original.
    void dedupStateMovesBetweenModes()
    {
        const auto input = records(20000, 5000, 123456789u, "v", 1);
        const auto events = watermarked(input);
        const std::size_t split = 9000;
        auto a = harness("dedup", kDedupParams, 0);
        feedRange(*a, {events}, 0, split);
        const std::size_t outBefore = a->lines().size();
        const testing::OperatorSnapshot state = a->snapshot();
        feedRange(*a, {events}, split, events.size());
        a->finish();
        const auto outA = a->lines();
        const std::vector<std::string> rest(outA.begin() + static_cast<std::ptrdiff_t>(outBefore),
                                            outA.end());

        auto b = harness("dedup", kDedupParams, kSpillMb);
        QCOMPARE(b->restore(state), std::string());
        QVERIFY(stateful(*b).spillStats().entriesSpilled > 100); // spilled as it loaded
        const testing::OperatorSnapshot again = b->snapshot();
        QCOMPARE(again.state, state.state); // the same state, wherever it lives
        feedRange(*b, {events}, split, events.size());
        b->finish();
        QCOMPARE(b->lines(), rest);

        auto c = harness("dedup", kDedupParams, 0);
        QCOMPARE(c->restore(again), std::string());
        feedRange(*c, {events}, split, events.size());
        c->finish();
        QCOMPARE(c->lines(), rest);
    }

    void joinSpillsWithTheSameOutputAndState()
    {
        const auto left = records(12000, 400, 11u, "a", 2);
        const auto right = records(12000, 400, 77u, "b", 2);
        const auto l = watermarked(left), r = watermarked(right);
        auto mem = harness("join", kJoinParams, 0);
        auto spill = harness("join", kJoinParams, kSpillMb);
        compare(*mem, *spill, {l, r}, 6000, false);
        endToEnd("join", kJoinParams, {left, right});
    }

    // top spills the rows of cold groups; a group (its key, completion time, timer) stays.
    void topSpillsWithTheSameOutputAndState()
    {
        const auto input = tiedRecords(30000, 800, 2468u);
        const auto events = watermarked(input);
        auto mem = harness("top", kTopParams, 0);
        auto spill = harness("top", kTopParams, kSpillMb);
        compare(*mem, *spill, {events}, 15000, true);
        endToEnd("top", kTopParams, {input});
    }

    // top's timers (keys::ExpiryQueue, one per group): a group whose completion time moved
    // later waits again when its first timer comes up, and groups that one watermark completes
    // come out by (completion time, key), whatever their arrival order.
    void topGroupThatCompletesLaterWaitsAgain()
    {
        const std::vector<std::string> input
            = {R"({"t":100,"g":"a","v":1})",  R"({"t":125,"g":"a","v":1})",
               R"({"t":140,"g":"b","v":5})",  R"({"t":1000,"g":"x","v":0})",
               R"({"t":1500,"g":"d","v":1})", R"({"t":1480,"g":"e","v":1})",
               R"({"t":1490,"g":"g","v":2})", R"({"t":1490,"g":"f","v":2})",
               R"({"t":3000,"g":"z","v":0})"};
        auto h = harness("top", {{"field", "v"}, {"by", Json::array({"g"})}}, 0);
        const auto events = watermarked(input);
        feedRange(*h, {events}, 0, 3);
        // W passed a's first time (100), not its completion (125): a waits
        QVERIFY(h->lines().empty());
        feedRange(*h, {events}, 3, events.size());
        h->finish();
        std::string groups;
        for (const auto &line : h->lines()) {
            const auto at = line.find("\"g\":\"");
            QVERIFY(at != std::string::npos);
            groups += line[at + 5];
        }
        QCOMPARE(groups, std::string("aabxefgdz"));
    }

    // A top state written while spilling loads into a memory instance and back: the same
    // bytes, and both go on as the original.
    void topStateMovesBetweenModes()
    {
        const auto input = tiedRecords(16000, 800, 97531u);
        const auto events = watermarked(input);
        const std::size_t split = 7000;
        auto a = harness("top", kTopParams, kSpillMb);
        feedRange(*a, {events}, 0, split);
        QVERIFY(stateful(*a).spillStats().entriesSpilled > 100);
        const std::size_t outBefore = a->lines().size();
        const testing::OperatorSnapshot state = a->snapshot();
        feedRange(*a, {events}, split, events.size());
        a->finish();
        const auto outA = a->lines();
        const std::vector<std::string> rest(outA.begin() + static_cast<std::ptrdiff_t>(outBefore),
                                            outA.end());

        auto b = harness("top", kTopParams, 0);
        QCOMPARE(b->restore(state), std::string());
        const testing::OperatorSnapshot again = b->snapshot();
        QCOMPARE(again.state, state.state);
        feedRange(*b, {events}, split, events.size());
        b->finish();
        QCOMPARE(b->lines(), rest);

        auto c = harness("top", kTopParams, kSpillMb);
        QCOMPARE(c->restore(again), std::string());
        QVERIFY(stateful(*c).spillStats().entriesSpilled > 100); // spilled as it loaded
        QCOMPARE(c->snapshot().state, state.state);
        feedRange(*c, {events}, split, events.size());
        c->finish();
        QCOMPARE(c->lines(), rest);
    }

    // window_join spills buffered records (both sides for pairs, the left side for
    // left_semi, whose right keys stay in memory) and reads a window back when it fires.
    void windowJoinSpillsWithTheSameOutputAndState()
    {
        // left_semi with fewer keys: its key set (in memory) fits in the budget.
        for (const auto &[output, nKeys] : {std::pair("pairs", 800), std::pair("left_semi", 200)}) {
            const auto left = records(8000, nKeys, 5u, "a", 1);
            const auto right = records(8000, nKeys, 55u, "b", 1);
            const auto l = watermarked(left), r = watermarked(right);
            const Json params = windowJoinParams(output);
            auto mem = harness("window_join", params, 0);
            auto spill = harness("window_join", params, kSpillMb);
            compare(*mem, *spill, {l, r}, 5000, false);
            endToEnd("window_join", params, {left, right});
        }
    }
};

QTEST_GUILESS_MAIN(TestKeyedSpill)
#include "test_keyed_spill.moc"
