// enrich: stream-static lookup join. The table is loaded once at open(); each record looks up
// its `key` field and gets the row under `as` (default: the node id). on_miss: pass the record
// unchanged, drop it, or send it to `late` with reason "no_match".

#include "operators/enrich/enrich_table.hpp"
#include "operators/operators.hpp"
#include "operators/params.hpp"

#include <algorithm>

namespace tideline {

namespace {

enum class OnMiss { Pass, Drop, Late };

class EnrichOperator final : public Operator
{
public:
    EnrichOperator(std::string nodeId,
                   std::string path,
                   enrich::TableFormat format,
                   std::string key,
                   std::string tableKey,
                   OnMiss onMiss,
                   std::string as)
        : m_nodeId(std::move(nodeId))
        , m_path(std::move(path))
        , m_format(format)
        , m_key(std::move(key))
        , m_tableKey(std::move(tableKey))
        , m_onMiss(onMiss)
        , m_as(std::move(as))
    {
    }

    void open() override
    {
        std::string error;
        if (!m_table.load(m_path, m_format, m_tableKey, error))
            throw ConfigError("params.table: " + error);
    }

    void processRecord(int, Record &&record, Output &out) override
    {
        const Record *row = nullptr;
        Value v = record.get(m_key);
        if (!v.isNull()) {
            keys::KeyEncoder::encodeOne(v, m_buf);
            row = m_table.find(m_buf);
        }
        if (row) {
            record.appendNested(m_as, *row);
            out.emit(std::move(record));
            return;
        }
        switch (m_onMiss) {
        case OnMiss::Pass:
            out.emit(std::move(record));
            return;
        case OnMiss::Drop:
            ++m_dropped;
            out.account(observe::Fate::NoMatch);
            return;
        case OnMiss::Late:
            out.emitLate("no_match", std::move(record), m_w);
            return;
        }
    }

    void processWatermark(Timestamp w, Output &out) override
    {
        m_w = std::max(m_w, w);
        out.emitWatermark(w);
    }

    void reportMetrics(observe::NodeMetrics &m) const override
    {
        // The loaded table is what this node holds in memory.
        m.stateEntries = static_cast<std::int64_t>(m_table.size());
        m.stateBytes = static_cast<std::int64_t>(m_table.bytes());
    }

private:
    std::string m_nodeId;
    std::string m_path;
    enrich::TableFormat m_format;
    std::string m_key;
    std::string m_tableKey;
    OnMiss m_onMiss;
    std::string m_as;
    enrich::Table m_table;
    std::string m_buf;
    Timestamp m_w = kMinTime;
    std::int64_t m_dropped = 0;
};

} // namespace

std::unique_ptr<Operator> makeEnrich(const OperatorContext &ctx)
{
    const NodeParams p(ctx);
    std::string table = ctx.path(p.string("table"));
    std::string onMiss = p.string("on_miss");
    std::string as = p.string("as");
    if (as.empty())
        as = ctx.spec.id;
    return std::make_unique<EnrichOperator>(ctx.spec.id, table,
                                            enrich::tableFormat(p.string("format"), table),
                                            p.string("key"), p.string("table_key"),
                                            onMiss == "drop"   ? OnMiss::Drop
                                            : onMiss == "late" ? OnMiss::Late
                                                               : OnMiss::Pass,
                                            as);
}

void validateEnrich(const NodeValidationContext &ctx)
{
    const Json &p = ctx.spec.nodes[static_cast<std::size_t>(ctx.nodeIndex)].params;
    if (!p.is_object())
        return;
    if (auto it = p.find("as"); it != p.end() && it->is_string()) {
        const std::string as = it->get<std::string>();
        if (as.empty() || as.front() == '.' || as.back() == '.'
            || as.find("..") != std::string::npos)
            ctx.error("as", "'" + as + "' is not a field path (e.g. user)");
    }
}

} // namespace tideline
