// The checkpoint/savepoint state readers (read-only use of the engine's code): the first byte
// picks a reader, the rest is what it reads.
// - 0: the manifest (parseManifest): a clear error or a manifest, never a throw;
// - 1: StateReader::record: a record written back by StateWriter reads back the same;
// - 2+: an operator's restoreState() (watermark, windows, dedup, join, top, window_join, the
//   generator, and the Spark / Kafka Streams modes' watermark, windows, dedup and join, with
//   Spark's clock): a corrupted or truncated blob is either read (then a snapshot of the restored
//   state restores to the same snapshot) or reported (an exception with a message, or the
//   reader's failed()), as the checkpoint coordinator expects; never a crash, an overflow or
//   an out-of-memory from a length it trusted. The keyed operators (windows, dedup:
//   checkpoint::KeyedState) also restore an accepted state split over two instances by key,
//   as a parallel stage does, and merge them again: dedup gives back the same bytes, a window
//   the same size (its entries' order inside a window may differ), and split + merge of the
//   merged state is stable.

#include "checkpoint/keyed_state.hpp"
#include "checkpoint/manifest.hpp"
#include "fuzz_common.hpp"
#include "operators/operators.hpp"
#include "semantics/semantics.hpp"
#include "semantics/spark_clock.hpp"

#include <tideline/engine/catalog.hpp>
#include <tideline/engine/state_io.hpp>

#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>

using namespace tideline;

namespace {

/// settings.semantics of a config (the mode operators' state; appended so that the picks of
/// the older seeds keep their configs).
enum class Mode { Flink, SparkAppend, SparkUpdate, KafkaUpdates, KafkaOnClose };

struct Config
{
    const char *kind;
    const char *params;
    Mode mode = Mode::Flink;
};

const Config kConfigs[] = {
    {"watermark", R"({"time_field":"t","max_out_of_orderness_ms":10,"idle_timeout_ms":100})"},
    {"window", R"({"type":"tumbling","size_ms":1000,"key":["k"],"aggregates":[{"op":"count"},
       {"op":"sum","field":"v"},{"op":"avg","field":"v"},{"op":"min","field":"v"},
       {"op":"max","field":"v"}]})"},
    {"window", R"({"type":"sliding","size_ms":1000,"slide_ms":250,"allowed_lateness_ms":500,
       "aggregates":[{"op":"count"}]})"},
    {"window", R"({"type":"session","gap_ms":100,"key":["k","o"],"allowed_lateness_ms":50,
       "aggregates":[{"op":"max","field":"v","as":"m"}]})"},
    {"dedup", R"({"key":["id"],"within_ms":1000})"},
    {"join", R"({"left_key":["k"],"right_key":["k"],"lower_ms":-10,"upper_ms":10})"},
    {"join", R"({"left_key":["k"],"right_key":["j"],"lower_ms":0,"upper_ms":100,
       "type":"left_outer"})"},
    {"top", R"({"field":"v"})"},
    {"window_join", R"({"size_ms":1000,"left_key":["k"],"right_key":["k"]})"},
    {"source.generator", R"({"count":100,"partitions":3})"},
    {"window", R"({"type":"sliding","size_ms":1000,"slide_ms":250,"key":["k"],
       "aggregates":[{"op":"count"},{"op":"sum","field":"v"}]})",
     Mode::SparkUpdate},
    {"window", R"({"type":"session","gap_ms":100,"key":["k"],"aggregates":[{"op":"count"}]})",
     Mode::SparkAppend},
    {"window", R"({"type":"session","gap_ms":100,"key":["k"],"allowed_lateness_ms":5,
       "aggregates":[{"op":"min","field":"v"}]})",
     Mode::KafkaOnClose},
    {"window", R"({"type":"sliding","size_ms":100,"key":["k"],"aggregates":[{"op":"avg",
       "field":"v"}]})",
     Mode::KafkaUpdates},
    {"window", R"({"type":"tumbling","size_ms":1000,"aggregates":[{"op":"count"}]})",
     Mode::KafkaOnClose},
    {"dedup", R"({"key":["id"],"within_ms":1000})", Mode::KafkaUpdates},
    {"dedup", R"({"key":["id"],"within_ms":1000})", Mode::SparkAppend},
    {"watermark", R"({"time_field":"t","max_out_of_orderness_ms":10})", Mode::SparkAppend},
    {"join", R"({"left_key":["k"],"right_key":["k"],"lower_ms":-10,"upper_ms":10,
       "type":"left_outer"})",
     Mode::SparkAppend},
    {"join", R"({"left_key":["k"],"right_key":["j"],"lower_ms":0,"upper_ms":100,
       "type":"left_outer"})",
     Mode::KafkaUpdates},
};

