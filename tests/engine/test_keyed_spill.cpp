// Dedup and join under settings.state "rocksdb" with a tiny budget (20 KB): their keyed state
// spills (the metrics and the end-of-run log line say so, and entries are read back), and
// everything observable is what the same pipeline does with "memory": the outputs and late
// records line by line, and the state snapshot byte for byte at the same point of the input
// (the snapshot layout does not depend on where the state lives). A dedup snapshot taken in
// memory also restores into a spilling job, which spills as it loads and goes on identically.

#include "runtime/runtime.hpp"
#include "state/state_backend.hpp"
#include "test_support.hpp"

#include <tideline/engine/job.hpp>
#include <tideline/engine/spec.hpp>
#include <tideline/engine/state_io.hpp>
#include <tideline/engine/time.hpp>

#include <QtTest>

#include <algorithm>

using namespace tideline;
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

const Json kSpill = {{"state", "rocksdb"}, {"state_memory_mb", 0.02}};

} // namespace

class TestKeyedSpill : public QObject
{
    Q_OBJECT

private:
    tideline::testing::TempDir m_tmp;
    ManualClock m_clock;
    int m_runs = 0;

    struct Run
    {
        std::unique_ptr<Job> job;
        std::string tag;
        std::vector<std::string> log;
    };

    Json dedupPipeline(const std::string &tag, const Json &settings)
    {
        Json j = Json::parse(R"({"format": "tideline/1", "nodes": [], "edges": [
            {"from": "src.out", "to": "wm.in"}, {"from": "wm.out", "to": "op.in"},
            {"from": "op.out", "to": "out.in"}, {"from": "op.late", "to": "late.in"}]})");
        j["name"] = "dedup-spill-" + tag;
        j["nodes"] = Json::array(
            {{{"id", "src"}, {"kind", "source.file"}, {"params", {{"path", "in_" + tag}}}},
             {{"id", "wm"},
              {"kind", "watermark"},
              {"params", {{"time_field", "t"}, {"max_out_of_orderness_ms", 30}}}},
             {{"id", "op"},
              {"kind", "dedup"},
              {"params", {{"key", Json::array({"k"})}, {"within_ms", 3000}}}},
             {{"id", "out"}, {"kind", "sink.file"}, {"params", {{"path", "out_" + tag}}}},
             {{"id", "late"}, {"kind", "sink.file"}, {"params", {{"path", "late_" + tag}}}}});
        if (!settings.is_null())
            j["settings"] = settings;
        return j;
    }

    Json joinPipeline(const std::string &tag, const Json &settings)
    {
        Json j = Json::parse(R"({"format": "tideline/1", "nodes": [], "edges": [
            {"from": "ls.out", "to": "lw.in"}, {"from": "rs.out", "to": "rw.in"},
            {"from": "lw.out", "to": "op.left"}, {"from": "rw.out", "to": "op.right"},
            {"from": "op.out", "to": "out.in"}, {"from": "op.late", "to": "late.in"}]})");
        j["name"] = "join-spill-" + tag;
        const Json wm = {{"time_field", "t"}, {"max_out_of_orderness_ms", 30}};
        j["nodes"] = Json::array(
            {{{"id", "ls"}, {"kind", "source.file"}, {"params", {{"path", "left_" + tag}}}},
             {{"id", "rs"}, {"kind", "source.file"}, {"params", {{"path", "right_" + tag}}}},
             {{"id", "lw"}, {"kind", "watermark"}, {"params", wm}},
             {{"id", "rw"}, {"kind", "watermark"}, {"params", wm}},
             {{"id", "op"},
              {"kind", "join"},
              {"params",
               {{"left_key", Json::array({"k"})},
                {"right_key", Json::array({"k"})},
                {"lower_ms", -400},
                {"upper_ms", 400},
                {"type", "left_outer"}}}},
             {{"id", "out"}, {"kind", "sink.file"}, {"params", {{"path", "out_" + tag}}}},
             {{"id", "late"}, {"kind", "sink.file"}, {"params", {{"path", "late_" + tag}}}}});
        if (!settings.is_null())
            j["settings"] = settings;
        return j;
    }

    Run start(const Json &pipeline, const std::string &tag)
    {
        Run r;
        r.tag = tag;
        const LoadResult loaded = loadSpec(pipeline.dump());
        if (!loaded.ok() || !loaded.spec) {
            std::string text;
            for (const auto &d : loaded.diagnostics)
                text += d.format() + "\n";
            qFatal("invalid pipeline: %s", text.c_str());
        }
        JobOptions options;
        options.baseDir = m_tmp.path.string();
        options.clock = &m_clock;
        auto *log = &r.log;
        options.log = [log](const std::string &line) {
            log->push_back(line);
        };
        std::string error;
        r.job = Job::create(*loaded.spec, std::move(options), error);
        if (!r.job)
            qFatal("cannot create the job: %s", error.c_str());
        return r;
    }

    Run dedupJob(const std::vector<std::string> &input, const Json &settings)
    {
        const std::string tag = std::to_string(++m_runs);
        writeLines(m_tmp.file("in_" + tag), input);
        return start(dedupPipeline(tag, settings), tag);
    }

    Run joinJob(const std::vector<std::string> &left,
                const std::vector<std::string> &right,
                const Json &settings)
    {
        const std::string tag = std::to_string(++m_runs);
        writeLines(m_tmp.file("left_" + tag), left);
        writeLines(m_tmp.file("right_" + tag), right);
        return start(joinPipeline(tag, settings), tag);
    }

    static Operator &op(Job &job)
    {
        const int idx = job.runtime().spec().nodeIndex("op");
        return *job.runtime().nodes()[static_cast<std::size_t>(idx)].op;
    }
    static state::StatefulOperator &stateful(Job &job)
    {
        auto *s = dynamic_cast<state::StatefulOperator *>(&op(job));
        if (s == nullptr)
            qFatal("the operator does not implement StatefulOperator");
        return *s;
    }
    static std::string snapshot(Job &job)
    {
        StateWriter w;
        op(job).snapshotState(w);
        return w.take();
    }
    std::vector<std::string> lines(const std::string &name) const
    {
        return readLines(m_tmp.file(name));
    }

    /// Runs `mem` and `spill` (the same pipeline, memory and rocksdb) side by side: part way
    /// the spilling one has state on disk and equal state bytes; at the end equal outputs.
    void compare(Run &mem, Run &spill, int split, bool expectDeferred)
    {
        QCOMPARE(mem.job->runFor(split), Job::Status::Running);
        QCOMPARE(spill.job->runFor(split), Job::Status::Running);
        const state::SpillStats mid = stateful(*spill.job).spillStats();
        QVERIFY2(mid.entriesSpilled > 100, qPrintable(QString::number(mid.entriesSpilled)));
        QVERIFY(mid.spillPasses > 0);
        spill.job->publishMetrics();
        mem.job->publishMetrics();
        const observe::MetricsSnapshot sm = spill.job->snapshot(), mm = mem.job->snapshot();
        const observe::NodeMetrics *m = sm.node("op");
        QVERIFY(m != nullptr);
        QCOMPARE(m->stateSpilled, mid.entriesSpilled); // the metrics show it
        QCOMPARE(m->stateEntries, mm.node("op")->stateEntries);
        QVERIFY(m->stateBytes < mm.node("op")->stateBytes);
        // The budget is checked every SpillPolicy::kCheckEvery inserts: memory stays within
        // the budget plus that many entries (here: twice the average entry, for slack).
        const std::int64_t perEntry = mm.node("op")->stateBytes / mm.node("op")->stateEntries;
        QVERIFY2(m->stateBytes <= 20 * 1024 + 256 * 2 * perEntry,
                 qPrintable(QString::number(m->stateBytes)));
        StateWriter w;
        op(*spill.job).snapshotState(w);
        QCOMPARE(w.hasDeferred(), expectDeferred);
        QCOMPARE(w.take(), snapshot(*mem.job));

        QCOMPARE(mem.job->run(), Job::Status::Finished);
        QCOMPARE(spill.job->run(), Job::Status::Finished);
        const state::SpillStats end = stateful(*spill.job).spillStats();
        QVERIFY(end.readBacks > 0);
        QVERIFY(end.peakEntriesSpilled >= mid.entriesSpilled);
        QVERIFY(std::any_of(spill.log.begin(), spill.log.end(), [](const std::string &l) {
            return l.find("state entries on disk") != std::string::npos;
        }));
        const auto out = lines("out_" + spill.tag);
        QVERIFY(out.size() > 1000);
        QCOMPARE(out, lines("out_" + mem.tag));
        QCOMPARE(lines("late_" + spill.tag), lines("late_" + mem.tag));
        QVERIFY(!lines("late_" + mem.tag).empty()); // the input does exercise lateness
    }

