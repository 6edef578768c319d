// engine.checkpoint: the checkpoint module in-process (fast, deterministic with ManualClock).
// A "crash" here is dropping a Job mid-run without letting it finish (no final checkpoint, no
// sink flush); the real-process SIGKILL and crash-point tests are in test_checkpoint_crash.cpp.

#include "../support/test_support.hpp"
#include "checkpoint/checksum.hpp"
#include "checkpoint/coordinator.hpp"
#include "checkpoint/files.hpp"
#include "checkpoint/manifest.hpp"
#include "checkpoint/state_db.hpp"
#include "pipeline_fixture.hpp"
#include "table_dump.hpp"
// After the engine headers: it includes QtTest, whose `emit` macro they must not see.
#include "checkpoint_harness.hpp"

#include <tideline/engine/job.hpp>
#include <tideline/engine/spec.hpp>

#include <QtTest/QtTest>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <thread>

using namespace tideline;
using namespace tideline::cptest;
namespace fs = std::filesystem;

class TestCheckpoint : public QObject
{
    Q_OBJECT

    Outputs m_ref;

private slots:
    void initTestCase()
    {
        // Periodic checkpoints on the loop thread: with a ManualClock that makes their timing
        // deterministic. (The crash test runs the default writer thread in real processes.)
        qputenv("TIDELINE_CHECKPOINT_SYNC", "1");
        m_ref = reference(20000);
    }

    void crc32cKnownVector()
    {
        // The standard check value of CRC-32C.
        QCOMPARE(checkpoint::crc32c("123456789"), 0xE3069283u);
        QCOMPARE(checkpoint::crc32c(""), 0u);
        std::string big(1 << 20, 'x');
        std::uint32_t whole = checkpoint::crc32c(big);
        std::uint32_t parts
            = checkpoint::crc32c(std::string_view(big).substr(1000),
                                 checkpoint::crc32c(std::string_view(big).substr(0, 1000)));
        QCOMPARE(parts, whole);
    }

    void crc32cImplementationsAgree()
    {
        // Each way this CPU has (table, CRC instruction lanes, carry-less folding) against a
        // bit-at-a-time CRC-32C written here, over every length across the folding's 256-byte
        // step and 16-byte tail, at unaligned starts and with a CRC carried in.
        const auto bitwise = [](std::string_view s, std::uint32_t crc) {
            std::uint32_t c = ~crc;
            for (unsigned char b : s) {
                c ^= b;
                for (int k = 0; k < 8; ++k)
                    c = (c & 1) ? (c >> 1) ^ 0x82f63b78u : c >> 1;
            }
            return ~c;
        };
        std::string bytes(70000, '\0');
        std::uint32_t seed = 12345;
        for (char &b : bytes) {
            seed = seed * 1103515245u + 12345u;
            b = static_cast<char>(seed >> 23);
        }
        std::vector<std::size_t> lengths;
        for (std::size_t n = 0; n <= 1100; ++n)
            lengths.push_back(n);
        for (std::size_t n : {3071u, 3072u, 3073u, 4096u, 15403u, 65536u + 17u})
            lengths.push_back(n);
        const auto impls = checkpoint::crc32cImplementations();
        QVERIFY(!impls.empty());
        for (checkpoint::CrcImpl impl : impls) {
            QCOMPARE(checkpoint::crc32cUsing(impl, "123456789"), 0xE3069283u);
            for (std::size_t n : lengths)
                for (std::size_t at : {0u, 1u, 7u, 63u}) {
                    const std::string_view s = std::string_view(bytes).substr(at, n);
                    const std::uint32_t carried = static_cast<std::uint32_t>(n * 2654435761u);
                    if (checkpoint::crc32cUsing(impl, s, carried) != bitwise(s, carried))
                        QFAIL(qPrintable(QStringLiteral("implementation %1, %2 bytes at %3")
                                             .arg(static_cast<int>(impl))
                                             .arg(n)
                                             .arg(at)));
                }
        }
    }

