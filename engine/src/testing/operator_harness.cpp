#include "operators/operators.hpp"
#include "state/state_backend.hpp"

#include <tideline/engine/record_json.hpp>
#include <tideline/engine/testing/operator_harness.hpp>

#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <unistd.h>

namespace tideline::testing {

namespace fs = std::filesystem;

namespace {

void appendWatermark(Timestamp w, std::string &out)
{
    if (w == kMinTime)
        out += "null";
    else
        out += std::to_string(w);
}

} // namespace

std::string Emitted::line() const
{
    std::string s;
    switch (type) {
    case Type::Record:
        return toJson(record);
    case Type::Late:
    case Type::Error:
        s = "{\"reason\":";
        appendJsonString(reason, s);
        s += ",\"watermark\":";
        appendWatermark(watermark, s);
        s += ",\"record\":";
        s += record.empty() ? std::string("null") : toJson(record);
        if (!raw.empty()) {
            s += ",\"raw\":";
            appendJsonString(raw, s);
        }
        if (!where.empty()) {
            s += ",\"where\":";
            appendJsonString(where, s);
        }
        return s + "}";
    case Type::Watermark:
        s = "{\"watermark\":";
        appendWatermark(watermark, s);
        return s + "}";
    case Type::Idle:
        return idle ? "{\"idle\":true}" : "{\"idle\":false}";
    }
    return s;
}

OperatorHarness::OperatorHarness(NodeSpec spec, HarnessOptions options)
    : m_spec(std::move(spec))
    , m_options(std::move(options))
    , m_clock(m_options.startMs)
{
    fateRows = &m_counts.fates; // node 0: Output::account counts here
}

OperatorHarness::~OperatorHarness()
{
    m_op.reset(); // closes the spill store before its folder goes
    if (!m_scratch.empty()) {
        std::error_code ec;
        fs::remove_all(m_scratch, ec);
    }
}

std::unique_ptr<OperatorHarness>
OperatorHarness::create(NodeSpec spec, HarnessOptions options, std::string &error)
{
    std::unique_ptr<OperatorHarness> h(new OperatorHarness(std::move(spec), std::move(options)));
    error = h->build();
    if (!error.empty())
        return nullptr;
    return h;
}

// The one place the harness meets the registry and the state backend: adapt here when
// their shape changes.
std::string OperatorHarness::build()
{
    const std::string who = "node `" + m_spec.id + "`: ";
    m_kind = findNodeKind(m_spec.kind);
    if (!m_kind)
        return who + "unknown kind `" + m_spec.kind + "`";
    const KindImpl *impl = findKindImpl(m_spec.kind);
    if (!impl)
        return who + "kind `" + m_spec.kind + "` is not available in this build";
    OperatorContext ctx{m_spec,
                        *m_kind,
                        m_options.baseDir,
                        m_clock,
                        std::max(m_options.upstreamPartitions, 1),
                        m_options.console};
    ctx.upstreamSource = m_options.upstreamSource;
    ctx.checkpointing = m_options.checkpointing;
    try {
        m_op = impl->make(ctx);
        m_op->open();
        if (auto *stateful = dynamic_cast<state::StatefulOperator *>(m_op.get())) {
            // What configureStateBackends() gives each stateful node of a job.
            state::StateBackendConfig cfg;
            if (m_options.spillMemoryMb > 0) {
                static std::atomic<int> harnesses{0};
                m_scratch = fs::temp_directory_path()
                            / ("tideline-harness-" + std::to_string(::getpid()) + "-"
                               + std::to_string(++harnesses));
                const auto budget
                    = static_cast<std::size_t>(m_options.spillMemoryMb * 1024.0 * 1024.0);
                std::string err;
                cfg.spill = true;
                cfg.memoryBudget = budget;
                cfg.store
                    = state::SpillStore::open((m_scratch / m_spec.id).string(),
                                              std::min<std::size_t>(budget / 8, 16u << 20), err);
                if (!cfg.store)
                    return who + "settings.state \"rocksdb\": " + err;
            }
            stateful->configureState(std::move(cfg));
        } else if (m_options.spillMemoryMb > 0) {
            return who + "kind `" + m_spec.kind + "` keeps no spillable state";
        }
    } catch (const std::exception &e) {
        m_op.reset();
        return who + e.what();
    }
    m_source = m_kind->isSource ? static_cast<SourceOperator *>(m_op.get()) : nullptr;
    m_inW.assign(m_kind->inputs.size(), kMinTime);
    m_inIdle.assign(m_kind->inputs.size(), 0);
    m_counts.node = m_spec.id;
    m_counts.kind = m_spec.kind;
    return {};
}

int OperatorHarness::inputIndex(std::string_view name) const
{
    for (std::size_t i = 0; i < m_kind->inputs.size(); ++i)
        if (m_kind->inputs[i].name == name)
            return static_cast<int>(i);
    return -1;
}

int OperatorHarness::outputIndex(std::string_view name) const
{
    for (std::size_t i = 0; i < m_kind->outputs.size(); ++i)
        if (m_kind->outputs[i].name == name)
            return static_cast<int>(i);
    return -1;
}

Record OperatorHarness::record(std::string_view json, Timestamp time)
{
    static thread_local RecordParser parser;
    Record r;
    std::string error;
    if (!parser.parse(json, r, error))
        throw std::invalid_argument("not an event: " + error + ": " + std::string(json));
    r.time = time;
    return r;
}

void OperatorHarness::processRecord(int input, Record &&record)
{
    if (input < 0 || static_cast<std::size_t>(input) >= m_inW.size())
        throw std::out_of_range("node `" + m_spec.id + "` has no input " + std::to_string(input));
    ++m_counts.recordsIn;
    if (record.time != kMinTime && (!m_counts.maxEventTime || record.time > *m_counts.maxEventTime))
        m_counts.maxEventTime = record.time;
    Output out(*this, 0);
    m_op->processRecord(input, std::move(record), out);
}

void OperatorHarness::processRecord(std::string_view input, Record &&record)
{
    const int i = inputIndex(input);
    if (i < 0)
        throw std::out_of_range("node `" + m_spec.id + "` has no input `" + std::string(input)
                                + "`");
    processRecord(i, std::move(record));
}

void OperatorHarness::processWatermark(int input, Timestamp w)
{
    auto &in = m_inW.at(static_cast<std::size_t>(input));
    if (w <= in)
        return;
    in = w;
    recomputeCombined();
}

void OperatorHarness::processWatermark(Timestamp w)
{
    for (auto &in : m_inW)
        in = std::max(in, w);
    recomputeCombined();
}

void OperatorHarness::setInputIdle(int input, bool idle)
{
    m_inIdle.at(static_cast<std::size_t>(input)) = idle ? 1 : 0;
    recomputeCombined();
}

// Runtime::recomputeCombined's rule, over this node's inputs.
void OperatorHarness::recomputeCombined()
{
    Timestamp combined = kMaxTime;
    bool anyActive = false;
    for (std::size_t i = 0; i < m_inW.size(); ++i) {
        if (m_inIdle[i] && m_inW[i] != kMaxTime)
            continue;
        anyActive = true;
        combined = std::min(combined, m_inW[i]);
    }
    if (!anyActive || combined <= m_combinedIn)
        return;
    m_combinedIn = combined;
    Output out(*this, 0);
    m_op->processWatermark(combined, out);
}

void OperatorHarness::tick(std::int64_t nowMs)
{
    m_clock.set(nowMs);
    Output out(*this, 0);
    m_op->onTick(nowMs, out);
}

SourceOperator::Poll OperatorHarness::poll(int maxRecords)
{
    if (!m_source)
        throw std::logic_error("node `" + m_spec.id + "` is not a source");
    Output out(*this, 0);
    const SourceOperator::Poll r = m_source->poll(out, maxRecords);
    if (r == SourceOperator::Poll::Finished)
        emitWatermark(0, kMaxTime);
    return r;
}

void OperatorHarness::replay(const std::vector<Emitted> &events, int input, int port)
{
    for (const auto &e : events) {
        switch (e.type) {
        case Emitted::Type::Record:
            if (e.port == port) {
                Record copy = e.record;
                processRecord(input, std::move(copy));
            }
            break;
        case Emitted::Type::Watermark:
            processWatermark(input, e.watermark);
            break;
        case Emitted::Type::Idle:
            setInputIdle(input, e.idle);
            break;
        case Emitted::Type::Late:
        case Emitted::Type::Error:
            break;
        }
    }
}

void OperatorHarness::finish()
{
    if (!m_inW.empty())
        processWatermark(kMaxTime);
    Output out(*this, 0);
    m_op->finish(out);
}

void OperatorHarness::notifyCheckpointComplete(std::int64_t checkpointId)
{
    m_op->notifyCheckpointComplete(checkpointId);
}

std::vector<Emitted> OperatorHarness::takeEmitted()
{
    std::vector<Emitted> out = std::move(m_emitted);
    m_emitted.clear();
    return out;
}

std::vector<std::string> OperatorHarness::lines(Emitted::Type type, int port) const
{
    std::vector<std::string> out;
    for (const auto &e : m_emitted)
        if (e.type == type && (type != Emitted::Type::Record || e.port == port))
            out.push_back(e.line());
    return out;
}

std::vector<Timestamp> OperatorHarness::watermarks() const
{
    std::vector<Timestamp> out;
    for (const auto &e : m_emitted)
        if (e.type == Emitted::Type::Watermark)
            out.push_back(e.watermark);
    return out;
}

observe::NodeMetrics OperatorHarness::metrics() const
{
    observe::NodeMetrics m = m_counts;
    const Timestamp w = m_kind->isSink ? m_combinedIn : m_outW;
    if (w != kMinTime)
        m.watermark = w;
    if (m_source)
        m.partitions = m_source->partitions();
    m_op->reportMetrics(m);
    return m;
}

OperatorSnapshot OperatorHarness::snapshotInto(StateWriter &writer) const
{
    OperatorSnapshot s;
    s.kind = m_spec.kind;
    s.fingerprint = m_op->stateFingerprint();
    m_op->snapshotState(writer);
    s.inputWatermarks = m_inW;
    s.inputIdle = m_inIdle;
    s.combinedIn = m_combinedIn;
    s.outputWatermark = m_outW;
    s.outputIdle = m_outIdle;
    return s;
}

OperatorSnapshot OperatorHarness::snapshot() const
{
    StateWriter w;
    OperatorSnapshot s = snapshotInto(w);
    s.state = w.take();
    return s;
}

std::string OperatorHarness::restore(const OperatorSnapshot &s)
{
    const std::string who = "node `" + m_spec.id + "`: ";
    if (s.kind != m_spec.kind)
        return who + "incompatible (kind " + s.kind + " -> " + m_spec.kind + ")";
    if (const std::string fp = m_op->stateFingerprint(); fp != s.fingerprint)
        return who + "incompatible (saved `" + s.fingerprint + "`, now `" + fp + "`)";
    if (s.inputWatermarks.size() != m_inW.size())
        return who + "the snapshot has " + std::to_string(s.inputWatermarks.size())
               + " input(s), the node " + std::to_string(m_inW.size());
    StateReader r(s.state);
    try {
        m_op->restoreState(r);
    } catch (const std::exception &e) {
        return who + e.what();
    }
    if (r.failed())
        return who + "the state is shorter than the operator expects";
    if (!r.atEnd())
        return who + "the operator left part of its state unread";
    m_inW = s.inputWatermarks;
    m_inIdle = s.inputIdle;
    m_combinedIn = s.combinedIn;
    m_outW = s.outputWatermark;
    m_outIdle = s.outputIdle;
    return {};
}

std::unique_ptr<OperatorHarness> OperatorHarness::restoredCopy(std::string &error) const
{
    auto copy = create(m_spec, m_options, error);
    if (!copy)
        return nullptr;
    error = copy->restore(snapshot());
    if (!error.empty())
        return nullptr;
    return copy;
}

// --- OutputTarget ---

void OperatorHarness::emit(int, int port, Record &&record)
{
    ++m_counts.recordsOut;
    // The watermark node assigns event time, so its max is known only on the way out.
    if (record.time != kMinTime && (!m_counts.maxEventTime || record.time > *m_counts.maxEventTime))
        m_counts.maxEventTime = record.time;
    Emitted e;
    e.type = Emitted::Type::Record;
    e.port = port;
    e.record = std::move(record);
    m_emitted.push_back(std::move(e));
}

void OperatorHarness::emitWrapped(int,
                                  PortRole role,
                                  std::string_view reason,
                                  Record &&record,
                                  Timestamp watermark,
                                  std::string_view raw,
                                  std::string_view where)
{
    Emitted e;
    e.type = role == PortRole::Late ? Emitted::Type::Late : Emitted::Type::Error;
    (role == PortRole::Late ? m_counts.late : m_counts.errors) += 1;
    observe::addCause(role == PortRole::Late ? m_counts.lateCauses : m_counts.errorCauses, reason);
    for (std::size_t p = 0; p < m_kind->outputs.size(); ++p)
        if (m_kind->outputs[p].role == role)
            e.port = static_cast<int>(p);
    e.record = std::move(record);
    e.reason = reason;
    e.watermark = watermark;
    e.raw = raw;
    e.where = where;
    m_emitted.push_back(std::move(e));
}

void OperatorHarness::emitWatermark(int, Timestamp w)
{
    if (w <= m_outW)
        return;
    m_outW = w;
    Emitted e;
    e.type = Emitted::Type::Watermark;
    e.watermark = w;
    m_emitted.push_back(std::move(e));
}

void OperatorHarness::emitIdle(int, bool idle)
{
    if (idle == m_outIdle)
        return;
    m_outIdle = idle;
    Emitted e;
    e.type = Emitted::Type::Idle;
    e.idle = idle;
    m_emitted.push_back(std::move(e));
}

bool OperatorHarness::connected(int, int port) const
{
    if (port < 0 || static_cast<std::size_t>(port) >= m_kind->outputs.size())
        return false;
    const auto &name = m_kind->outputs[static_cast<std::size_t>(port)].name;
    return std::find(m_options.unconnected.begin(), m_options.unconnected.end(), name)
           == m_options.unconnected.end();
}

} // namespace tideline::testing
