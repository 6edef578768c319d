#pragma once
// A record the fused path gave its instance as aggregate inputs (Round::aggregated()), made again
// on the instance's thread when the window must emit the record itself (a late one): from its
// line with the file's parser, or by the generator from its index, then stamped as the chunk
// stamped it. The bytes are those the chunk made it from, so the record is the same.
//
// Why a file range's line is read again instead of kept: a copy of every line was most of a
// round's memory (7 MiB of a 2M-line run's 40 at parallelism 2), and on this project's VM fresh
// memory costs more to touch than the copy (docs/benchmarks.md "Session 18"); only a late
// record pays for the read. A file may grow while a pipeline reads it, not change (a
// checkpoint's restore assumes the same: docs/reference/checkpoints.md); a line that is no
// longer what the chunk read - the file shorter, the line no longer parsing, another event
// time - fails the run with the path and the fix rather than emit another record. A replay's
// lines are copied into the round (the recording's blocks are not kept once the chunk is
// reused).
//
// [Threading] One per instance and round, on the instance's worker; reads the round (its
// file's descriptor with pread, which moves no shared offset) and the source's and watermark
// node's configuration only.

#include "operators/fusable.hpp"
#include "runtime/parallel_round.hpp"

#include <memory>
#include <string>

namespace tideline::parallel {

class MadeAgain final : public fusable::RecordMaker
{
public:
    /// `parser`: the instance's, made on first use (a parser is one thread's).
    MadeAgain(const Round &round, std::unique_ptr<RecordParser> &parser)
        : m_round(round)
        , m_parser(parser)
    {
    }
    /// The item make() makes the record of (set before each call).
    const FusedItem *item = nullptr;

    /// Throws std::runtime_error when a file's line cannot be read or is not what was read.
    [[nodiscard]] Record make() override;

private:
    void readLine();
    [[noreturn]] void changed(const std::string &what) const;

    const Round &m_round;
    std::unique_ptr<RecordParser> &m_parser;
    std::string m_line;
};

} // namespace tideline::parallel
