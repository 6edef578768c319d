// Lineage (issue 16, items 2-3): the examples' questions answered. clk-0082 and clk-0084 of
// ad-impressions-clicks are found and said to have had no partner; payments-dedup's 41
// duplicates each name the record first seen; a session that merged after late records lists
// exactly its records (as many as its count); a join pair lists its two sides; the budget
// forgets the oldest records first and says so.

#include "test_support.hpp"

#include <tideline/engine/lineage.hpp>

#include <QtTest>

#include <filesystem>
#include <functional>
#include <set>
#include <sstream>

using namespace tideline;
using testing::TempDir;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct Traced
{
    std::unique_ptr<Job> job;
    Job::Status status = Job::Status::Failed;
};

Traced runTraced(const std::string &example, TempDir &dir, lineage::Options o = {})
{
    fs::copy(TIDELINE_SOURCE_DIR "/pipelines/" + example, dir.path, fs::copy_options::recursive);
    fs::remove_all(dir.path / "out");
    Traced t;
    auto loaded = loadSpec(testing::readFile(dir.file("pipeline.json")));
    if (!loaded.ok())
        return t;
    JobOptions jo;
    jo.baseDir = dir.path.string();
    o.enabled = true;
    jo.lineage = o;
    std::string error;
    t.job = Job::create(*loaded.spec, jo, error);
    if (t.job)
        t.status = t.job->run();
    return t;
}

/// Runs a Nexmark query of pipelines/nexmark with `count` events, after `edit` changes it.
Traced runNexmark(const std::string &query,
                  std::int64_t count,
                  TempDir &dir,
                  const std::function<void(json &)> &edit = {})
{
    json j = json::parse(
        testing::readFile(TIDELINE_SOURCE_DIR "/pipelines/nexmark/" + query + ".json"));
    for (auto &n : j["nodes"])
        if (n["kind"] == "source.nexmark")
            n["params"]["count"] = count;
    if (edit)
        edit(j);
    Traced t;
    auto loaded = loadSpec(j.dump());
    if (!loaded.ok())
        return t;
    JobOptions jo;
    jo.baseDir = dir.path.string();
    jo.lineage.enabled = true;
    std::string error;
    t.job = Job::create(*loaded.spec, jo, error);
    if (t.job)
        t.status = t.job->run();
    return t;
}

void setParam(json &spec, const std::string &id, const std::string &name, json value)
{
    for (auto &n : spec["nodes"])
        if (n["id"] == id)
            n["params"][name] = std::move(value);
}

const lineage::TracedInput *inputOf(const lineage::Explanation &e, std::uint64_t id)
{
    for (const auto &in : e.inputs)
        if (in.id == id)
            return &in;
    return nullptr;
}

bool hasStep(const lineage::TracedInput &t, const std::string &node, const std::string &kind)
{
    for (const auto &s : t.path)
        if (s.node == node && s.kind == kind)
            return true;
    return false;
}

std::string pathText(const lineage::TracedInput &t)
{
    std::string s = t.record + "\n";
    for (const auto &p : t.path)
        s += "  " + p.node + " [" + p.kind + "] " + p.what + "\n";
    return s;
}

} // namespace

