// source.nexmark: the Nexmark benchmark's person/auction/bid stream (Flink harness defaults).
//
// Records are Flink's JSON rows flattened: `event_type` (0 person, 1 auction, 2 bid), the one
// entity that is set under `person.*`, `auction.*` or `bid.*`, and `dateTime` (the computed
// event-time column, epoch ms). The two absent entities are simply missing (a missing field
// reads as null). The record object is reused between events: after emit() a downstream node
// that kept the record has moved it out, otherwise its buffers are still ours, so a stateless
// pipeline allocates nothing per event.

#include "operators/nexmark/nexmark_generator.hpp"
#include "operators/operators.hpp"
#include "operators/params.hpp"
#include "operators/sources/pacer.hpp"

#include <tideline/engine/record_replay.hpp>

namespace tideline {

namespace {

class NexmarkSource final : public SourceOperator
{
public:
    explicit NexmarkSource(const OperatorContext &ctx)
        : m_gen(nexmark::GeneratorConfig::fromParams(ctx.spec.params))
        , m_pacer(ctx.spec.params.value("pace", Json::object()), ctx.clock)
        , m_count(m_gen.config().count)
    {
        if (ctx.capture) { // --record: each event as JSON
            m_capture = ctx.capture;
            m_captureSource = m_capture->declare(ctx.spec.id, 1);
        }
    }

    Poll poll(Output &out, int maxRecords) override
    {
        int n = m_pacer.allowance(maxRecords);
        if (n == 0)
            return Poll::Waiting;
        int emitted = 0;
        while (emitted < n) {
            if (m_count > 0 && m_next >= m_count)
                break;
            if (m_pacer.bySpeed() && !m_pacer.dueAt(m_gen.timestampOf(m_next)))
                return emitted ? Poll::Produced : Poll::Waiting;
            if (m_cur.k != m_next)
                m_gen.plan(m_next, m_cur);
            // Plan the next event first: its cache misses overlap with writing this one.
            if (m_count == 0 || m_next + 1 < m_count)
                m_gen.plan(m_next + 1, m_ahead);
            m_gen.write(m_cur, m_rec);
            std::swap(m_cur, m_ahead);
            ++m_next;
            if (m_capture) [[unlikely]]
                recording::captureRecord(*m_capture, m_captureSource, m_rec);
            out.emit(0, std::move(m_rec));
            ++emitted;
            m_pacer.emitted();
        }
        return emitted ? Poll::Produced : Poll::Finished;
    }

    void snapshotState(StateWriter &w) const override { w.i64(m_next); }
    void restoreState(StateReader &r) override
    {
        m_next = r.i64();
        m_cur.k = m_ahead.k = -1;
    }
    std::string stateFingerprint() const override
    {
        const auto &c = m_gen.config();
        return "nexmark/" + std::to_string(c.seed) + "/" + std::to_string(c.count) + "/"
               + std::to_string(c.ratePerS) + "/" + std::to_string(c.generators) + "/"
               + std::to_string(c.baseTime);
    }

private:
    nexmark::Generator m_gen;
    Pacer m_pacer;
    recording::Capture *m_capture = nullptr;
    int m_captureSource = -1;
    std::int64_t m_count;
    std::int64_t m_next = 0;
    Record m_rec;
    nexmark::Generator::Plan m_cur, m_ahead; ///< events m_next and m_next + 1 (k = -1: none)
};

} // namespace

std::unique_ptr<Operator> makeNexmarkSource(const OperatorContext &ctx)
{
    return std::make_unique<NexmarkSource>(ctx);
}

void validateNexmarkSource(const NodeValidationContext &ctx)
{
    const NodeParams p(ctx);
    const std::int64_t persons = p.integer("person_proportion"),
                       auctions = p.integer("auction_proportion");
    const std::int64_t total = persons + auctions + p.integer("bid_proportion");
    if (persons < 1 || auctions < 1 || total < 3)
        ctx.error("person_proportion",
                  "person_proportion and auction_proportion must be >= 1 (ids of bids and "
                  "auctions refer back to them)");
}

} // namespace tideline
