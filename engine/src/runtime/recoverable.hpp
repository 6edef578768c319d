#pragma once
// RecoverableError: an operator failure that a restore from the last completed checkpoint
// repairs, such as a Kafka producer that went fatal (fencing, librdkafka 2.0.2's idempotence
// desync #4438). The operator has already dropped the broken client; the runtime then
// recreates every operator, restores the newest complete checkpoint and carries on, like
// Flink's restart strategy (bounded: kMaxRestarts per run). Without a checkpoint completed in
// this run there is nothing to restore to, and it fails the run like any other error.

#include <stdexcept>
#include <string>

namespace tideline {

struct RecoverableError : std::runtime_error
{
    explicit RecoverableError(const std::string &what)
        : std::runtime_error(what)
    {
    }
};

/// Restarts allowed per run before a recoverable failure fails it anyway.
inline constexpr int kMaxRestarts = 3;

} // namespace tideline
