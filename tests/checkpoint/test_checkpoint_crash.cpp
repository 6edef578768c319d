// engine.checkpoint.crash (label `slow`): real tideline-run processes.
//
//  - kill -9 at 20 random points of a long paced run, restarting each time until the run
//    finishes; the final output must equal an uninterrupted run as a multiset (0 lost,
//    0 duplicated), in every file sink and in the upsert table. A trial in which no kill came
//    after the first complete checkpoint is inconclusive (Flink's StateCheckpointedITCase) and
//    is redone.
//  - TIDELINE_CRASH_AT at each step of the checkpoint protocol: the restarted run recovers
//    with the exact output.
//  - SIGTERM takes a final checkpoint (and a savepoint with --savepoint) and exits 0.
//  - A corrupted newest checkpoint: the restart says why and uses the previous one.

#include "../support/test_support.hpp"
#include "checkpoint/coordinator.hpp"
#include "fixture_outputs.hpp"
#include "pipeline_fixture.hpp"
#include "table_dump.hpp"

#include <QtCore/QFile>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QProcess>
#include <QtCore/QRandomGenerator>
#include <QtCore/QThread>
#include <QtTest/QtTest>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace tideline;
using namespace tideline::cptest;
namespace fs = std::filesystem;

namespace {

const QString kRunner = QStringLiteral(TIDELINE_BINARY_DIR "/app/runner/tideline-run");

/// "" when equal, else a description of what was lost / duplicated.
std::string diffOutputs(const Outputs &got, const Outputs &want)
{
    std::string report;
    for (const auto &[file, lines] : want.files) {
        const auto &g = got.files.at(file);
        std::vector<std::string> lost, extra;
        std::set_difference(lines.begin(), lines.end(), g.begin(), g.end(),
                            std::back_inserter(lost));
        std::set_difference(g.begin(), g.end(), lines.begin(), lines.end(),
                            std::back_inserter(extra));
        if (!lost.empty() || !extra.empty())
            report += file + ": " + std::to_string(lost.size()) + " lost, "
                      + std::to_string(extra.size()) + " duplicated/extra of "
                      + std::to_string(lines.size()) + "\n";
    }
    if (got.table != want.table)
        report += "upsert table differs (" + std::to_string(got.table.size()) + " rows vs "
                  + std::to_string(want.table.size()) + ")\n";
    return report;
}

std::size_t totalLines(const Outputs &o)
{
    std::size_t n = 0;
    for (const auto &[f, l] : o.files)
        n += l.size();
    return n;
}

using tideline::testing::completeIds;

struct Run
{
    int exitCode = -1;
    bool crashed = false;
    bool finishedBeforeKill = false;
    QString err;
};

class Runner
{
public:
    explicit Runner(std::string dir)
        : m_dir(std::move(dir))
    {
    }

