// source.kafka in a replay: the recorded messages, decoded as the consumer decodes them
// (kafka_message.hpp), with no broker. The recorded partitions are this source's; in group
// mode with partition tasks they are all assigned at the first poll, as if this process were
// the group's only member. A bounded source's partition with recorded records still to come is
// slow, not idle (hasRecordsLeft), as in the recorded run.

#include "connectors/kafka/kafka_message.hpp"
#include "operators/params.hpp"
#include "recording/replay_sources.hpp"

#include <tideline/engine/record_replay.hpp>

#include <map>

namespace tideline::recording {

namespace {

class KafkaReplaySource final : public SourceOperator
{
public:
    explicit KafkaReplaySource(const OperatorContext &ctx)
        : m_feed(*ctx.feed)
        , m_source(ctx.feed->sourceIndex(ctx.spec.id))
    {
        if (m_source < 0)
            throw ConfigError("the recording has no input for this source");
        const NodeParams p(ctx);
        m_decoder.setTopic(ctx.resolve(p.string("topic")));
        m_bounded = p.boolean("bounded");
        m_tasks = !m_bounded && p.boolean("partition_tasks");
    }

    int partitions() const override { return m_feed.partitions(m_source); }
    bool partitionTasks() const override { return m_tasks; }
    void setTaskHost(PartitionTaskHost *host) override { m_host = host; }
    std::map<int, std::int64_t> taskPositions() const override { return m_next; }
    bool hasRecordsLeft(int partition) const override
    {
        return m_bounded && m_feed.hasRecordsLeft(m_source, partition);
    }

    Poll poll(Output &out, int maxRecords) override
    {
        if (!m_assigned) {
            m_assigned = true;
            if (m_host) {
                std::vector<int> all;
                for (int p = 0; p < partitions(); ++p)
                    all.push_back(p);
                (void)m_host->partitionsAssigned(all, false);
            }
        }
        int produced = 0;
        while (produced < maxRecords) {
            const Entry *e = nullptr;
            const Feed::Next n = m_feed.next(m_source, false, e);
            if (n == Feed::Next::Pending)
                break;
            if (n == Feed::Next::End)
                return produced ? Poll::Produced : Poll::Finished;
            kafka::Message m;
            m.partition = e->partition.value_or(0);
            m.offset = e->offset.value_or(0);
            if (e->key)
                m.key = std::string_view(*e->key);
            m.timestamp = e->timestamp.value_or(-1);
            if (!e->valueAbsent) {
                m.payload = e->value.data();
                m.length = e->value.size();
            }
            m_next[m.partition] = m.offset + 1;
            m_decoder.emit(m, out);
            ++produced;
        }
        return produced ? Poll::Produced : Poll::Waiting;
    }

private:
    Feed &m_feed;
    int m_source;
    kafka::MessageDecoder m_decoder;
    bool m_bounded = false;
    bool m_tasks = false;
    bool m_assigned = false;
    PartitionTaskHost *m_host = nullptr;
    std::map<int, std::int64_t> m_next;
};

} // namespace

std::unique_ptr<Operator> makeKafkaReplaySource(const OperatorContext &ctx)
{
    return std::make_unique<KafkaReplaySource>(ctx);
}

} // namespace tideline::recording