    void failureCauses()
    {
        QCOMPARE(checkpoint::causeFromErrno(ENOSPC), std::string("disk full"));
        QCOMPARE(checkpoint::causeFromErrno(EACCES), std::string("permission denied"));
        QCOMPARE(checkpoint::causeFromMessage(
                     "IO error: While appending to file: x: No space left on device"),
                 std::string("disk full"));
        QCOMPARE(checkpoint::causeFromMessage(
                     "IO error: While open a file for appending: /x/000001.log: Permission denied"),
                 std::string("permission denied"));
    }

    void manifestRoundTrip()
    {
        checkpoint::Manifest m;
        m.id = 7;
        m.pipeline = "p";
        m.createdMs = 123;
        m.stateDir = "chk-000007";
        m.recordsRead = 99;
        checkpoint::NodeEntry e;
        e.id = "w";
        e.kind = "window";
        e.fingerprint = "window/1;type=tumbling;\"quoted\"";
        e.bytes = 10;
        e.crc = 0xdeadbeef;
        e.chunks = 1;
        e.outW = kMinTime;
        e.combinedIn = kMaxTime;
        m.nodes.push_back(e);
        std::string text = checkpoint::writeManifest(m);
        checkpoint::Manifest back;
        std::string err;
        QVERIFY2(checkpoint::parseManifest(text, back, err), err.c_str());
        QCOMPARE(back.id, 7);
        QCOMPARE(back.nodes.size(), std::size_t(1));
        QCOMPARE(back.nodes[0].fingerprint, e.fingerprint);
        QCOMPARE(back.nodes[0].crc, 0xdeadbeefu);
        QCOMPARE(back.nodes[0].outW, kMinTime);
        QCOMPARE(back.nodes[0].combinedIn, kMaxTime);
        QVERIFY(!checkpoint::parseManifest(text.substr(0, text.size() / 2), back, err));
        QVERIFY(err.find("not valid JSON") != std::string::npos);
    }

    void manifestNumbersBeyondTheirFieldAreRejected()
    {
        // Found by fuzzing (issue 15): an unsealed (format 1) manifest whose numbers do not fit
        // their field was read as silently wrong values (a float beyond int64 converted with
        // undefined behaviour, a negative size wrapped). Each is now an error naming the field.
        checkpoint::Manifest m;
        m.id = 3;
        m.stateDir = "chk-000003";
        checkpoint::NodeEntry e;
        e.id = "w";
        e.kind = "window";
        e.fingerprint = "window/x";
        m.nodes.push_back(e);
        Json base = Json::parse(checkpoint::writeManifest(m));
        base.erase("crc32c"); // the seal: format 1 had none
        base["format"] = checkpoint::kManifestFormatUnsealed;
        checkpoint::Manifest back;
        std::string err;
        QVERIFY2(checkpoint::parseManifest(base.dump(), back, err), err.c_str());
        const std::vector<std::pair<std::string, Json>> bad
            = {{"combined_in", -9223374073709551616.0}, {"out_w", 1.5},        {"bytes", -1},
               {"crc32c", std::int64_t{1} << 33},       {"records_in", 1e300}, {"chunks", "1"}};
        for (const auto &[field, value] : bad) {
            Json j = base;
            j["nodes"][0][field] = value;
            QVERIFY2(!checkpoint::parseManifest(j.dump(), back, err), field.c_str());
            QVERIFY2(err.find("`" + field + "` is not an integer in range") != std::string::npos,
                     err.c_str());
        }
        Json j = base;
        j["id"] = 18446744073709551615u;
        QVERIFY(!checkpoint::parseManifest(j.dump(), back, err));
        QVERIFY2(err.find("`id` is not an integer in range") != std::string::npos, err.c_str());
    }

