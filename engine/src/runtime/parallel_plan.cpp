// Which nodes run in parallel (settings.parallelism / JobOptions::parallelism; parallel.hpp is
// how). After compile() opened every operator: each keyed node whose outputs can be merged back
// into the single-threaded order becomes a ParallelStage of N instances. Anything that would
// make the result depend on thread timing stays single-threaded, and the run says so in one
// log line per reason (ARCHITECTURE.md "Parallel execution": what is not parallel and why).

#include "checkpoint/keyed_state.hpp"
#include "operators/params.hpp"
#include "operators/window/window_config.hpp"
#include "runtime/parallel.hpp"
#include "runtime/parallel_source.hpp"
#include "runtime/runtime.hpp"

#include <algorithm>
#include <thread>

namespace tideline {

int resolveParallelism(const PipelineSpec &spec, const JobOptions &options)
{
    int n = 1;
    if (options.parallelism > 0)
        n = options.parallelism;
    else if (auto it = spec.settings.find("parallelism"); it != spec.settings.end()) {
        if (it->is_string() && *it == "auto")
            n = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
        else if (it->is_number_integer())
            n = it->get<int>();
    }
    return std::clamp(n, 1, parallel::kKeyGroups);
}

namespace {

std::vector<std::string> windowKey(const graph::Node &node)
{
    window::WindowConfig wc;
    std::string error;
    if (!window::readWindowConfig(node.spec->params, wc, error))
        return {}; // the factory already refused it (validation reads the same)
    return wc.key;
}

} // namespace

void Runtime::logParallelism(const std::string &line) const
{
    log("parallelism " + std::to_string(resolveParallelism(m_spec, m_options)) + ": " + line);
}

Status Runtime::planParallel()
{
    const int n = resolveParallelism(m_spec, m_options);
    if (n <= 1)
        return {};
    auto note = [this](const std::string &line) {
        logParallelism(line);
    };
    // What the whole run cannot do in parallel yet. (Checkpoints and savepoints can: a stage
    // saves its instances as one keyed state, checkpoint/keyed_state.hpp.)
    std::string whole;
    if (m_options.lineage.enabled)
        whole = "lineage follows each record through one thread";
    else if (auto it = m_spec.settings.find("state");
             it != m_spec.settings.end() && *it == "rocksdb")
        whole = "settings.state \"rocksdb\" spills one store per node";
    else if (auto sem = m_spec.settings.find("semantics");
             sem != m_spec.settings.end() && *sem != "flink")
        // Spark's micro-batch watermark and Kafka Streams' stream time are kept by the loop
        // and the operators for one thread; the instances would each see only their keys.
        whole = "settings.semantics " + sem->dump() + " is modelled on one thread";
    if (!whole.empty()) {
        note("running with parallelism 1: " + whole);
        return {};
    }
    // Sources that split their input parse (generate) it on the workers (parallel_source.cpp).
    std::string parsing;
    for (const std::string &id : parallel::parallelizeSources(m_nodes, m_pool, n))
        parsing += (parsing.empty() ? "`" : ", `") + id + "`";
    if (!parsing.empty())
        note("source " + parsing + " parses in chunks on the " + std::to_string(n) + " workers");
    // Each keyed node's region: the nodes after it. A node in the region that also reads
    // another branch would see the two interleaved as the threads happen to run; a sink may,
    // when that branch runs on the loop thread: its records are then passed through the stage,
    // in order among the stage's outputs (a deferred input).
    struct Candidate
    {
        int v;
        std::vector<char> below;
        std::vector<std::pair<int, int>> deferred; ///< (from node, to sink) edges
    };
    std::vector<Candidate> chosen;
    auto inRegion = [&](const Candidate &c, int u) {
        return u == c.v || c.below[static_cast<std::size_t>(u)];
    };
    // Partition tasks (partition_tasks.cpp): two instances of different partitions of one
    // section. Their outputs meet at the shared nodes after the section in whatever order the
    // partitions' records arrive; that order is the broker's, not one the single-threaded run
    // defines, so one partition's stage may interleave with another's there (as Kafka Streams'
    // tasks do on num.stream.threads threads). Each partition's own outputs keep their order.
    auto otherPartition = [this](int a, int b) {
        const auto &ta = m_nodes[static_cast<std::size_t>(a)].task;
        const auto &tb = m_nodes[static_cast<std::size_t>(b)].task;
        return ta.partition >= 0 && tb.partition >= 0 && ta.section == tb.section
               && ta.partition != tb.partition;
    };
    for (int v : m_order) {
        const Node &node = m_nodes[static_cast<std::size_t>(v)];
        const std::string &kind = node.spec->kind;
        if ((kind != "window" && kind != "dedup") || node.task.isTemplate)
            continue; // (a template has no operator: its partitions' instances run)
        Candidate c{v, std::vector<char>(m_nodes.size(), 0), {}};
        std::vector<int> stack{v};
        while (!stack.empty()) {
            const int u = stack.back();
            stack.pop_back();
            for (const auto &route : m_nodes[static_cast<std::size_t>(u)].outputs)
                for (const auto &t : route.targets)
                    if (!c.below[static_cast<std::size_t>(t.node)]) {
                        c.below[static_cast<std::size_t>(t.node)] = 1;
                        stack.push_back(t.node);
                    }
        }
        std::string why;
        for (std::size_t d = 0; d < m_nodes.size() && why.empty(); ++d) {
            if (!c.below[d])
                continue;
            const std::string &dk = m_nodes[d].spec->kind;
            const bool plainSink
                = dk == "sink.file" || dk == "sink.console" || dk == "sink.discard";
            for (const auto &in : m_nodes[d].inbound) {
                if (inRegion(c, in.fromNode) || otherPartition(v, in.fromNode))
                    continue;
                bool synchronous = true; // does that branch run on the loop thread?
                for (const auto &q : chosen)
                    synchronous = synchronous && !inRegion(q, in.fromNode);
                if (plainSink && synchronous) {
                    c.deferred.emplace_back(in.fromNode, static_cast<int>(d));
                    continue;
                }
                why = "node `" + m_nodes[d].id + "` also reads `"
                      + m_nodes[static_cast<std::size_t>(in.fromNode)].id
                      + "`, which does not come through it (the two would interleave as the "
                        "threads run)";
                break;
            }
        }
        // Passing records through keeps their order only when the stage's own input is in
        // loop order, and only past the last stage before the sink.
        for (const auto &q : chosen) {
            if (!why.empty())
                break;
            if (otherPartition(q.v, v))
                continue;
            if (!inRegion(q, v))
                continue;
            if (!c.deferred.empty())
                why = "its outputs share a sink with another branch, and it runs after `"
                      + m_nodes[static_cast<std::size_t>(q.v)].id + "`";
            for (const auto &[from, d] : q.deferred)
                if (c.below[static_cast<std::size_t>(d)])
                    why = "its outputs reach `" + m_nodes[static_cast<std::size_t>(d)].id
                          + "`, which `" + m_nodes[static_cast<std::size_t>(q.v)].id
                          + "` passes other records to";
        }
        for (const auto &q : chosen)
            for (const auto &[from, d] : q.deferred)
                if (why.empty() && !otherPartition(q.v, v) && inRegion(c, from))
                    why = "`" + m_nodes[static_cast<std::size_t>(q.v)].id + "` passes records of `"
                          + m_nodes[static_cast<std::size_t>(from)].id
                          + "`, which comes after it, to a sink";
        if (why.empty()
            && (kind == "window"
                    ? windowKey(node).empty()
                    : NodeParams(*node.kind, node.spec->params).fieldList("key").empty()))
            why = "it has no key (one group: nothing to split)";
        if (why.empty() && dynamic_cast<checkpoint::KeyedState *>(node.op.get()) == nullptr)
            // A savepoint may be asked for at any time (the designer): a stage must be able
            // to save its instances as one state whether checkpoints are configured or not.
            why = "its state cannot be saved split by key (checkpoints, savepoints)";
        if (!why.empty()) {
            note("node `" + node.id + "` runs single-threaded: " + why);
            continue;
        }
        chosen.push_back(std::move(c));
    }
    std::vector<int> candidates;
    for (const Candidate &c : chosen) {
        const int v = c.v;
        Node &node = m_nodes[static_cast<std::size_t>(v)];
        parallel::StageConfig cfg;
        cfg.node = v;
        cfg.window = node.spec->kind == "window";
        cfg.freeOnWorker = !parsing.empty();
        cfg.keys = cfg.window ? windowKey(node)
                              : NodeParams(*node.kind, node.spec->params).fieldList("key");
        // Deferred inputs: the edge's records go to the stage (input 1 + entry, slot -1: no
        // watermark), its watermarks still straight to the sink.
        auto targets = std::make_shared<std::vector<Target>>();
        for (const auto &[from, d] : c.deferred)
            for (auto &route : m_nodes[static_cast<std::size_t>(from)].outputs)
                for (auto &t : route.targets)
                    if (t.node == d) {
                        route.watermarkOnly.push_back(t);
                        targets->push_back(t);
                        t = {v, static_cast<int>(targets->size()), -1};
                    }
        cfg.deliverDeferred = [this, v, targets](int entry, Record &&record) {
            Node &stage = m_nodes[static_cast<std::size_t>(v)];
            // deliver() counted it in at the stage on its way there; it was the sink's.
            --stage.metrics.recordsIn;
            const Timestamp max
                = static_cast<const parallel::ParallelStage &>(*stage.op).maxEventTime();
            if (max == kMinTime)
                stage.metrics.maxEventTime.reset();
            else
                stage.metrics.maxEventTime = max;
            deliver((*targets)[static_cast<std::size_t>(entry)], std::move(record));
        };
        if (Status s = makeParallelStage(cfg); !s.ok())
            return s;
        candidates.push_back(v);
    }
    if (candidates.empty()) {
        note(std::string("no keyed window or dedup node can run in parallel")
             + (parsing.empty() ? ": running with parallelism 1" : ""));
        return {};
    }
    std::string ids;
    for (int v : candidates)
        ids += (ids.empty() ? "`" : ", `") + m_nodes[static_cast<std::size_t>(v)].id + "`";
    note(ids + " run as " + std::to_string(n) + " instances each");
    planFused(note);
    return {};
}

} // namespace tideline
