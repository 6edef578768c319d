// Replay sources (replay_sources.hpp). Generators are replayed from their records as JSON:
// parsing a record's JSON back gives the record (the writer keeps a decimal a decimal and
// integers exact), with its partition from the recording.

#include "recording/replay_sources.hpp"

#include "operators/operators.hpp"

#include <tideline/engine/record_json.hpp>
#include <tideline/engine/record_replay.hpp>

#include <stdexcept>

namespace tideline::recording {

namespace {

class ReplayRecordSource final : public SourceOperator
{
public:
    explicit ReplayRecordSource(const OperatorContext &ctx)
        : m_feed(*ctx.feed)
        , m_source(ctx.feed->sourceIndex(ctx.spec.id))
        , m_node(ctx.spec.id)
    {
        if (m_source < 0)
            throw ConfigError("the recording has no input for this source");
    }

    int partitions() const override { return m_feed.partitions(m_source); }

    Poll poll(Output &out, int maxRecords) override
    {
        int produced = 0;
        while (produced < maxRecords) {
            const Entry *e = nullptr;
            const Feed::Next n = m_feed.next(m_source, false, e);
            if (n == Feed::Next::Pending)
                break;
            if (n == Feed::Next::End)
                return produced ? Poll::Produced : Poll::Finished;
            if (!m_parser.parse(e->value, m_rec, m_error))
                throw std::runtime_error(m_feed.where() + ": a record of `" + m_node
                                         + "` is not a JSON object: " + m_error);
            m_rec.partition = static_cast<std::uint32_t>(e->partition.value_or(0));
            out.emit(0, std::move(m_rec));
            ++produced;
        }
        return produced ? Poll::Produced : Poll::Waiting;
    }

private:
    Feed &m_feed;
    int m_source;
    std::string m_node;
    RecordParser m_parser;
    Record m_rec;
    std::string m_error;
};

} // namespace

std::unique_ptr<Operator> makeReplaySource(const OperatorContext &ctx)
{
    if (ctx.spec.kind == "source.file")
        return makeFileSource(ctx); // reads ctx.feed itself
    if (ctx.spec.kind == "source.kafka")
        return makeKafkaReplaySource(ctx);
    return std::make_unique<ReplayRecordSource>(ctx);
}

} // namespace tideline::recording