    void stateDbRoundTripAndChunks()
    {
        tideline::testing::TempDir tmp;
        std::string dir = tmp.file("db");
        std::string big(checkpoint::kChunkBytes * 2 + 17, '\0');
        for (std::size_t i = 0; i < big.size(); ++i)
            big[i] = static_cast<char>(i * 131 + 7);
        std::vector<checkpoint::NodeBlob> blobs{{"a", "hello"}, {"b", ""}, {"c", big}};
        auto r = checkpoint::writeStateDb(dir, blobs);
        QVERIFY2(r.error.empty(), r.error.c_str());
        QCOMPARE(r.chunks, std::uint64_t(1 + 0 + 3));
        std::map<std::string, std::string> out;
        std::string err;
        QVERIFY2(checkpoint::readStateDb(dir, {{"a", 5, 1}, {"b", 0, 0}, {"c", big.size(), 3}}, out,
                                         err),
                 err.c_str());
        QCOMPARE(out["a"], std::string("hello"));
        QVERIFY(out["c"] == big);
        // A size the manifest disagrees with is reported.
        QVERIFY(!checkpoint::readStateDb(dir, {{"a", 6, 1}}, out, err));
        QVERIFY(err.find("truncated") != std::string::npos);
        // The target must not exist already (a checkpoint is never written over another).
        auto again = checkpoint::writeStateDb(dir, blobs);
        QVERIFY(!again.error.empty());
    }

    void uninterruptedRunWithCheckpointsMatchesReference()
    {
        Harness h;
        FixtureOptions fo;
        fo.intervalMs = 50;
        std::string error;
        auto job = h.make(fixturePipeline(fo), error);
        QVERIFY2(job, error.c_str());
        h.advance(*job, 30000);
        QCOMPARE(job->run(), Job::Status::Finished);
        auto snap = job->snapshot();
        QVERIFY(snap.lastCheckpoint.has_value());
        QCOMPARE(snap.lastCheckpoint->status, std::string("completed"));
        QVERIFY(snap.lastCheckpoint->bytes > 0);
        QVERIFY(snap.checkpointHistory.size() >= 3);
        for (const auto &c : snap.checkpointHistory) {
            QCOMPARE(c.status, std::string("completed"));
            QCOMPARE(c.kind, std::string("checkpoint"));
        }
        job.reset();
        compareOutputs(collect(h.dir()), m_ref);
        // Retention: `keep` (3) complete checkpoints remain, no partial folders.
        auto ids = completeIds(h.ckdir());
        QCOMPARE(ids.size(), std::size_t(3));
        for (auto &e : fs::directory_iterator(h.ckdir())) {
            std::string n = e.path().filename().string();
            if (n.rfind("chk-", 0) == 0)
                QVERIFY2(std::find(ids.begin(), ids.end(), std::stoll(n.substr(4))) != ids.end(),
                         n.c_str());
        }
    }

    void droppedJobResumesExactly_data()
    {
        QTest::addColumn<int>("stopAfter");
        QTest::newRow("early") << 2500;
        QTest::newRow("middle") << 9000;
        QTest::newRow("late") << 17500;
    }
    void droppedJobResumesExactly()
    {
        QFETCH(int, stopAfter);
        Harness h;
        FixtureOptions fo;
        fo.intervalMs = 50;
        std::string error;
        {
            auto job = h.make(fixturePipeline(fo), error);
            QVERIFY2(job, error.c_str());
            h.advance(*job, stopAfter);
            QVERIFY(!completeIds(h.ckdir()).empty());
            // Dropped without finishing: buffered sink output and post-checkpoint work are lost.
        }
        auto job = h.make(fixturePipeline(fo), error);
        QVERIFY2(job, error.c_str());
        QVERIFY2(h.logged("restoring from checkpoint"), h.allLogs().c_str());
        QCOMPARE(job->run(), Job::Status::Finished);
        job.reset();
        compareOutputs(collect(h.dir()), m_ref);
    }