    QProcess *start(const QStringList &args, const QString &crashAt = {})
    {
        m_proc = std::make_unique<QProcess>();
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove("TIDELINE_CRASH_AT");
        if (!crashAt.isEmpty())
            env.insert("TIDELINE_CRASH_AT", crashAt);
        m_proc->setProcessEnvironment(env);
        m_proc->setWorkingDirectory(QString::fromStdString(m_dir));
        m_proc->start(kRunner,
                      args + QStringList{QString::fromStdString(m_dir + "/pipeline.json")});
        if (!m_proc->waitForStarted(10000))
            qFatal("cannot start %s", qPrintable(kRunner));
        return m_proc.get();
    }
    Run finish(int timeoutMs = 120000)
    {
        Run r;
        if (!m_proc->waitForFinished(timeoutMs))
            qFatal("tideline-run did not finish in %d ms", timeoutMs);
        r.crashed = m_proc->exitStatus() == QProcess::CrashExit;
        r.exitCode = m_proc->exitCode();
        r.err = QString::fromUtf8(m_proc->readAllStandardError());
        return r;
    }
    /// Runs with a SIGKILL after `delayMs` (unless it finishes first).
    Run runAndKill(int delayMs)
    {
        start({});
        Run r;
        if (m_proc->waitForFinished(delayMs)) {
            r = collectFinished();
            r.finishedBeforeKill = true;
            return r;
        }
        m_proc->kill(); // SIGKILL
        m_proc->waitForFinished(10000);
        r.crashed = true;
        r.err = QString::fromUtf8(m_proc->readAllStandardError());
        return r;
    }
    Run runToEnd(const QStringList &args = {}, const QString &crashAt = {})
    {
        start(args, crashAt);
        return finish();
    }

private:
    Run collectFinished()
    {
        Run r;
        r.crashed = m_proc->exitStatus() == QProcess::CrashExit;
        r.exitCode = m_proc->exitCode();
        r.err = QString::fromUtf8(m_proc->readAllStandardError());
        return r;
    }
    std::string m_dir;
    std::unique_ptr<QProcess> m_proc;
};

struct Workdir
{
    tideline::testing::TempDir tmp;
    std::string dir() const { return tmp.path.string(); }
    std::string ckdir() const { return dir() + "/checkpoints"; }
    void write(const FixtureOptions &o)
    {
        tideline::testing::writeFile(dir() + "/pipeline.json", fixturePipeline(o));
    }
};

} // namespace

class TestCheckpointCrash : public QObject
{
    Q_OBJECT

    Outputs m_ref;      ///< uninterrupted run of the long fixture
    Outputs m_refShort; ///< uninterrupted run of the short fixture
    static constexpr std::int64_t kLongCount = 60000;
    static constexpr std::int64_t kShortCount = 20000;

    Outputs referenceRun(std::int64_t count)
    {
        Workdir w;
        FixtureOptions o;
        o.count = count;
        o.intervalMs = 50;
        w.write(o);
        Runner r(w.dir());
        Run run = r.runToEnd();
        if (run.crashed || run.exitCode != 0)
            qFatal("reference run failed: %s", qPrintable(run.err));
        return collect(w.dir());
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(QFileInfo::exists(kRunner), qPrintable(kRunner + " is not built"));
        m_ref = referenceRun(kLongCount);
        m_refShort = referenceRun(kShortCount);
        QVERIFY(totalLines(m_ref) > 50000);
        qInfo("reference: %zu output lines, %zu upsert rows", totalLines(m_ref),
              m_ref.table.size());
    }

    void twentySigkillsLoseAndDuplicateNothing()
    {
        const quint32 seed = QRandomGenerator::global()->generate();
        QRandomGenerator rng(seed);
        qInfo("kill delays seed %u", seed);
        for (int trial = 1; trial <= 3; ++trial) {
            Workdir w;
            FixtureOptions o;
            o.count = kLongCount;
            o.recordsPerSecond = 8000; // ~7.5 s of processing: kills land mid-run
            o.intervalMs = 50;
            w.write(o);
            Runner r(w.dir());
            int kills = 0, afterCheckpoint = 0, restarts = 0;
            std::vector<std::int64_t> newestAtKill;
            while (kills < 20) {
                int delay = rng.bounded(60, 420);
                Run run = r.runAndKill(delay);
                ++restarts;
                if (run.finishedBeforeKill) {
                    QVERIFY2(!run.crashed && run.exitCode == 0, qPrintable(run.err));
                    break;
                }
                ++kills;
                auto ids = completeIds(w.ckdir());
                newestAtKill.push_back(ids.empty() ? 0 : ids.back());
                if (!ids.empty())
                    ++afterCheckpoint;
            }
            QVERIFY2(kills == 20,
                     qPrintable(QString("the run finished after only %1 kills").arg(kills)));
            Run last = r.runToEnd();
            QVERIFY2(!last.crashed && last.exitCode == 0, qPrintable(last.err));
            QVERIFY2(last.err.contains("restoring from checkpoint"), qPrintable(last.err));
            if (afterCheckpoint == 0) {
                qWarning(
                    "trial %d inconclusive: every kill came before the first checkpoint; redoing",
                    trial);
                continue;
            }
            QString ids;
            for (auto id : newestAtKill)
                ids += QString::number(id) + " ";
            qInfo("trial %d: %d kills (%d after a complete checkpoint), %d restarts; newest "
                  "checkpoint at each kill: %s",
                  trial, kills, afterCheckpoint, restarts + 1, qPrintable(ids));
            Outputs got = collect(w.dir());
            std::string diff = diffOutputs(got, m_ref);
            QVERIFY2(diff.empty(), diff.c_str());
            qInfo("final output equals the uninterrupted run: %zu lines, %zu upsert rows; 0 lost, "
                  "0 duplicated",
                  totalLines(got), got.table.size());
            return;
        }
        QFAIL("three trials in a row were inconclusive");
    }