/// The mode's semantics for the operator (a fresh Spark clock each time: the watermark node
/// registers as its input), or null for Flink.
const semantics::JobSemantics *semanticsOf(Mode mode)
{
    static semantics::JobSemantics s;
    static std::unique_ptr<semantics::SparkClock> clock;
    if (mode == Mode::Flink)
        return nullptr;
    s = semantics::JobSemantics{};
    const bool spark = mode == Mode::SparkAppend || mode == Mode::SparkUpdate;
    s.engine = spark ? semantics::Engine::Spark : semantics::Engine::KafkaStreams;
    s.spark.updateMode = mode == Mode::SparkUpdate;
    s.kafka.onClose = mode == Mode::KafkaOnClose;
    s.upstreamDelay["n"] = 10;
    if (spark) {
        clock = std::make_unique<semantics::SparkClock>(7, "", false);
        s.sparkClock = clock.get();
    }
    return &s;
}

std::unique_ptr<Operator> make(const Config &c, NodeSpec &spec)
{
    static ManualClock clock;
    spec.id = "n";
    spec.kind = c.kind;
    spec.params = Json::parse(c.params);
    const NodeKind *kind = findNodeKind(c.kind);
    const KindImpl *impl = findKindImpl(c.kind);
    if (!kind || !impl)
        return nullptr;
    OperatorContext ctx{spec, *kind, "/nonexistent", clock, 3, nullptr};
    ctx.semantics = semanticsOf(c.mode);
    return impl->make(ctx);
}

/// The restored state as bytes, or "" when the blob was rejected.
std::string restoreAndSnapshot(const Config &c, std::string_view blob, bool &rejected)
{
    NodeSpec spec;
    auto op = make(c, spec);
    FUZZ_CHECK(op != nullptr, std::string("cannot make ") + c.kind);
    rejected = false;
    try {
        StateReader r(blob);
        op->restoreState(r);
        if (r.failed()) {
            rejected = true;
            return {};
        }
    } catch (const std::exception &e) {
        FUZZ_CHECK(*e.what(), "an exception without a message");
        rejected = true;
        return {};
    }
    StateWriter w;
    op->snapshotState(w);
    (void)op->stateFingerprint();
    return w.take();
}

/// `state` (accepted) restored into two instances, each keeping the keys of one half (by a
/// hash of the encoded key, as a parallel stage splits by key group), then merged into one
/// state; "" when the operator has no keyed state.
std::string splitAndMerge(const Config &c, const std::string &state)
{
    NodeSpec s0, s1;
    auto a = make(c, s0), b = make(c, s1);
    auto *ka = dynamic_cast<checkpoint::KeyedState *>(a.get());
    auto *kb = dynamic_cast<checkpoint::KeyedState *>(b.get());
    if (ka == nullptr || kb == nullptr)
        return {};
    auto odd = [](std::string_view key) {
        return (std::hash<std::string_view>{}(key)&1) != 0;
    };
    StateReader ra(state), rb(state);
    try {
        ka->restoreKeyed(
            ra, [&](std::string_view key) { return !odd(key); }, true);
        kb->restoreKeyed(rb, odd, false);
    } catch (const std::exception &e) {
        FUZZ_CHECK(false,
                   std::string(c.kind) + ": an accepted state split by key threw: " + e.what());
    }
    FUZZ_CHECK(!ra.failed() && !rb.failed(),
               std::string(c.kind) + ": an accepted state split by key was cut short");
    StateWriter w;
    ka->snapshotMerged({a.get(), b.get()}, w);
    return w.take();
}

/// Every field of an accepted manifest holds exactly the value of the file: `written` (the
/// manifest written back) agrees with `file` on each key both have (the writer adds the seal,
/// the format and the defaults of optional fields).
void checkSameValues(const Json &file, const Json &written, const std::string &where)
{
    for (const auto &[key, value] : written.items()) {
        if (key == "format" || (key == "crc32c" && where.empty()) || key == "nodes")
            continue;
        const auto it = file.find(key);
        if (it != file.end())
            FUZZ_CHECK(*it == value, "manifest " + where + key + ": read " + value.dump() + " from "
                                         + it->dump());
    }
}

