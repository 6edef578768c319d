// sink.upsert: the latest record per key, persisted in RocksDB. Writing a key again replaces
// its row, so replaying the same input any number of times leaves the same table: the sink is
// idempotent, which makes at-least-once delivery safe. Rows are batched (4096 per write) and
// committed at every checkpoint (synced) and at the end of the run. A retraction row
// ("emit": "retract": Kafka Streams mode's tombstone for a session merged away) deletes its
// key's row instead, as a KTable deletes on a tombstone: the table then holds the sessions that
// are results, not the ones merged away.
//
// A checkpoint also records the table's RocksDB identity: a table deleted (open() then creates
// an empty one) or replaced by another since the checkpoint would resume with the rows written
// before it missing, so the restore refuses it instead. State layout: rows written, then
// (since identities) the tag 'T' and the identity; older checkpoints restore unchecked.

#include "operators/keys/key_encoder.hpp"
#include "operators/keys/params.hpp"
#include "operators/operators.hpp"
#include "operators/params.hpp"
#include "operators/upsert_sink/upsert_store.hpp"

#include <tideline/engine/record_json.hpp>

#include <filesystem>

namespace tideline {

namespace {

constexpr std::size_t kBatchRows = 4096;

class UpsertSink final : public Operator
{
public:
    UpsertSink(std::string nodeId, std::string path, std::vector<std::string> key)
        : m_nodeId(std::move(nodeId))
        , m_path(std::move(path))
        , m_enc(std::move(key))
    {
    }

    void open() override
    {
        std::error_code ec;
        std::filesystem::path parent = std::filesystem::path(m_path).parent_path();
        if (!parent.empty())
            std::filesystem::create_directories(parent, ec);
        std::string error;
        if (!m_store.open(m_path, keys::joinList(m_enc.paths()), error))
            throw ConfigError("params.path: " + error);
    }

    void processRecord(int, Record &&record, Output &out) override
    {
        const bool complete = m_enc.encode(record, m_key);
        // 0x06 tags a raw value (an array or an empty object); other encodings may contain the
        // byte too, which costs only the closer look.
        if (!complete || m_key.find('\x06') != std::string::npos) [[unlikely]] {
            // A row needs its whole key, as a value: report it rather than invent a null key
            // or key rows by an object's text.
            if (std::string why = keyProblem(record); !why.empty()) {
                out.emitError(why, std::move(record), m_w);
                return;
            }
        }
        if (const Value emit = record.get("emit");
            emit.type == ValueType::String && emit.s == "retract") [[unlikely]] {
            m_store.erase(m_key);
        } else {
            m_value.clear();
            appendJson(record, m_value);
            m_store.put(m_key, m_value);
        }
        ++m_rowsWritten;
        if (m_store.pending() >= kBatchRows)
            commit(false);
    }

    void processWatermark(Timestamp w, Output &out) override
    {
        m_w = std::max(m_w, w);
        out.emitWatermark(w);
    }

    void finish(Output &) override
    {
        std::string error;
        if (!m_store.close(error))
            throw std::runtime_error("writing " + m_path + ": " + error);
    }

    void snapshotState(StateWriter &w) const override
    {
        // Everything before the checkpoint barrier must be durable before the checkpoint is.
        const_cast<UpsertSink *>(this)->commit(true);
        w.u64(m_rowsWritten);
        const std::string id = m_store.identity();
        if (!id.empty()) {
            w.u8(kIdentityTag);
            w.str(id);
        }
    }

    void restoreState(StateReader &r) override
    {
        m_rowsWritten = r.u64();
        if (r.failed() || r.atEnd())
            return; // short: reported by the caller; nothing more: an older checkpoint
        if (r.u8() != kIdentityTag)
            throw std::runtime_error("the saved state of the table " + m_path
                                     + " is not in a layout this build reads");
        const std::string saved = r.str();
        if (r.failed())
            return;
        const std::string now = m_store.identity();
        if (!now.empty() && now != saved)
            throw std::runtime_error(
                "the table " + m_path
                + " is not the table the checkpoint committed to (RocksDB identity " + saved
                + " then, " + now
                + " now): it was deleted, replaced or moved since, and resuming would leave out "
                  "every row written before the checkpoint. Put the table folder back, or rerun "
                  "with --fresh to rebuild it from the start of the input (or with "
                  "--reset-state "
                + m_nodeId + " to go on writing into this table as it is)");
    }

    // Rows put into the table (the balance: a sink's in = out + errors).
    void reportMetrics(observe::NodeMetrics &m) const override
    {
        m.recordsOut = static_cast<std::int64_t>(m_rowsWritten);
    }

    std::string stateFingerprint() const override
    {
        return "sink.upsert/1 key=" + keys::joinList(m_enc.paths());
    }

private:
    /// Why `r` has no usable key ("" when it has one): a key field that is missing, null or
    /// an object.
    std::string keyProblem(const Record &r) const
    {
        for (const auto &path : m_enc.paths()) {
            const int idx = r.indexOf(path);
            if (idx < 0)
                return r.hasObject(path)
                           ? "key field `" + path + "` is an object (a key field must hold a value)"
                           : "missing key field `" + path + "`";
            const Value v = r.valueAt(static_cast<std::size_t>(idx));
            if (v.isNull())
                return "key field `" + path + "` is null";
            if (v.type == ValueType::Raw && !v.s.empty() && v.s.front() == '{')
                return "key field `" + path + "` is an object (a key field must hold a value)";
        }
        return {};
    }

    void commit(bool sync)
    {
        std::string error;
        if (!m_store.commit(sync, error))
            throw std::runtime_error("writing " + m_path + ": " + error);
    }

    static constexpr std::uint8_t kIdentityTag = 'T';

    std::string m_nodeId;
    std::string m_path;
    keys::KeyEncoder m_enc;
    upsert::Store m_store;
    std::string m_key;
    std::string m_value;
    Timestamp m_w = kMinTime;
    std::uint64_t m_rowsWritten = 0;
};

} // namespace

std::unique_ptr<Operator> makeUpsertSink(const OperatorContext &ctx)
{
    const NodeParams p(ctx);
    auto key = p.fieldList("key");
    if (key.empty())
        throw ConfigError("params.key: list at least one field");
    return std::make_unique<UpsertSink>(ctx.spec.id, ctx.path(p.string("path")), std::move(key));
}

void validateUpsertSink(const NodeValidationContext &ctx)
{
    const Json &p = ctx.spec.nodes[static_cast<std::size_t>(ctx.nodeIndex)].params;
    if (auto it = p.find("key"); it != p.end() && it->is_array() && it->empty())
        ctx.error("key", "list at least one field that identifies a row, e.g. [\"event_id\"]");
}

} // namespace tideline