private slots:
    void dedupSpillsWithTheSameOutputAndState()
    {
        const auto input = records(30000, 5000, 987654321u, "v", 1);
        Run mem = dedupJob(input, Json());
        Run spill = dedupJob(input, kSpill);
        compare(mem, spill, 15000, true);
        spill.job->publishMetrics();
        mem.job->publishMetrics();
        const observe::MetricsSnapshot sm = spill.job->snapshot(), mm = mem.job->snapshot();
        QCOMPARE(sm.node("op")->duplicatesDropped, mm.node("op")->duplicatesDropped);
        QVERIFY(mm.node("op")->duplicatesDropped > 1000);
    }

    // A state written in memory mode loads into a spilling job (spilling as it loads), and a
    // state written while spilling loads into a memory job: both go on as the original did.
    void dedupStateMovesBetweenModes()
    {
        const auto input = records(20000, 5000, 123456789u, "v", 1);
        const int split = 9000;
        Run a = dedupJob(input, Json());
        QCOMPARE(a.job->runFor(split), Job::Status::Running);
        a.job->publishMetrics();
        const std::int64_t outBefore = a.job->snapshot().node("op")->recordsOut; // a copy
        const std::string state = snapshot(*a.job);
        QCOMPARE(a.job->run(), Job::Status::Finished);
        const auto outA = lines("out_" + a.tag);
        const std::vector<std::string> rest(outA.begin() + outBefore, outA.end());

        const std::vector<std::string> tail(input.begin() + split, input.end());
        Run b = dedupJob(tail, kSpill);
        StateReader rb(state);
        op(*b.job).restoreState(rb);
        QVERIFY(rb.atEnd());
        QVERIFY(stateful(*b.job).spillStats().entriesSpilled > 100); // spilled as it loaded
        const std::string again = [&] {
            StateWriter w;
            op(*b.job).snapshotState(w);
            return w.take();
        }();
        QCOMPARE(again, state); // the same state, wherever it lives
        QCOMPARE(b.job->run(), Job::Status::Finished);
        QCOMPARE(lines("out_" + b.tag), rest);

        Run c = dedupJob(tail, Json());
        StateReader rc(again);
        op(*c.job).restoreState(rc);
        QVERIFY(rc.atEnd());
        QCOMPARE(c.job->run(), Job::Status::Finished);
        QCOMPARE(lines("out_" + c.tag), rest);
    }

    void joinSpillsWithTheSameOutputAndState()
    {
        const auto left = records(12000, 400, 11u, "a", 2);
        const auto right = records(12000, 400, 77u, "b", 2);
        Run mem = joinJob(left, right, Json());
        Run spill = joinJob(left, right, kSpill);
        compare(mem, spill, 12000, false);
    }
};

QTEST_GUILESS_MAIN(TestKeyedSpill)
#include "test_keyed_spill.moc"
