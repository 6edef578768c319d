#pragma once
// What a librdkafka error means for a running pipeline, and how to say it.
//
// Transient errors (a broker down, a timeout, a leader moving) are retried by librdkafka
// itself: the node keeps going and counts them. Errors that lose or corrupt data, or that no
// retry will fix, stop the run with a message naming the node and the cause; the restart
// resumes from the last checkpoint (replay, never skip).

#include <librdkafka/rdkafka.h>

#include <string>

namespace tideline::kafka {

enum class ErrorClass {
    Transient, ///< librdkafka retries; keep running
    DataLoss,  ///< offset out of range with auto.offset.reset=error: data gone to retention
    Config,    ///< authentication, authorization, unknown topic: fix the pipeline or cluster
    Fatal,     ///< the client is unusable (fatal idempotence/transaction error, fenced)
};

ErrorClass classify(rd_kafka_resp_err_t err);
const char *className(ErrorClass c);

/// "broker transport failure (_TRANSPORT)" style text for messages.
std::string describe(rd_kafka_resp_err_t err);

/// The fatal error of a client, "" when none (rd_kafka_fatal_error()).
std::string fatalError(rd_kafka_t *rk);

} // namespace tideline::kafka
