#pragma once
// Helpers for the Kafka tests: the mock cluster in its own process (tideline-kafka-mock),
// kcat as an independent client, in-process pipeline runs, and the Kafka nodes alone in
// testing::OperatorHarness with a hand-driven checkpoint (snapshot, then notify) so their
// checkpoint behaviour is tested without depending on the checkpoint module.

#include <tideline/engine/job.hpp>
#include <tideline/engine/spec.hpp>
#include <tideline/engine/state_io.hpp>
#include <tideline/engine/testing/operator_harness.hpp>
#include <tideline/engine/validate.hpp>

#include <QElapsedTimer>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>
#include <QThread>

#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace kafkatest {

using tideline::Json;

inline QString mockPath()
{
    return QStringLiteral(TIDELINE_BINARY_DIR "/tools/kafka-mock/tideline-kafka-mock");
}

class MockCluster
{
public:
    ~MockCluster() { stop(); }

    /// Starts the helper; topics as "name:partitions". Returns "" or the problem.
    QString start(int brokers, const QStringList &topics)
    {
        QStringList args{"--brokers", QString::number(brokers)};
        for (const auto &t : topics)
            args << "--topic" << t;
        m_proc.setProgram(mockPath());
        m_proc.setArguments(args);
        m_proc.setProcessChannelMode(QProcess::SeparateChannels);
        m_proc.start();
        if (!m_proc.waitForStarted(5000))
            return "cannot start " + mockPath() + ": " + m_proc.errorString();
        QString line = readLine(10000);
        if (!line.startsWith("bootstrap "))
            return "mock did not print its bootstrap servers: " + line + " "
                   + m_proc.readAllStandardError();
        bootstrap = line.mid(10).trimmed();
        return {};
    }

    /// Sends one command, waits for its reply ("ok" or "error ...").
    QString command(const QString &cmd)
    {
        m_proc.write((cmd + "\n").toUtf8());
        m_proc.waitForBytesWritten(2000);
        return readLine(10000);
    }

    void stop()
    {
        if (m_proc.state() == QProcess::NotRunning)
            return;
        m_proc.write("quit\n");
        m_proc.closeWriteChannel();
        if (!m_proc.waitForFinished(5000)) {
            m_proc.kill();
            m_proc.waitForFinished(2000);
        }
    }

    QString bootstrap;

private:
    QString readLine(int timeoutMs)
    {
        QElapsedTimer t;
        t.start();
        while (!m_proc.canReadLine() && t.elapsed() < timeoutMs)
            m_proc.waitForReadyRead(100);
        return QString::fromUtf8(m_proc.readLine()).trimmed();
    }
    QProcess m_proc;
};

/// kcat -P: one message per line; lines "key\tvalue" when withKeys. partition -1 = kcat's
/// partitioner (by key when keyed).
inline bool kcatProduce(const QString &bootstrap,
                        const QString &topic,
                        const QByteArray &lines,
                        int partition = -1,
                        bool withKeys = false,
                        QString *err = nullptr)
{
    QProcess p;
    QStringList args{"-P", "-b", bootstrap, "-t", topic, "-q"};
    if (partition >= 0)
        args << "-p" << QString::number(partition);
    if (withKeys)
        args << "-K"
             << "\t";
    p.start("kcat", args);
    if (!p.waitForStarted(5000))
        return false;
    p.write(lines);
    p.closeWriteChannel();
    bool ok
        = p.waitForFinished(60000) && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
    if (!ok && err)
        *err = p.readAllStandardError();
    return ok;
}

/// kcat -C from the beginning to the current end: "partition offset key value" per line.
inline QStringList
kcatConsume(const QString &bootstrap, const QString &topic, const QStringList &extra = {})
{
    QProcess p;
    QStringList args{"-C", "-b", bootstrap,         "-t", topic, "-o", "beginning", "-e",
                     "-q", "-f", "%p\t%o\t%k\t%s\n"};
    args << extra;
    p.start("kcat", args);
    p.waitForFinished(60000);
    QStringList out;
    for (const auto &l : QString::fromUtf8(p.readAllStandardOutput()).split('\n'))
        if (!l.isEmpty())
            out << l;
    return out;
}

/// kcat -Q style: committed offsets of a group are not exposed by kcat, so tests read them
/// with the engine's own source (OffsetSource::committed) or with this consumer.
inline std::vector<Json> readJsonLines(const std::string &path)
{
    std::vector<Json> out;
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line))
        if (!line.empty()) {
            // A run abandoned mid-write may leave a partial last line: skip it.
            Json j = Json::parse(line, nullptr, false);
            if (!j.is_discarded())
                out.push_back(std::move(j));
        }
    return out;
}

inline std::string diag(const std::vector<tideline::Diagnostic> &ds)
{
    std::string s;
    for (const auto &d : ds)
        s += d.format() + "\n";
    return s;
}

inline tideline::PipelineSpec specFrom(const Json &j, std::string *problems = nullptr)
{
    auto loaded = tideline::loadSpec(j.dump());
    if (problems)
        for (const auto &d : loaded.diagnostics)
            if (d.isError())
                *problems += d.format() + "\n";
    return loaded.spec ? *loaded.spec : tideline::PipelineSpec{};
}

/// One node of a pipeline's JSON (as kafkaSource()/node() build it) alone in a harness.
inline std::unique_ptr<tideline::testing::OperatorHarness> nodeHarness(const Json &node,
                                                                       std::string &error)
{
    tideline::NodeSpec spec{node.at("id").get<std::string>(),
                            node.at("kind").get<std::string>(),
                            node.value("params", Json::object()),
                            {}};
    return tideline::testing::OperatorHarness::create(std::move(spec), {}, error);
}

/// Polls a source harness until it finishes or the time limit passes; each batch it emits is
/// handed to `onBatch` (e.g. a sink harness's replay) before the next poll. Returns whether
/// it finished. Exceptions from the source (a fatal Kafka error) propagate.
inline bool
pollToEnd(tideline::testing::OperatorHarness &source,
          const std::function<void(const std::vector<tideline::testing::Emitted> &)> &onBatch = {},
          int limitMs = 30000)
{
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < limitMs) {
        const auto r = source.poll(256);
        if (onBatch)
            onBatch(source.takeEmitted());
        if (r == tideline::SourceOperator::Poll::Finished)
            return true;
        if (r == tideline::SourceOperator::Poll::Waiting)
            QThread::msleep(1);
    }
    return false;
}

/// Each JSON record line, parsed.
inline std::vector<Json> jsonRows(const std::vector<std::string> &lines)
{
    std::vector<Json> rows;
    for (const auto &l : lines)
        rows.push_back(Json::parse(l));
    return rows;
}

/// Runs until Finished/Failed or the time limit; returns the final status.
inline tideline::Job::Status runUntilDone(tideline::Job &job, int limitMs = 30000)
{
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < limitMs) {
        auto s = job.runFor(4096);
        if (s != tideline::Job::Status::Running)
            return s;
    }
    return tideline::Job::Status::Running;
}

} // namespace kafkatest
