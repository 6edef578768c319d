// Job: the public facade (tideline/engine/job.hpp) over the Runtime. create() refuses path
// conflicts first, then locks the checkpoint folder, compiles, and restores.

#include "checkpoint/coordinator.hpp"
#include "lineage/lineage_store.hpp"
#include "path_conflicts.hpp"
#include "runtime/runtime.hpp"

namespace tideline {

Job::Job() = default;

Job::~Job() = default;

std::unique_ptr<Job> Job::create(const PipelineSpec &spec, JobOptions options, std::string &error)
{
    // Paths as the operators resolve them (validation cannot see ${env:...} or
    // --checkpoint-dir): no sink may overwrite what another node reads or writes.
    std::vector<Diagnostic> conflicts;
    PathCheckOptions paths;
    paths.baseDir = options.baseDir;
    paths.checkpointDirOverride = options.checkpointDirOverride;
    paths.resolveReferences = true;
    checkPathConflicts(spec, paths, conflicts);
    if (!conflicts.empty()) {
        error.clear();
        for (const auto &d : conflicts)
            error += (error.empty() ? "node `" : "; node `") + d.nodeId + "`: params." + d.param
                     + ": " + d.message;
        return nullptr;
    }
    std::unique_ptr<Job> job(new Job());
    job->m_rt = std::make_unique<Runtime>(spec, std::move(options));
    if (tideline::Status s = job->m_rt->lockCheckpoints(); !s.ok()) {
        error = s.message();
        return nullptr;
    }
    if (tideline::Status s = job->m_rt->compile(); !s.ok()) {
        error = s.message();
        return nullptr;
    }
    if (job->m_rt->options().lineage.enabled)
        job->m_rt->enableLineage(job->m_rt->options().lineage);
    if (tideline::Status s = job->m_rt->initCheckpoints(); !s.ok()) {
        error = s.message();
        return nullptr;
    }
    job->m_rt->publish(false);
    return job;
}

Job::Status Job::run()
{
    while (true) {
        Status s = m_rt->runFor(1 << 20);
        if (s != Status::Running)
            return s;
    }
}

Job::Status Job::runFor(std::int64_t maxRecords)
{
    return m_rt->runFor(maxRecords);
}

void Job::requestStop()
{
    m_rt->requestStop();
}

void Job::requestSavepoint(const std::string &dir,
                           std::function<void(bool ok, const std::string &message)> done)
{
    m_rt->checkpoints()->requestSavepoint(dir, std::move(done));
}

bool Job::stopRequested() const
{
    return m_rt->stopRequested();
}

observe::MetricsSnapshot Job::snapshot() const
{
    return m_rt->snapshot();
}

bool Job::setTap(const std::string &nodeId,
                 observe::TapCallback callback,
                 observe::TapFilter filter)
{
    return m_rt->setTap(nodeId, std::move(callback), filter);
}

void Job::setWatermarkTap(observe::WatermarkTapCallback callback)
{
    m_rt->setWatermarkTap(std::move(callback));
}

void Job::publishMetrics()
{
    m_rt->publish(false);
}

std::string Job::failure() const
{
    return m_rt->failure();
}

const PipelineSpec &Job::spec() const
{
    return m_rt->spec();
}

const lineage::Store *Job::lineage() const
{
    return m_rt->lineageStore();
}

} // namespace tideline
