#pragma once
// The benchmark subcommands and their options.

#include <cstdint>
#include <string>

namespace tideline::bench {

struct Options
{
    std::int64_t events = -1; ///< -1: the command's default
    std::int64_t lines = 1000000;
    std::int64_t keys = 10000;
    std::int64_t ids = 1000000; ///< generator-dedup: distinct event ids
    bool withOperator = true;   ///< --operator off: the same sources and sinks without the stage
    double rate = 100000;
    std::int64_t sizeMs = 10000;
    std::int64_t slideMs = 0; ///< window benchmarks: > 0 makes the window sliding
    bool withSum = false;     ///< window benchmarks: sum(value) beside count (issue 22's workloads)
    std::string query = "q5";
    int generators = 1;
    int repeat = 1;
    int parallelism = 0; ///< --parallelism: 0 = the pipeline's settings (1)
    std::string pipelinesDir;
    std::string conninfo;             ///< postgres: the server to write to
    std::int64_t checkpointMs = 1000; ///< postgres: checkpoint interval of the exactly_once run
    std::int64_t lineage = 0;         ///< --lineage N: lineage on, N records kept (0: off)
    std::string semantics; ///< --semantics NAME: settings.semantics of every run ("" = the file's)
};

/// Parses argv[first..]; returns "" or a message.
std::string parseOptions(int argc, char **argv, int first, Options &out);
/// postgres: generator -> sink.postgres, at_least_once against exactly_once (postgres_bench.cpp).
int postgresBench(const Options &opts);
/// replay: source.file against --replay of a recording of the same lines (replay_bench.cpp).
int replayBench(const Options &opts);
/// Runs a subcommand; 0 ok, 1 failed, 2 unknown command.
int runCommand(const std::string &command, const Options &opts);

} // namespace tideline::bench
