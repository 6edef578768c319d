#pragma once
// Runs one of the project's command-line programs (tideline-run, ...) to its end and keeps
// what it said, for tests that check the CLI as a user meets it: exit code, stdout, stderr.

#include <QElapsedTimer>
#include <QProcess>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

#include <functional>
#include <string>

namespace tideline::testing {

struct CliResult
{
    int exitCode = -1; ///< -1 when the program crashed or did not finish in time
    QString out;
    QString err;
    qint64 ms = 0; ///< wall time
};

inline CliResult runProgram(const QString &program, const QStringList &args, int timeoutMs = 120000)
{
    QProcess p;
    QElapsedTimer clock;
    clock.start();
    p.start(program, args);
    const bool finished = p.waitForFinished(timeoutMs);
    if (!finished)
        p.kill(), p.waitForFinished(5000);
    CliResult r;
    r.exitCode = finished && p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    r.ms = clock.elapsed();
    return r;
}

/// What a run that may be killed left behind.
struct KilledOrFinished
{
    bool finished = false; ///< exited by itself (not killed)
    int exitCode = -1;
    QString out, err;
};

/// Starts `program args` in `dir` (TIDELINE_CRASH_AT set to `crashAt`, or unset when empty),
/// calls `whileRunning` once it has started, then waits for its end (killAfterMs <= 0: up to
/// 180 s) or kills it with SIGKILL once killAfterMs have passed: the crash-recovery tests' run.
inline KilledOrFinished runOrKill(const QString &program,
                                  const QStringList &args,
                                  const std::string &dir,
                                  int killAfterMs,
                                  const QString &crashAt = {},
                                  const std::function<void()> &whileRunning = {})
{
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove("TIDELINE_CRASH_AT");
    if (!crashAt.isEmpty())
        env.insert("TIDELINE_CRASH_AT", crashAt);
    p.setProcessEnvironment(env);
    p.setWorkingDirectory(QString::fromStdString(dir));
    p.start(program, args);
    if (!p.waitForStarted(10000))
        qFatal("cannot start %s", qPrintable(program));
    if (whileRunning)
        whileRunning();
    KilledOrFinished r;
    if (killAfterMs <= 0 || p.waitForFinished(killAfterMs)) {
        if (killAfterMs <= 0)
            p.waitForFinished(180000);
        r.finished = p.exitStatus() == QProcess::NormalExit;
        r.exitCode = p.exitCode();
    } else {
        p.kill(); // SIGKILL
        p.waitForFinished(10000);
    }
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

} // namespace tideline::testing
