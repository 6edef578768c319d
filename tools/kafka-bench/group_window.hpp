// A consumer-group member's keyed window at a given parallelism (tideline-kafka-bench
// --workload): how much of a partition task's work the member's worker threads take over.
#pragma once

#include <tideline/engine/spec.hpp>

#include <string>

namespace kafkabench {

struct GroupRun
{
    double wall = 0;       ///< seconds from Job::create to the job gone
    double cpu = 0;        ///< user + system seconds of this process meanwhile
    long long records = 0; ///< records the source read
    long long results = 0; ///< window results that reached the sink
    std::string error;     ///< why the run is not valid (empty: it is)
};

/// source.kafka (an unbounded consumer group, its own group id) -> watermark -> a keyed window
/// (`window`: "tumbling", 10 s, or "sliding", 60 s every 10 s; count and sum per user) ->
/// sink.discard, at `parallelism`; stopped once the source has read `expected` records and the
/// results have stopped growing (what the final watermarks close has fired).
[[nodiscard]] GroupRun runGroupWindow(const std::string &bootstrap,
                                      const std::string &topic,
                                      const tideline::Json &properties,
                                      const std::string &window,
                                      int parallelism,
                                      long long expected,
                                      const std::string &groupId);

} // namespace kafkabench
