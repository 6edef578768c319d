#include "connectors/kafka/kafka_errors.hpp"

namespace tideline::kafka {

ErrorClass classify(rd_kafka_resp_err_t err)
{
    switch (err) {
    case RD_KAFKA_RESP_ERR__AUTO_OFFSET_RESET:
    case RD_KAFKA_RESP_ERR_OFFSET_OUT_OF_RANGE:
        return ErrorClass::DataLoss;
    case RD_KAFKA_RESP_ERR__AUTHENTICATION:
    case RD_KAFKA_RESP_ERR_SASL_AUTHENTICATION_FAILED:
    case RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED:
    case RD_KAFKA_RESP_ERR_GROUP_AUTHORIZATION_FAILED:
    case RD_KAFKA_RESP_ERR_CLUSTER_AUTHORIZATION_FAILED:
    case RD_KAFKA_RESP_ERR_TRANSACTIONAL_ID_AUTHORIZATION_FAILED:
    case RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC:
    case RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART:
    case RD_KAFKA_RESP_ERR__SSL:
    case RD_KAFKA_RESP_ERR__INVALID_ARG:
    case RD_KAFKA_RESP_ERR_INVALID_CONFIG:
    case RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE:
        return ErrorClass::Config;
    case RD_KAFKA_RESP_ERR__FATAL:
    case RD_KAFKA_RESP_ERR__FENCED:
    case RD_KAFKA_RESP_ERR_PRODUCER_FENCED:
    case RD_KAFKA_RESP_ERR_INVALID_PRODUCER_EPOCH:
    case RD_KAFKA_RESP_ERR_OUT_OF_ORDER_SEQUENCE_NUMBER:
    case RD_KAFKA_RESP_ERR_UNKNOWN_PRODUCER_ID:
    case RD_KAFKA_RESP_ERR__INCONSISTENT:
        return ErrorClass::Fatal;
    default:
        return ErrorClass::Transient;
    }
}

const char *className(ErrorClass c)
{
    switch (c) {
    case ErrorClass::Transient:
        return "transient";
    case ErrorClass::DataLoss:
        return "data loss";
    case ErrorClass::Config:
        return "configuration";
    case ErrorClass::Fatal:
        return "fatal";
    }
    return "?";
}

std::string describe(rd_kafka_resp_err_t err)
{
    return std::string(rd_kafka_err2str(err)) + " (" + rd_kafka_err2name(err) + ")";
}

std::string fatalError(rd_kafka_t *rk)
{
    char buf[512];
    rd_kafka_resp_err_t err = rd_kafka_fatal_error(rk, buf, sizeof buf);
    if (!err)
        return {};
    return std::string(buf) + " (" + rd_kafka_err2name(err) + ")";
}

} // namespace tideline::kafka