    void crashPoints_data()
    {
        QTest::addColumn<QString>("point");
        for (const char *p : {"before_state_write", "after_state_write", "before_manifest",
                              "after_manifest", "during_sink_commit"})
            QTest::newRow(p) << QString(p);
    }
    void crashPoints()
    {
        QFETCH(QString, point);
        for (const QString &at : {point + ":1", point + ":3"}) {
            Workdir w;
            FixtureOptions o;
            o.count = kShortCount;
            o.recordsPerSecond = 10000;
            o.intervalMs = 50;
            w.write(o);
            Runner r(w.dir());
            Run crashed = r.runToEnd({}, at);
            QVERIFY2(crashed.crashed,
                     qPrintable("expected an abort at " + at + ": " + crashed.err));
            QVERIFY2(crashed.err.contains("TIDELINE_CRASH_AT=" + point), qPrintable(crashed.err));
            Run resumed = r.runToEnd();
            QVERIFY2(!resumed.crashed && resumed.exitCode == 0, qPrintable(resumed.err));
            bool firstCheckpointIncomplete
                = at.endsWith(":1")
                  && (point == "before_state_write" || point == "after_state_write"
                      || point == "before_manifest");
            if (firstCheckpointIncomplete)
                QVERIFY2(resumed.err.contains("starting from the beginning"),
                         qPrintable(resumed.err));
            else
                QVERIFY2(resumed.err.contains("restoring from checkpoint"),
                         qPrintable(resumed.err));
            std::string diff = diffOutputs(collect(w.dir()), m_refShort);
            QVERIFY2(diff.empty(), (at.toStdString() + ": " + diff).c_str());
        }
    }

