// Issue 23 item 11 (label `slow`): a reader follows a checkpointed sink.file like `tail -f`
// while tideline-run is killed with SIGKILL at random points and restarted until it finishes.
// What the reader saw must never be cut or rewritten: the file never shrinks, everything read
// is a prefix of the final file, and the final file is byte-identical to an uninterrupted
// run's. Before the fix the sink wrote 1 MiB blocks before the checkpoint committed them, and a
// restore cut them off again.

#include "checkpoint_edit.hpp"
#include "cli_process.hpp"

#include <QRandomGenerator>
#include <QtTest>

#include <atomic>
#include <fcntl.h>
#include <mutex>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace tideline;
using tideline::recoverytest::completeIds;
namespace fs = std::filesystem;

namespace {

std::string pipelineJson(bool checkpoints)
{
    return std::string(R"({"format":"tideline/1","name":"follow",)")
           + (checkpoints ? R"("settings":{"checkpoint":{"interval_ms":400,"dir":"checkpoints"}},)"
                          : "")
           + R"("nodes":[
      {"id":"g","kind":"source.generator","params":{"count":400000,"keys":1000,"seed":5,
        "pace":{"records_per_s":60000}}},
      {"id":"out","kind":"sink.file","params":{"path":"out/events.jsonl"}}],
      "edges":[{"from":"g.out","to":"out.in"}]})";
}

/// Follows a file as `tail -f` does: remembers every byte it read and notices when the file
/// became shorter than what it had read.
class Follower
{
public:
    explicit Follower(std::string path)
        : m_path(std::move(path))
        , m_thread([this] { loop(); })
    {
    }
    ~Follower() { stop(); }
    void stop()
    {
        m_stop = true;
        if (m_thread.joinable())
            m_thread.join();
    }
    void pollOnce()
    {
        int fd = ::open(m_path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            return;
        struct stat st
        {
        };
        ::fstat(fd, &st);
        std::lock_guard lock(m_mutex);
        if (static_cast<std::size_t>(st.st_size) < m_seen.size()) {
            ++m_shrinks;
            m_lostBytes = std::max<std::size_t>(m_lostBytes, m_seen.size() - st.st_size);
            // What was read and then cut may come back different: compare from the new end.
            std::string again(static_cast<std::size_t>(st.st_size), '\0');
            (void)!::pread(fd, again.data(), again.size(), 0);
            if (m_seen.compare(0, again.size(), again) != 0)
                ++m_rewrites;
            m_seen = std::move(again);
        }
        char buf[1 << 16];
        while (true) {
            ssize_t n = ::pread(fd, buf, sizeof buf, static_cast<off_t>(m_seen.size()));
            if (n <= 0)
                break;
            m_seen.append(buf, static_cast<std::size_t>(n));
        }
        ::close(fd);
    }
    int shrinks() const
    {
        std::lock_guard lock(m_mutex);
        return m_shrinks;
    }
    int rewrites() const
    {
        std::lock_guard lock(m_mutex);
        return m_rewrites;
    }
    std::size_t lostBytes() const
    {
        std::lock_guard lock(m_mutex);
        return m_lostBytes;
    }
    std::string seen() const
    {
        std::lock_guard lock(m_mutex);
        return m_seen;
    }

private:
    void loop()
    {
        while (!m_stop) {
            pollOnce();
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
        }
    }
    std::string m_path;
    mutable std::mutex m_mutex;
    std::string m_seen;
    int m_shrinks = 0, m_rewrites = 0;
    std::size_t m_lostBytes = 0;
    std::atomic<bool> m_stop{false};
    std::thread m_thread;
};

using Proc = tideline::testing::KilledOrFinished;

Proc runAndMaybeKill(const std::string &dir, int killAfterMs)
{
    return tideline::testing::runOrKill(
        TIDELINE_RUN_EXE, {QString::fromStdString(dir + "/pipeline.json")}, dir, killAfterMs);
}

} // namespace

class TestFileSinkCommit : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void followerNeverSeesRowsCutOrRewritten()
    {
        std::string reference;
        {
            tideline::testing::TempDir ref;
            tideline::testing::writeFile(ref.file("pipeline.json"), pipelineJson(false));
            Proc r = runAndMaybeKill(ref.path.string(), 0);
            QVERIFY2(r.finished && r.exitCode == 0, qPrintable(r.err));
            reference = tideline::testing::readFile(ref.file("out/events.jsonl"));
            QVERIFY(reference.size() > 20u << 20);
        }

        const quint32 seed = QRandomGenerator::global()->generate();
        QRandomGenerator rng(seed);
        qInfo("kill delays seed %u", seed);
        tideline::testing::TempDir w;
        const std::string dir = w.path.string();
        tideline::testing::writeFile(dir + "/pipeline.json", pipelineJson(true));
        Follower follower(dir + "/out/events.jsonl");
        int kills = 0, afterCheckpoint = 0;
        while (kills < 10) {
            Proc r = runAndMaybeKill(dir, rng.bounded(600, 1600));
            if (r.finished) {
                QVERIFY2(r.exitCode == 0, qPrintable(r.err));
                break;
            }
            ++kills;
            afterCheckpoint += !completeIds(dir + "/checkpoints").empty();
        }
        Proc last = runAndMaybeKill(dir, 0);
        QVERIFY2(last.finished && last.exitCode == 0, qPrintable(last.err));
        follower.pollOnce();
        follower.stop();
        follower.pollOnce();
        qInfo("%d kills (%d after a complete checkpoint); the follower read %zu bytes", kills,
              afterCheckpoint, follower.seen().size());
        QVERIFY2(kills >= 5 && afterCheckpoint >= 3, "too few kills landed mid-run");
        QVERIFY2(follower.rewrites() == 0, "bytes the reader had read were rewritten");
        QVERIFY2(follower.shrinks() == 0,
                 qPrintable(QString("the file shrank %1 time(s) under the reader (up to %2 bytes "
                                    "it had read were cut)")
                                .arg(follower.shrinks())
                                .arg(follower.lostBytes())));
        const std::string final = tideline::testing::readFile(dir + "/out/events.jsonl");
        QVERIFY2(final == reference, "the final file differs from an uninterrupted run's");
        QVERIFY(follower.seen() == final);
        for (auto &e : fs::directory_iterator(dir + "/out"))
            QVERIFY2(e.path().filename() == "events.jsonl", e.path().c_str());
    }
};

QTEST_GUILESS_MAIN(TestFileSinkCommit)
#include "test_file_sink_kill.moc"