class TestLineage : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void theTwoVanishedClicksAreExplained()
    {
        TempDir dir;
        auto t = runTraced("ad-impressions-clicks", dir);
        QCOMPARE(t.status, Job::Status::Finished);
        QVERIFY(t.job->lineage());
        for (const char *click : {"clk-0082", "clk-0084"}) {
            auto e = lineage::explainInputs(*t.job->lineage(),
                                            std::string("click_id == \"") + click + "\"");
            QVERIFY2(e.error.empty(), e.error.c_str());
            QCOMPARE(e.inputs.size(), std::size_t{1});
            const auto &in = e.inputs[0];
            const std::string text = pathText(in);
            QCOMPARE(in.source, std::string("clicks"));
            QVERIFY2(hasStep(in, "clicks", "read"), text.c_str());
            QVERIFY2(hasStep(in, "click_time", "passed"), text.c_str());
            QVERIFY2(hasStep(in, "clicked", "join_unmatched"), text.c_str());
            QVERIFY2(!hasStep(in, "clicked", "joined"), text.c_str());
            QVERIFY2(in.outputs.empty(), text.c_str());
            // The sentence names the bounds and the watermark, as times and epoch ms.
            bool said = false;
            for (const auto &s : in.path)
                if (s.kind == "join_unmatched")
                    said = s.what.find("no partner") != std::string::npos
                           && s.what.find("before the watermark passed") != std::string::npos
                           && s.what.find("T") != std::string::npos && s.watermark.has_value();
            QVERIFY2(said, text.c_str());
        }
        // A click that did join: its pair lists both sides.
        auto pairs = lineage::explainOutputs(*t.job->lineage(), "right.click_id != null");
        QVERIFY(pairs.error.empty());
        QVERIFY(pairs.outputs.size() > 10);
        for (const auto &o : pairs.outputs) {
            QCOMPARE(o.inputs.size(), std::size_t{2});
            const json row = json::parse(o.record);
            std::set<std::string> sources;
            for (std::uint64_t id : o.inputs)
                for (const auto &in : pairs.inputs)
                    if (in.id == id) {
                        sources.insert(in.source);
                        const json rec = json::parse(in.record);
                        QCOMPARE(rec["impression_id"], row["left"]["impression_id"]);
                        if (in.source == "clicks")
                            QCOMPARE(rec["click_id"], row["right"]["click_id"]);
                        QVERIFY(hasStep(in, "clicked", "joined"));
                    }
            QCOMPARE(sources, (std::set<std::string>{"clicks", "impressions"}));
        }
        // An impression nobody clicked: its "right": null row comes from it alone.
        auto lonely = lineage::explainOutputs(*t.job->lineage(), "right.click_id == null");
        QVERIFY(!lonely.outputs.empty());
        for (const auto &o : lonely.outputs) {
            QCOMPARE(o.inputs.size(), std::size_t{1});
            QCOMPARE(lonely.inputs.size() >= 1, true);
        }
    }

    void everyDuplicateNamesTheRecordFirstSeen()
    {
        TempDir dir;
        auto t = runTraced("payments-dedup", dir);
        QCOMPARE(t.status, Job::Status::Finished);
        auto all = lineage::explainAll(*t.job->lineage());
        int duplicates = 0;
        for (const auto &in : all.inputs)
            for (const auto &s : in.path)
                if (s.kind == "duplicate") {
                    ++duplicates;
                    QCOMPARE(s.node, std::string("once"));
                    QCOMPARE(s.related.size(), std::size_t{1});
                    const auto first
                        = std::find_if(all.inputs.begin(), all.inputs.end(),
                                       [&](const auto &x) { return x.id == s.related[0]; });
                    QVERIFY2(first != all.inputs.end(), pathText(in).c_str());
                    QVERIFY(first->id < in.id);
                    QCOMPARE(json::parse(first->record)["event_id"],
                             json::parse(in.record)["event_id"]);
                    QVERIFY2(s.what.find("first seen at") != std::string::npos, s.what.c_str());
                    QVERIFY(in.outputs.empty());
                }
        QCOMPARE(duplicates, 41);
        // Every input record went somewhere that is said (no empty path past the source).
        for (const auto &in : all.inputs)
            QVERIFY2(in.path.size() >= 2, pathText(in).c_str());
    }

    void aMergedSessionListsExactlyItsRecords()
    {
        TempDir dir;
        auto t = runTraced("sessions-late-data", dir);
        QCOMPARE(t.status, Job::Status::Finished);
        auto rows = lineage::explainOutputs(*t.job->lineage(), "emit != null");
        QVERIFY(rows.error.empty());
        int updates = 0;
        for (const auto &o : rows.outputs) {
            const json row = json::parse(o.record);
            // As many input records as the session counted, each of its user and inside it.
            QCOMPARE(static_cast<std::int64_t>(o.inputs.size()), row["events"].get<std::int64_t>());
            std::int64_t spent = 0;
            for (std::uint64_t id : o.inputs)
                for (const auto &in : rows.inputs)
                    if (in.id == id) {
                        const json rec = json::parse(in.record);
                        QCOMPARE(rec["user"], row["user"]);
                        QVERIFY(rec["t"].get<std::int64_t>()
                                >= row["window_start"].get<std::int64_t>());
                        QVERIFY(rec["t"].get<std::int64_t>()
                                < row["window_end"].get<std::int64_t>());
                        spent += rec["amount"].get<std::int64_t>();
                    }
            QCOMPARE(spent, row["spent"].get<std::int64_t>());
            QVERIFY2(o.madeBy.find("window `sessions`") != std::string::npos, o.madeBy.c_str());
            updates += row["emit"] == "update";
        }
        QVERIFY(updates >= 1); // late records merged sessions that had fired
        // The record behind the watermark past allowed lateness: late by N ms behind W.
        auto late
            = lineage::explainInputs(*t.job->lineage(), "user == \"ann\" and t == 1714557639000");
        QCOMPARE(late.inputs.size(), std::size_t{1});
        const std::string text = pathText(late.inputs[0]);
        QVERIFY2(hasStep(late.inputs[0], "sessions", "window")
                     || hasStep(late.inputs[0], "sessions", "late"),
                 text.c_str());
    }

    void aTopRowListsItsPanesRecords()
    {
        // q5: `hottest` (top by window_start, window_end) keeps the auction with the most bids of
        // each sliding window; its row is made of every window row of that pane, and so of
        // every bid the pane counted. The hottest auction's own bids are exactly `num` of them.
        TempDir dir;
        auto t = runNexmark("q5", 4000, dir);
        QCOMPARE(t.status, Job::Status::Finished);
        auto rows = lineage::explainOutputs(*t.job->lineage(), "num != null");
        QVERIFY(rows.error.empty());
        QVERIFY(rows.outputs.size() >= 3);
        for (const auto &o : rows.outputs) {
            const json row = json::parse(o.record);
            QVERIFY2(o.madeBy.find("top `hottest`") != std::string::npos, o.madeBy.c_str());
            QVERIFY2(!o.inputs.empty(), o.record.c_str());
            std::int64_t ofAuction = 0;
            for (std::uint64_t id : o.inputs) {
                const auto *in = inputOf(rows, id);
                QVERIFY(in);
                const json rec = json::parse(in->record);
                QCOMPARE(rec["event_type"], json(2));
                const auto time = rec["bid"]["dateTime"].get<std::int64_t>();
                QVERIFY(time >= row["window_start"].get<std::int64_t>());
                QVERIFY(time < row["window_end"].get<std::int64_t>());
                ofAuction += rec["bid"]["auction"] == row["bid"]["auction"];
                QVERIFY2(hasStep(*in, "hottest", "window"), pathText(*in).c_str());
            }
            QCOMPARE(ofAuction, row["num"].get<std::int64_t>());
        }
    }

    void aTopWithItsOwnWindowListsItsRecords()
    {
        // q7: `highest` assigns 10 s windows itself; its row (the highest bid) comes from every
        // bid of the window, the highest among them.
        TempDir dir;
        auto t = runNexmark("q7", 25000, dir);
        QCOMPARE(t.status, Job::Status::Finished);
        auto rows = lineage::explainOutputs(*t.job->lineage(), "window_end != null");
        QVERIFY(rows.outputs.size() >= 2);
        for (const auto &o : rows.outputs) {
            const json row = json::parse(o.record);
            const auto end = row["window_end"].get<std::int64_t>();
            std::int64_t best = 0;
            bool itself = false;
            for (std::uint64_t id : o.inputs) {
                const auto *in = inputOf(rows, id);
                QVERIFY(in);
                const json rec = json::parse(in->record);
                const auto time = rec["bid"]["dateTime"].get<std::int64_t>();
                QVERIFY(time >= end - 10000 && time < end);
                best = std::max(best, rec["bid"]["price"].get<std::int64_t>());
                bool same = true; // (the row keeps some of the bid's fields)
                for (const auto &[k, v] : row["bid"].items())
                    same = same && rec["bid"][k] == v;
                itself = itself || same;
            }
            QCOMPARE(best, row["bid"]["price"].get<std::int64_t>());
            QVERIFY2(itself, o.record.c_str());
        }
    }

    void aWindowJoinRowListsBothSides()
    {
        // q8 (left_semi): a new seller's row is made of the person and the auctions of theirs
        // in the same window; as pairs, each pair of exactly its person and its auction.
        for (const bool pairs : {false, true}) {
            TempDir dir;
            auto t = runNexmark("q8", 20000, dir, [pairs](json &j) {
                if (!pairs)
                    return;
                setParam(j, "new_sellers", "output", "pairs");
                setParam(j, "project", "keep",
                         json::array({"left.person.id", "right.auction.id", "window_start"}));
            });
            QCOMPARE(t.status, Job::Status::Finished);
            auto rows = lineage::explainOutputs(*t.job->lineage(), "window_start != null");
            QVERIFY(rows.error.empty());
            QVERIFY2(rows.outputs.size() >= 2, pairs ? "pairs" : "left_semi");
            for (const auto &o : rows.outputs) {
                const json row = json::parse(o.record);
                const json person = pairs ? row["left"]["person"]["id"] : row["person"]["id"];
                const auto start = row["window_start"].get<std::int64_t>();
                int persons = 0, auctions = 0;
                for (std::uint64_t id : o.inputs) {
                    const auto *in = inputOf(rows, id);
                    QVERIFY(in);
                    const json rec = json::parse(in->record);
                    if (rec["event_type"] == 0) {
                        ++persons;
                        QCOMPARE(rec["person"]["id"], person);
                    } else {
                        ++auctions;
                        QCOMPARE(rec["event_type"], json(1));
                        QCOMPARE(rec["auction"]["seller"], person);
                        if (pairs)
                            QCOMPARE(rec["auction"]["id"], row["right"]["auction"]["id"]);
                    }
                    const auto time = rec[rec["event_type"] == 0 ? "person" : "auction"]["dateTime"]
                                          .get<std::int64_t>();
                    QVERIFY(time >= start && time < start + 10000);
                    QVERIFY2(hasStep(*in, "new_sellers", "joined"), pathText(*in).c_str());
                }
                QCOMPARE(persons, 1);
                if (pairs)
                    QCOMPARE(auctions, 1);
                else
                    QVERIFY(auctions >= 1);
            }
        }
    }

    void aRecordAtANodeAndARowANodeMade()
    {
        // What a click on the window timeline asks: the records that reached `sessions` as
        // this JSON (a dot), and the rows it made for a pane (a bar).
        TempDir dir;
        auto t = runTraced("sessions-late-data", dir);
        QCOMPARE(t.status, Job::Status::Finished);
        const auto &store = *t.job->lineage();
        auto all = lineage::explainAll(store);
        QVERIFY(!all.inputs.empty());
        const json first = json::parse(all.inputs[0].record);
        auto dot = lineage::explainReached(store, "sessions", first.dump());
        QVERIFY2(dot.error.empty(), dot.error.c_str());
        QCOMPARE(dot.inputs.size(), std::size_t{1});
        QCOMPARE(dot.inputs[0].id, all.inputs[0].id);
        QVERIFY(lineage::explainReached(store, "nowhere", first.dump()).inputs.empty());
        auto rows = lineage::explainOutputs(store, "emit != null");
        QVERIFY(!rows.outputs.empty());
        const json row = json::parse(rows.outputs[0].record);
        const json pane = {{"window_start", row["window_start"]},
                           {"window_end", row["window_end"]},
                           {"user", row["user"]}};
        auto bar = lineage::explainMade(store, "sessions", pane.dump());
        QVERIFY(!bar.outputs.empty());
        QCOMPARE(bar.outputs[0].madeAt, std::string("sessions"));
        QCOMPARE(bar.outputs[0].inputs, rows.outputs[0].inputs);
        // An expression works too.
        auto byExpr = lineage::explainMade(store, "sessions", "user == " + row["user"].dump());
        QVERIFY(byExpr.outputs.size() >= bar.outputs.size());
        QVERIFY(!lineage::explainMade(store, "sessions", "user ==").error.empty());
    }

    void theBudgetForgetsTheOldestAndSaysSo()
    {
        TempDir dir;
        lineage::Options o;
        o.maxRecords = 50;
        auto t = runTraced("payments-dedup", dir, o);
        QCOMPARE(t.status, Job::Status::Finished);
        auto all = lineage::explainAll(*t.job->lineage());
        QVERIFY(all.inputs.size() <= 50);
        QVERIFY(all.forgotten >= 345 - 50);
        QVERIFY(all.budgetNote.find("no longer traceable") != std::string::npos);
        // Since when, in words and as a time (a live run's views say it).
        QVERIFY2(all.budgetNote.find("traced from ") == 0, all.budgetNote.c_str());
        QVERIFY2(all.budgetNote.find(std::to_string(all.forgotten) + " older input records evicted")
                     != std::string::npos,
                 all.budgetNote.c_str());
        QVERIFY(all.tracedFromMs > 1700000000000);
        // The newest records are the ones kept.
        QVERIFY(!all.inputs.empty());
        QCOMPARE(all.inputs.back().seq, std::int64_t{345});
    }

    void aLiveRunKeepsTheNewestAndSaysSinceWhen()
    {
        // An unbounded run (sliding-average's generator with count 0, flat out), read between
        // two runFor() calls as the designer does: oldest-first eviction under the budget, the
        // newest records traceable, and the note says since when and how many went.
        TempDir dir;
        json j = json::parse(
            testing::readFile(TIDELINE_SOURCE_DIR "/pipelines/sliding-average/pipeline.json"));
        setParam(j, "readings", "count", 0);
        j["nodes"][0]["params"].erase("rate_per_s");
        auto loaded = loadSpec(j.dump());
        QVERIFY(loaded.ok());
        JobOptions jo;
        jo.baseDir = dir.path.string();
        jo.lineage.enabled = true;
        jo.lineage.maxRecords = 300;
        std::string error;
        auto job = Job::create(*loaded.spec, jo, error);
        QVERIFY2(job, error.c_str());
        std::int64_t lastFrom = 0;
        std::int64_t lastSeq = 0;
        for (int round = 1; round <= 4; ++round) {
            QCOMPARE(job->runFor(500), Job::Status::Running);
            auto all = lineage::explainAll(*job->lineage());
            QVERIFY(all.inputs.size() <= 300);
            QVERIFY(all.inputs.size() >= 250);
            QCOMPARE(all.inputs.back().seq, std::int64_t{500} * round); // the newest kept
            QVERIFY(all.inputs.front().seq > lastSeq);                  // the oldest went
            lastSeq = all.inputs.front().seq;
            QCOMPARE(all.forgotten, static_cast<std::uint64_t>(500 * round) - all.inputs.size());
            QVERIFY(all.tracedFromMs >= lastFrom);
            lastFrom = all.tracedFromMs;
            QVERIFY2(all.budgetNote.find("traced from ") == 0, all.budgetNote.c_str());
            // A window row whose records went lists the ones still kept only.
            for (const auto &o : all.outputs)
                for (std::uint64_t id : o.inputs)
                    QVERIFY(id >= all.inputs.front().id || !inputOf(all, id));
        }
    }

    void textAndJsonSayTheSame()
    {
        TempDir dir;
        auto t = runTraced("ad-impressions-clicks", dir);
        auto e = lineage::explainInputs(*t.job->lineage(), "click_id == \"clk-0084\"");
        std::ostringstream text, js;
        lineage::printText(e, text);
        lineage::printJson(e, js);
        QVERIFY2(text.str().find("clicked") != std::string::npos, text.str().c_str());
        QVERIFY2(text.str().find("no partner") != std::string::npos, text.str().c_str());
        const json j = json::parse(js.str());
        QCOMPARE(j["inputs"].size(), std::size_t{1});
        QCOMPARE(j["inputs"][0]["record"]["click_id"], json("clk-0084"));
        bool unmatched = false;
        for (const auto &s : j["inputs"][0]["path"])
            unmatched = unmatched || (s["node"] == "clicked" && s["kind"] == "join_unmatched");
        QVERIFY(unmatched);
        auto bad = lineage::explainInputs(*t.job->lineage(), "click_id ==");
        QVERIFY(!bad.error.empty());
        bad = lineage::explainInputs(*t.job->lineage(), "imp-9999"); // a number, not a condition
        QVERIFY(!bad.error.empty());
    }
};

QTEST_GUILESS_MAIN(TestLineage)
#include "test_lineage.moc"