    // The checkpoint folder stops accepting writes mid-run: checkpoints fail with the cause
    // in the metrics and the log, the run goes on, and once the fault is gone the next
    // checkpoint completes; the output is still exact.
    //  - "permission denied": chmod 0555 on the folder. root ignores file modes, so when the
    //    test runs as root the runner runs as `nobody` (setpriv) on a folder owned by nobody:
    //    the kernel then really refuses, with EACCES.
    //  - "disk full": a real ENOSPC without a small filesystem (mounting one needs privileges
    //    tests should not use): the next manifests' temp paths are symlinks to /dev/full, whose
    //    writes fail with ENOSPC. Only the manifest write fails; the state DB is written and
    //    then removed by the failure path.
    void checkpointFolderFaultFailsThenRecovers_data()
    {
        QTest::addColumn<QString>("fault");
        QTest::newRow("read-only folder") << "permission denied";
        QTest::newRow("disk full") << "disk full";
    }
    void checkpointFolderFaultFailsThenRecovers()
    {
        QFETCH(QString, fault);
        const bool readOnly = fault == "permission denied";
        Workdir w;
        FixtureOptions o;
        o.count = kShortCount;
        o.recordsPerSecond = 3000; // ~7 s: time to fail and recover while it runs
        o.intervalMs = 100;
        w.write(o);
        fs::create_directories(w.ckdir());
        fs::create_directories(w.dir() + "/out");
        QString program = kRunner;
        QStringList args{"--metrics", QString::fromStdString(w.dir() + "/metrics.jsonl"),
                         "--metrics-interval", "50",
                         QString::fromStdString(w.dir() + "/pipeline.json")};
        if (readOnly && ::geteuid() == 0) {
            if (!QFileInfo::exists("/usr/bin/setpriv"))
                QSKIP("running as root without setpriv: file modes cannot deny root");
            for (auto &e : fs::recursive_directory_iterator(w.dir()))
                QVERIFY(::chown(e.path().c_str(), 65534, 65534) == 0);
            QVERIFY(::chown(w.dir().c_str(), 65534, 65534) == 0);
            args = QStringList{"--reuid=65534", "--regid=65534", "--clear-groups", "--", kRunner}
                   + args;
            program = "/usr/bin/setpriv";
        }
        QProcess proc;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove("TIDELINE_CRASH_AT");
        proc.setProcessEnvironment(env);
        proc.setWorkingDirectory(QString::fromStdString(w.dir()));
        proc.start(program, args);
        QVERIFY(proc.waitForStarted(10000));

        // The "*" metrics lines: (id, status, failure cause, records read) of the last checkpoint.
        struct Seen
        {
            qint64 id = 0;
            QString status, cause;
            qint64 records = 0;
        };
        auto lastRunLine = [&]() {
            Seen s;
            QFile f(QString::fromStdString(w.dir() + "/metrics.jsonl"));
            if (!f.open(QIODevice::ReadOnly))
                return s;
            for (const QByteArray &line : f.readAll().split('\n')) {
                const QJsonObject j = QJsonDocument::fromJson(line).object();
                if (j.value("node").toString() != "*")
                    continue;
                s.records = j.value("records_read").toInteger();
                const QJsonObject c = j.value("checkpoint").toObject();
                if (c.isEmpty())
                    continue;
                s.id = c.value("id").toInteger();
                s.status = c.value("status").toString();
                s.cause = c.value("failure_cause").toString();
            }
            return s;
        };
        auto waitFor = [&](const std::function<bool(const Seen &)> &pred, Seen &out) {
            for (int i = 0; i < 600 && proc.state() == QProcess::Running; ++i) {
                out = lastRunLine();
                if (pred(out))
                    return true;
                QThread::msleep(20);
            }
            return false;
        };

        Seen seen;
        QVERIFY2(waitFor([](const Seen &s) { return s.status == "completed"; }, seen),
                 "no checkpoint completed before the folder was made read-only");
        std::vector<std::string> links;
        if (readOnly) {
            QVERIFY(::chmod(w.ckdir().c_str(), 0555) == 0);
        } else {
            for (qint64 id = seen.id + 1; id <= seen.id + 400; ++id) {
                links.push_back(w.ckdir() + "/manifest-" + std::to_string(id) + ".json.tmp");
                QVERIFY(::symlink("/dev/full", links.back().c_str()) == 0);
            }
        }
        Seen failed;
        const bool sawFailure = waitFor([](const Seen &s) { return s.status == "failed"; }, failed);
        // Undo the fault before any QVERIFY can leave it in place.
        if (readOnly)
            QVERIFY(::chmod(w.ckdir().c_str(), 0755) == 0);
        for (const auto &l : links)
            ::unlink(l.c_str());
        QVERIFY2(sawFailure, "no checkpoint failed while the fault was in place");
        QCOMPARE(failed.cause, fault);
        Seen recovered;
        QVERIFY2(waitFor([&](const Seen &s) { return s.status == "completed" && s.id > failed.id; },
                         recovered),
                 "no checkpoint completed after the folder became writable again");
        QVERIFY2(recovered.records > failed.records, "the run did not go on after the failure");
        QVERIFY(proc.waitForFinished(60000));
        const QString err = QString::fromUtf8(proc.readAllStandardError());
        QVERIFY2(proc.exitStatus() == QProcess::NormalExit && proc.exitCode() == 0,
                 qPrintable(err));
        QVERIFY2(err.contains(QString("checkpoint %1 failed: %2").arg(failed.id).arg(fault)),
                 qPrintable(err));
        qInfo("checkpoint %lld failed (%s) at %lld records read; checkpoint %lld completed at %lld",
              static_cast<long long>(failed.id), qPrintable(failed.cause),
              static_cast<long long>(failed.records), static_cast<long long>(recovered.id),
              static_cast<long long>(recovered.records));
        std::string diff = diffOutputs(collect(w.dir()), m_refShort);
        QVERIFY2(diff.empty(), diff.c_str());
        // A restart resumes from the checkpoints written after the failure.
        const auto ids = completeIds(w.ckdir());
        QVERIFY(!ids.empty() && ids.back() > failed.id);
    }

