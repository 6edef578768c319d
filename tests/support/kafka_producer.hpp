#pragma once
// A plain librdkafka producer for Kafka tests that load many records into the mock cluster
// (kcat would be a process per batch): send() retries while librdkafka's queue is full,
// flush() waits until everything is delivered.

#include <librdkafka/rdkafka.h>

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace tideline::testing {

class KafkaTestProducer
{
public:
    /// `conf`: extra librdkafka settings (linger.ms is 20 unless given).
    explicit KafkaTestProducer(const std::string &bootstrap,
                               const std::map<std::string, std::string> &conf = {})
    {
        char err[512];
        rd_kafka_conf_t *c = rd_kafka_conf_new();
        std::map<std::string, std::string> all{{"bootstrap.servers", bootstrap},
                                               {"linger.ms", "20"}};
        for (const auto &[k, v] : conf)
            all[k] = v;
        for (const auto &[k, v] : all)
            if (rd_kafka_conf_set(c, k.c_str(), v.c_str(), err, sizeof err) != RD_KAFKA_CONF_OK) {
                m_error = err;
                rd_kafka_conf_destroy(c);
                return;
            }
        m_rk = rd_kafka_new(RD_KAFKA_PRODUCER, c, err, sizeof err); // takes `c` on success
        if (!m_rk) {
            m_error = err;
            rd_kafka_conf_destroy(c);
        }
    }
    ~KafkaTestProducer()
    {
        if (m_rk)
            rd_kafka_destroy(m_rk);
    }
    KafkaTestProducer(const KafkaTestProducer &) = delete;
    KafkaTestProducer &operator=(const KafkaTestProducer &) = delete;

    bool ok() const { return m_rk != nullptr; }
    const std::string &error() const { return m_error; }

    /// Queues one record for `partition` of `topic` (copied); waits while the queue is full.
    void send(const std::string &topic, int partition, std::string_view value)
    {
        while (rd_kafka_producev(m_rk, RD_KAFKA_V_TOPIC(topic.c_str()),
                                 RD_KAFKA_V_PARTITION(static_cast<std::int32_t>(partition)),
                                 RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                                 RD_KAFKA_V_VALUE(const_cast<char *>(value.data()), value.size()),
                                 RD_KAFKA_V_END)
               == RD_KAFKA_RESP_ERR__QUEUE_FULL)
            rd_kafka_poll(m_rk, 10);
    }

    /// Waits up to `timeoutMs` for every queued record; true when none is left undelivered.
    bool flush(int timeoutMs = 120000)
    {
        rd_kafka_flush(m_rk, timeoutMs);
        return rd_kafka_outq_len(m_rk) == 0;
    }

private:
    rd_kafka_t *m_rk = nullptr;
    std::string m_error;
};

} // namespace tideline::testing