void checkManifestAsWritten(std::string_view text, const checkpoint::Manifest &m)
{
    const Json file = Json::parse(text, nullptr, false);
    const Json written = Json::parse(checkpoint::writeManifest(m));
    FUZZ_CHECK(file.is_object(), "an accepted manifest is not a JSON object");
    checkSameValues(file, written, "");
    const Json &nodes = file.at("nodes");
    FUZZ_CHECK(nodes.size() == m.nodes.size(), "manifest nodes lost or added");
    for (std::size_t i = 0; i < m.nodes.size(); ++i)
        checkSameValues(nodes.at(i), written.at("nodes").at(i),
                        "nodes[" + std::to_string(i) + "].");
}

void writeSeed(const std::string &dir, const std::string &name, char pick, const std::string &blob)
{
    std::ofstream out(dir + "/" + name, std::ios::binary | std::ios::trunc);
    out.put(pick);
    out << blob;
}

} // namespace

extern "C" void fuzzWriteSeeds(const char *dirName)
{
    const std::string dir(dirName);
    std::filesystem::create_directories(dir);
    checkpoint::Manifest m;
    m.id = 7;
    m.stateDir = "chk-000007";
    checkpoint::NodeEntry n;
    n.id = "w";
    n.kind = "window";
    n.fingerprint = "window/x";
    n.bytes = 12;
    n.outW = 1000;
    m.nodes.push_back(n);
    writeSeed(dir, "manifest", 0, checkpoint::writeManifest(m));
    Record r;
    r.setInt("user.id", 7);
    r.setString("`service.name`", "api");
    r.setDouble("v", 2.5);
    r.setNull("n");
    r.set("arr", Value::raw("[1,2]"));
    r.time = 1700000000000;
    StateWriter w;
    w.record(r);
    writeSeed(dir, "record", 1, w.take());
    for (std::size_t i = 0; i < sizeof kConfigs / sizeof kConfigs[0]; ++i) {
        NodeSpec spec;
        auto op = make(kConfigs[i], spec);
        StateWriter sw;
        op->snapshotState(sw);
        writeSeed(dir, std::string("empty-") + std::to_string(i) + "-" + kConfigs[i].kind,
                  static_cast<char>(2 + i), sw.take());
    }
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    if (size == 0)
        return 0;
    const std::string_view blob = fuzz::asText(data + 1, size - 1);
    const unsigned pick = data[0];
    if (pick == 0) {
        checkpoint::Manifest m;
        std::string error;
        bool accepted = false;
        try {
            accepted = checkpoint::parseManifest(std::string(blob), m, error);
            if (!accepted)
                FUZZ_CHECK(!error.empty(), "manifest rejected without a reason");
        } catch (const std::exception &e) {
            FUZZ_CHECK(false, std::string("parseManifest threw: ") + e.what());
        }
        if (accepted)
            checkManifestAsWritten(blob, m);
        return 0;
    }
    if (pick == 1) {
        StateReader r(blob);
        Record rec;
        try {
            r.record(rec);
        } catch (const std::exception &e) {
            return 0; // a name beyond a record's limits: reported by the caller's catch
        }
        if (r.failed())
            return 0;
        StateWriter w;
        w.record(rec);
        const std::string again = w.take();
        StateReader r2(again);
        Record back;
        r2.record(back);
        FUZZ_CHECK(!r2.failed() && r2.atEnd() && back == rec && back.time == rec.time
                       && back.partition == rec.partition,
                   "a record does not survive write + read");
        return 0;
    }
    const Config &c = kConfigs[(pick - 2) % (sizeof kConfigs / sizeof kConfigs[0])];
    bool rejected = false;
    const std::string first = restoreAndSnapshot(c, blob, rejected);
    if (rejected)
        return 0;
    // The restored state, saved again, restores to the same state.
    bool again = false;
    const std::string second = restoreAndSnapshot(c, first, again);
    FUZZ_CHECK(!again, std::string(c.kind) + ": its own snapshot was rejected");
    FUZZ_CHECK(second == first, std::string(c.kind) + ": snapshot -> restore -> snapshot changed");
    const std::string merged = splitAndMerge(c, first);
    if (merged.empty())
        return 0;
    bool mergedRejected = false;
    const std::string restored = restoreAndSnapshot(c, merged, mergedRejected);
    FUZZ_CHECK(!mergedRejected, std::string(c.kind) + ": the merged state was rejected");
    FUZZ_CHECK(restored.size() == merged.size(),
               std::string(c.kind) + ": the merged state restored to another size");
    if (std::string_view(c.kind) == "dedup")
        FUZZ_CHECK(merged == first, "dedup: split by key and merged is not the same state");
    else // (a window pane no key of an instance is in is dropped: stable from then on)
        FUZZ_CHECK(splitAndMerge(c, restored).size() == merged.size(),
                   std::string(c.kind) + ": split + merge of a merged state changed its size");
    return 0;
}
