#include "expected_check.hpp"

#include <tideline/engine/job.hpp>

#include <QDir>
#include <QTemporaryDir>
#include <QThread>

namespace tideline::designer {

ExpectedCheck::ExpectedCheck(QObject *parent)
    : QObject(parent)
{
}

ExpectedCheck::~ExpectedCheck()
{
    if (m_thread) {
        cancel();
        m_thread->wait();
        delete m_thread;
    }
}

bool ExpectedCheck::start(const PipelineSpec &spec,
                          const QString &baseDir,
                          const QString &expectedDir,
                          QString *error)
{
    auto fail = [error](const QString &why) {
        if (error)
            *error = why;
        return false;
    };
    if (m_thread)
        return fail(tr("A check is already running."));
    auto temp = std::make_unique<QTemporaryDir>(
        QDir::temp().filePath(QStringLiteral("tideline-check-XXXXXX")));
    if (!temp->isValid())
        return fail(
            tr("Cannot create a temporary folder for the check: %1").arg(temp->errorString()));
    PipelineSpec run = spec;
    expected::Plan plan;
    if (std::string e = expected::prepare(run, temp->path().toStdString(), "Check", plan);
        !e.empty())
        return fail(QString::fromStdString(e));

    m_temp = std::move(temp);
    m_plan = std::move(plan);
    m_expectedDir = expectedDir;
    m_failure.clear();
    m_report = {};
    m_outputs.clear();
    {
        std::lock_guard lock(m_mutex);
        m_cancel = false;
    }
    m_clock.start();
    m_thread = QThread::create([this, run = std::move(run), base = baseDir.toStdString(),
                                dir = expectedDir.toStdString()] {
        JobOptions options;
        options.baseDir = base;
        options.fresh = true; // never resume: the checkpoint folder is the temporary one anyway
        std::string err;
        std::unique_ptr<Job> job = Job::create(run, std::move(options), err);
        if (!job) {
            m_workerFailure = err;
            return;
        }
        {
            std::lock_guard lock(m_mutex);
            m_job = job.get();
            if (m_cancel)
                job->requestStop();
        }
        const Job::Status status = job->run();
        {
            std::lock_guard lock(m_mutex);
            m_job = nullptr;
        }
        if (status == Job::Status::Failed)
            m_workerFailure = "the run failed: " + job->failure();
        else if (status == Job::Status::Stopped)
            m_workerFailure = "the check was stopped before its inputs ended; nothing was compared";
        job.reset(); // sinks closed: their files and tables are complete and readable
        if (!m_workerFailure.empty())
            return;
        m_workerOutputs = expected::readOutputs(m_plan);
        m_workerReport = expected::compare(m_plan, m_workerOutputs, dir);
    });
    m_thread->setObjectName(QStringLiteral("tideline-check"));
    connect(m_thread, &QThread::finished, this, &ExpectedCheck::onWorkerDone, Qt::QueuedConnection);
    m_workerFailure.clear();
    m_workerReport = {};
    m_workerOutputs.clear();
    m_thread->start();
    return true;
}

void ExpectedCheck::onWorkerDone()
{
    if (!m_thread)
        return;
    m_thread->wait();
    delete m_thread;
    m_thread = nullptr;
    m_elapsedMs = m_clock.elapsed();
    m_failure = QString::fromStdString(m_workerFailure);
    m_report = std::move(m_workerReport);
    m_outputs = std::move(m_workerOutputs);
    m_temp.reset(); // the outputs are in memory now
    Q_EMIT finished();
}

void ExpectedCheck::cancel()
{
    std::lock_guard lock(m_mutex);
    m_cancel = true;
    if (m_job)
        m_job->requestStop();
}

qint64 ExpectedCheck::recordsRead() const
{
    std::lock_guard lock(m_mutex);
    return m_job ? m_job->snapshot().recordsRead : 0;
}

qint64 ExpectedCheck::elapsedMs() const
{
    return m_thread ? m_clock.elapsed() : m_elapsedMs;
}

expected::Report ExpectedCheck::save(const QString &dir) const
{
    return expected::write(m_plan, m_outputs, dir.toStdString());
}

} // namespace tideline::designer