    void sigtermTakesFinalCheckpointAndSavepoint()
    {
        Workdir w;
        FixtureOptions o;
        o.count = kShortCount;
        o.recordsPerSecond = 10000;
        o.intervalMs = 100000; // no periodic checkpoint: the final one is all there is
        w.write(o);
        Runner r(w.dir());
        std::string sp = w.dir() + "/savepoint";
        QProcess *p = r.start({"--savepoint", QString::fromStdString(sp)});
        QTest::qWait(700);
        ::kill(static_cast<pid_t>(p->processId()), SIGTERM);
        Run stopped = r.finish();
        QVERIFY2(!stopped.crashed && stopped.exitCode == 0, qPrintable(stopped.err));
        QVERIFY2(stopped.err.contains("stopped"), qPrintable(stopped.err));
        QCOMPARE(completeIds(w.ckdir()).size(), std::size_t(1));
        QVERIFY(fs::exists(sp + "/manifest.json"));
        // Resume from the savepoint in a fresh folder (same outputs so far).
        Workdir w2;
        w2.write(o);
        fs::copy(w.dir() + "/out", w2.dir() + "/out", fs::copy_options::recursive);
        Runner r2(w2.dir());
        Run resumed = r2.runToEnd({"--restore", QString::fromStdString(sp)});
        QVERIFY2(!resumed.crashed && resumed.exitCode == 0, qPrintable(resumed.err));
        QVERIFY2(resumed.err.contains("node `win`: restored"), qPrintable(resumed.err));
        std::string diff = diffOutputs(collect(w2.dir()), m_refShort);
        QVERIFY2(diff.empty(), diff.c_str());
        // And from the final checkpoint in the original folder.
        Run again = r.runToEnd();
        QVERIFY2(!again.crashed && again.exitCode == 0, qPrintable(again.err));
        diff = diffOutputs(collect(w.dir()), m_refShort);
        QVERIFY2(diff.empty(), diff.c_str());
    }

    void corruptNewestAfterKillUsesPrevious()
    {
        Workdir w;
        FixtureOptions o;
        o.count = kShortCount;
        o.recordsPerSecond = 10000;
        o.intervalMs = 50;
        w.write(o);
        Runner r(w.dir());
        Run killed = r.runAndKill(900);
        QVERIFY(!killed.finishedBeforeKill);
        auto ids = completeIds(w.ckdir());
        QVERIFY(ids.size() >= 2);
        std::string stateDir = w.ckdir() + "/" + checkpoint::checkpointStateDirName(ids.back());
        for (auto &e : fs::directory_iterator(stateDir))
            if (e.path().extension() == ".sst")
                fs::resize_file(e.path(), fs::file_size(e.path()) / 3);
        Run resumed = r.runToEnd();
        QVERIFY2(!resumed.crashed && resumed.exitCode == 0, qPrintable(resumed.err));
        QVERIFY2(resumed.err.contains("checkpoint " + QString::number(ids.back()))
                     && resumed.err.contains("unusable"),
                 qPrintable(resumed.err));
        QVERIFY2(resumed.err.contains("restoring from checkpoint "
                                      + QString::number(ids[ids.size() - 2])),
                 qPrintable(resumed.err));
        std::string diff = diffOutputs(collect(w.dir()), m_refShort);
        QVERIFY2(diff.empty(), diff.c_str());
    }
};

QTEST_GUILESS_MAIN(TestCheckpointCrash)
#include "test_checkpoint_crash.moc"