    // settings.state "rocksdb" with a 2 KB budget: the window's cold keys live in the spill
    // store, checkpoints carry them (read through a RocksDB snapshot after the cut), and a
    // dropped job resumes with exactly the reference output.
    void spilledStateResumesExactly()
    {
        Harness h;
        FixtureOptions fo;
        fo.intervalMs = 50;
        fo.stateMemoryMb = 0.002;
        std::string error;
        {
            auto job = h.make(fixturePipeline(fo), error);
            QVERIFY2(job, error.c_str());
            QVERIFY2(h.logged("spill colder keys to RocksDB"), h.allLogs().c_str());
            QVERIFY(fs::is_directory(h.ckdir() + "/work/win"));
            // In slices of 100 records, watching the keys on disk (the metric) as it goes.
            std::int64_t peakSpilled = 0;
            for (int slice = 0; slice < 90; ++slice) {
                h.advance(*job, 100, 100, 3);
                job->publishMetrics();
                peakSpilled = std::max(peakSpilled, job->snapshot().node("win")->stateSpilled);
            }
            QVERIFY(!completeIds(h.ckdir()).empty());
            QVERIFY2(peakSpilled > 0, "nothing was spilled");
        }
        auto job = h.make(fixturePipeline(fo), error);
        QVERIFY2(job, error.c_str());
        QVERIFY2(h.logged("restoring from checkpoint"), h.allLogs().c_str());
        QCOMPARE(job->run(), Job::Status::Finished);
        QVERIFY2(h.logged("state entries on disk"), h.allLogs().c_str());
        job.reset();
        QVERIFY(!fs::exists(h.ckdir() + "/work/win"));
        compareOutputs(collect(h.dir()), m_ref);
    }

    void corruptNewestFallsBackToPrevious_data()
    {
        QTest::addColumn<QString>("damage");
        QTest::newRow("delete manifest") << "manifest";
        QTest::newRow("truncate state file") << "sst";
        QTest::newRow("flip a state byte") << "crc";
        QTest::newRow("garbage manifest") << "garbage";
    }
    void corruptNewestFallsBackToPrevious()
    {
        QFETCH(QString, damage);
        Harness h;
        FixtureOptions fo;
        fo.intervalMs = 50;
        std::string error;
        {
            auto job = h.make(fixturePipeline(fo), error);
            QVERIFY2(job, error.c_str());
            h.advance(*job, 9000);
        }
        auto ids = completeIds(h.ckdir());
        QVERIFY(ids.size() >= 2);
        std::int64_t newest = ids.back(), previous = ids[ids.size() - 2];
        std::string manifest = h.ckdir() + "/" + checkpoint::checkpointManifestName(newest);
        std::string stateDir = h.ckdir() + "/" + checkpoint::checkpointStateDirName(newest);
        std::string expectWhy;
        if (damage == "manifest") {
            fs::remove(manifest);
            expectWhy = "incomplete (no manifest";
        } else if (damage == "garbage") {
            tideline::testing::writeFile(manifest,
                                         "{\"format\": \"tideline-checkpoint/1\", \"id\": ");
            expectWhy = "not valid JSON";
        } else if (damage == "sst") {
            bool cut = false;
            for (auto &e : fs::directory_iterator(stateDir))
                if (e.path().extension() == ".sst") {
                    fs::resize_file(e.path(), fs::file_size(e.path()) / 2);
                    cut = true;
                }
            QVERIFY(cut);
            expectWhy = "unusable";
        } else {
            // Rewrite the manifest with a wrong CRC for one node: the state no longer matches.
            std::string text = tideline::testing::readFile(manifest);
            checkpoint::Manifest m;
            std::string err;
            QVERIFY(checkpoint::parseManifest(text, m, err));
            for (auto &n : m.nodes)
                if (n.id == "dd")
                    n.crc ^= 1;
            tideline::testing::writeFile(manifest, checkpoint::writeManifest(m));
            expectWhy = "fails its checksum";
        }
        auto job = h.make(fixturePipeline(fo), error);
        QVERIFY2(job, error.c_str());
        QVERIFY2(h.logged(expectWhy), h.allLogs().c_str());
        QVERIFY2(h.logged("restoring from checkpoint " + std::to_string(previous)),
                 h.allLogs().c_str());
        QCOMPARE(job->run(), Job::Status::Finished);
        job.reset();
        compareOutputs(collect(h.dir()), m_ref);
    }

