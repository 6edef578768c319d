#pragma once
// Runs one of the project's command-line programs (tideline-run, ...) to its end and keeps
// what it said, for tests that check the CLI as a user meets it: exit code, stdout, stderr.

#include <QElapsedTimer>
#include <QProcess>
#include <QString>
#include <QStringList>

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

} // namespace tideline::testing
