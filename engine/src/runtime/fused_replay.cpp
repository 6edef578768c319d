// A replay's lines in a fused chunk (fused_source.hpp, FusedConfig::replay): the lines the loop
// thread took from the recording (SplittableFile::takeLines) made into records on a worker, by
// the rules FileSource::poll applies to a recorded line, and routed as a file range's are. A
// whole block of the recording's raw lines comes unread: it is checked here, on the worker.

#include "runtime/fused_source.hpp"

#include <tideline/engine/recording.hpp>

namespace tideline::parallel {

void FusedChunk::runLines(Round &r)
{
    // As FileSource::poll treats a recorded line: over the limit (recorded as its head and
    // length) to `errors`, the byte order mark of line 1 dropped, blank lines skipped, the
    // rest parsed; a record is routed while it is in cache, as a file range's are. A whole
    // recorded block is checked here first, off the loop thread (its CRC, its line count), and
    // none of its lines is used when it fails: the chunk stops there.
    std::vector<Record> &records = takeBlock(r).records;
    std::size_t used = 0;
    blockError.clear();
    for (const sources::LineList::Line &l : lines->lines) {
        if (l.block) {
            const sources::LineList::Block &b = lines->blocks[l.at];
            if (!recording::checkBlockPayload(b.payload, b.crc, b.count, m_ends, m_why)) {
                blockError = b.where + ": " + m_why;
                break;
            }
            std::size_t from = 0;
            for (std::size_t i = 0; i < m_ends.size(); ++i) {
                replayedLine(r, records, used, b.payload.substr(from, m_ends[i] - from),
                             b.firstLine + i);
                from = m_ends[i] + 1;
            }
            continue;
        }
        std::string_view text = lines->textOf(l);
        if (l.tooLong) {
            sourceError(r, "record_too_large", text, l.number, true, l.length);
            continue;
        }
        replayedLine(r, records, used, text, l.number);
    }
    r.count = m_next;
}

void FusedChunk::replayedLine(Round &r,
                              std::vector<Record> &records,
                              std::size_t &used,
                              std::string_view text,
                              std::uint64_t number)
{
    if (number == 1 && text.substr(0, 3) == sources::kByteOrderMark)
        text.remove_prefix(3);
    if (sources::isBlankLine(text))
        return;
    const bool scratch = m_cfg.aggs != nullptr; // one record, parsed into again
    const std::size_t index = scratch ? 0 : used;
    if (records.size() <= index)
        records.emplace_back();
    Record &rec = records[index];
    rec.clear();
    if (!m_cfg.file->parse(text, rec, m_parser, m_error, scratch ? m_cfg.projection : nullptr)) {
        sourceError(r, m_error, text, number, false, 0);
        return;
    }
    used += scratch ? 0 : 1;
    m_lineText = text;
    const std::uint32_t step = 2 * m_next++ + 1;
    route(r, rec, static_cast<std::uint32_t>(index), step);
}

} // namespace tideline::parallel