    void noUsableCheckpointFailsAndSuggestsFresh()
    {
        Harness h;
        FixtureOptions fo;
        fo.intervalMs = 50;
        std::string error;
        {
            auto job = h.make(fixturePipeline(fo), error);
            QVERIFY2(job, error.c_str());
            h.advance(*job, 6000);
        }
        for (auto id : completeIds(h.ckdir()))
            tideline::testing::writeFile(h.ckdir() + "/" + checkpoint::checkpointManifestName(id),
                                         "garbage");
        auto job = h.make(fixturePipeline(fo), error);
        QVERIFY(!job);
        QVERIFY2(error.find("--fresh") != std::string::npos, error.c_str());
        QVERIFY2(error.find("none of the") != std::string::npos, error.c_str());
        // --fresh discards them and runs from the beginning.
        JobOptions fresh;
        fresh.fresh = true;
        job = h.make(fixturePipeline(fo), error, fresh);
        QVERIFY2(job, error.c_str());
        QVERIFY(h.logged("--fresh: discarding"));
        QCOMPARE(job->run(), Job::Status::Finished);
        job.reset();
        compareOutputs(collect(h.dir()), m_ref);
    }

    void onlyIncompleteCheckpointStartsOverAndSaysSo()
    {
        Harness h;
        FixtureOptions fo;
        fo.intervalMs = 50;
        fs::create_directories(h.ckdir() + "/chk-000001");
        std::string error;
        auto job = h.make(fixturePipeline(fo), error);
        QVERIFY2(job, error.c_str());
        QVERIFY2(h.logged("incomplete"), h.allLogs().c_str());
        QVERIFY2(h.logged("starting from the beginning"), h.allLogs().c_str());
        QCOMPARE(job->run(), Job::Status::Finished);
        job.reset();
        compareOutputs(collect(h.dir()), m_ref);
        QVERIFY(!fs::exists(h.ckdir() + "/chk-000001")); // cleaned up as abandoned
    }

    void failedCheckpointIsReportedWithCause()
    {
        Harness h;
        FixtureOptions fo;
        fo.intervalMs = 50;
        std::string error;
        auto job = h.make(fixturePipeline(fo), error);
        QVERIFY2(job, error.c_str());
        // A file where the next checkpoint's folder goes: mkdir fails (as a full or read-only
        // disk would); the job keeps running and reports the failure.
        tideline::testing::writeFile(h.ckdir() + "/chk-000001", "in the way");
        h.advance(*job, 6000);
        auto snap = job->snapshot();
        QVERIFY(!snap.checkpointHistory.empty());
        const auto &first = snap.checkpointHistory.front();
        QCOMPARE(first.status, std::string("failed"));
        QCOMPARE(first.failureCause, std::string("already exists"));
        QVERIFY2(h.logged("checkpoint 1 failed: already exists"), h.allLogs().c_str());
        QCOMPARE(job->run(), Job::Status::Finished);
        QCOMPARE(job->snapshot().lastCheckpoint->status, std::string("completed"));
    }

    void savepointIntoEditedGraph()
    {
        Harness h;
        FixtureOptions fo; // no periodic checkpoints: savepoints only
        std::string error;
        std::string sp = h.dir() + "/sp1";
        {
            auto job = h.make(fixturePipeline(fo), error);
            QVERIFY2(job, error.c_str());
            job->runFor(8000);
            // Requested from another thread, taken by the loop at its next tick.
            std::atomic<int> outcome{0};
            std::string message;
            std::thread t([&] {
                job->requestSavepoint(sp, [&](bool ok, const std::string &msg) {
                    message = msg;
                    outcome = ok ? 1 : 2;
                });
            });
            t.join();
            h.clock.advance(5);
            job->runFor(1);
            QCOMPARE(outcome.load(), 1);
            QVERIFY(fs::exists(sp + "/manifest.json"));
            QVERIFY(job->snapshot().lastCheckpoint.has_value());
            QCOMPARE(job->snapshot().lastCheckpoint->kind, std::string("savepoint"));
        }
        // Same graph: exact continuation.
        {
            Harness h2;
            fs::copy(sp, h2.dir() + "/sp1", fs::copy_options::recursive);
            fs::copy(h.dir() + "/out", h2.dir() + "/out", fs::copy_options::recursive);
            JobOptions o;
            o.restoreFrom = h2.dir() + "/sp1";
            auto job = h2.make(fixturePipeline(fo), error, o);
            QVERIFY2(job, error.c_str());
            QVERIFY2(h2.logged("node `win`: restored"), h2.allLogs().c_str());
            QCOMPARE(job->run(), Job::Status::Finished);
            job.reset();
            compareOutputs(collect(h2.dir()), m_ref);
        }
        // Edited graph: window size changed, a node added.
        FixtureOptions edited = fo;
        edited.windowSizeMs = 5000;
        edited.extraNode = true;
        JobOptions o;
        o.restoreFrom = sp;
        auto job = h.make(fixturePipeline(edited), error, o);
        QVERIFY(!job);
        QVERIFY2(error.find("--reset-state win") != std::string::npos, error.c_str());
        QVERIFY2(h.logged("node `win`: incompatible"), h.allLogs().c_str());
        QVERIFY2(h.logged("node `tag`: new"), h.allLogs().c_str());
        QVERIFY2(h.logged("node `dd`: restored"), h.allLogs().c_str());
        h.logs.clear();
        o.resetState = {"win"};
        job = h.make(fixturePipeline(edited), error, o);
        QVERIFY2(job, error.c_str());
        QVERIFY2(h.logged("node `win`: incompatible")
                     && h.logged("state discarded (--reset-state)"),
                 h.allLogs().c_str());
        QCOMPARE(job->run(), Job::Status::Finished);
        job.reset();
        // Restored nodes continued: dedup output equals the reference exactly.
        auto got = collect(h.dir());
        QVERIFY(got.files["out/dedup.jsonl"] == m_ref.files.at("out/dedup.jsonl"));
        // The new node saw only what came after the savepoint.
        auto tagged = tideline::testing::readLines(h.dir() + "/out/tag.jsonl");
        QVERIFY(!tagged.empty());
        QVERIFY(tagged.size() < m_ref.files.at("out/dedup.jsonl").size());
    }

    void resetStateOfUnknownNodeIsAnError()
    {
        Harness h;
        FixtureOptions fo;
        fo.intervalMs = 50;
        JobOptions o;
        o.resetState = {"nope"};
        std::string error;
        auto job = h.make(fixturePipeline(fo), error, o);
        QVERIFY(!job);
        QVERIFY2(error.find("no node `nope`") != std::string::npos, error.c_str());
    }

    void finishedRunLeavesFinalCheckpoint()
    {
        Harness h;
        FixtureOptions fo;
        fo.intervalMs = 100000; // only the final one
        std::string error;
        {
            auto job = h.make(fixturePipeline(fo), error);
            QVERIFY2(job, error.c_str());
            QCOMPARE(job->run(), Job::Status::Finished);
        }
        QCOMPARE(completeIds(h.ckdir()).size(), std::size_t(1));
        // Running again resumes from it: nothing replayed, output unchanged.
        auto job = h.make(fixturePipeline(fo), error);
        QVERIFY2(job, error.c_str());
        QVERIFY2(h.logged("nothing is left to replay"), h.allLogs().c_str());
        QCOMPARE(job->run(), Job::Status::Finished);
        job.reset();
        compareOutputs(collect(h.dir()), m_ref);
    }
};

QTEST_GUILESS_MAIN(TestCheckpoint)
#include "test_checkpoint.moc"
