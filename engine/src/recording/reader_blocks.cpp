// Reading the blocks of a tideline-recording/2 records.tsv (recording.hpp). A block is checked
// whole (its header's CRC, its payload's CRC, its line count) before any of its records is
// used; then its records are read off it without another check. The header is checked when the
// reader reaches the block, the payload just before its first record is taken: by the reader
// (checkBlock), or, for a raw-line block that a parallel replay hands to a worker whole
// (peekRun's deferCheck), by that worker, so the loop thread never reads the payload's bytes. A
// torn last block (a kill, a full disk) is the end of an incomplete recording, with a note, as /1's
// torn last line is; any other bad block is an error naming the file, the line and the byte.

#include <tideline/engine/recording.hpp>

#include <climits>
#include <cstring>

namespace tideline::recording {

std::string Reader::blockWhere(bool next) const
{
    return "line " + std::to_string(next ? m_nextLine : m_blockLine) + " (block "
           + std::to_string(next ? m_blockIndex + 1 : m_blockIndex) + " at byte "
           + std::to_string(next ? m_nextByte : m_blockByte) + ")";
}

Reader::Take Reader::takeBlock(bool mayRead)
{
    if (m_blockTaken < m_blockYields) [[likely]]
        return Take::Line;
    if (m_atEnd || !m_error.empty())
        return Take::End;
    if (mayRead)
        releaseBehind();
    const Manifest &m = m_info.manifest;
    for (;;) {
        const std::string_view rest(m_data + m_pos, m_end - m_pos);
        std::string why;
        const BlockCheck check
            = rest.empty() ? BlockCheck::Torn : readBlockHeader(rest, m_block, why);
        if (check == BlockCheck::Whole)
            break;
        if (check == BlockCheck::Bad) {
            m_error = m_path + " " + blockWhere(true) + ": " + why;
            m_atEnd = true;
            return Take::End;
        }
        // The bytes end inside the block: read on, or this is the end of the file.
        if (!m_eof && !mayRead)
            return Take::NeedRead;
        if (!m_eof && fill())
            continue;
        m_atEnd = true;
        const bool torn = !rest.empty();
        if (m.complete && (torn || m_read != m.records + m.ends)) {
            m_error = m_path
                      + (torn ? " " + blockWhere(true) + ": cut off (the file ends inside it)" : "")
                      + (torn ? "; " : ": ") + "the manifest says the recording is complete with "
                      + std::to_string(m.records) + " records"
                      + (m.ends ? " and " + std::to_string(m.ends) + " end markers" : "") + " but "
                      + std::to_string(m_read) + " are in whole blocks (truncated?)";
            return Take::End;
        }
        if (torn)
            m_info.notes.push_back(m_path + " " + blockWhere(true)
                                   + " was cut off by the interruption and is left out");
        return Take::End;
    }
    ++m_blockIndex;
    m_blockLine = m_nextLine;
    m_blockByte = m_nextByte;
    m_nextLine += 1 + m_block.count;
    m_nextByte += m_block.size;
    m_blockAt = m_pos + m_block.headerSize;
    m_pos += m_block.size;
    m_blockTaken = 0;
    m_blockYields = m_block.kind == 'E' ? 1 : m_block.count;
    m_line = m_blockLine;
    m_blockSource = sourceOf(m_block.sourceId);
    if (m_blockSource < 0) { // sourceOf named the line
        m_atEnd = true;
        return Take::End;
    }
    m_read += m_blockYields;
    return Take::Line;
}

bool Reader::checkBlock()
{
    if (m_block.checked) [[likely]]
        return true;
    std::string why;
    if (!checkBlockPayload(m_block.payload, m_block.payloadCrc, m_block.count, m_block.lineEnds,
                           why)) {
        m_error = m_path + " " + blockWhere(false) + ": " + why;
        m_atEnd = true;
        return false;
    }
    m_block.checked = true;
    return true;
}

bool Reader::nextInBlock(Entry &e)
{
    LineView v;
    switch (nextViewInBlock(v, e, e.source, true)) {
    case Got::View:
        e.atMs = v.atMs;
        e.partition = v.partition;
        e.offset = v.offset;
        e.timestamp.reset();
        e.key.reset();
        e.headers.clear();
        e.value.assign(v.value);
        e.valueAbsent = false;
        e.end = v.end;
        return true;
    case Got::Entry:
        return true;
    case Got::NeedRead:
    case Got::End:
        break;
    }
    return false;
}

Reader::Got Reader::nextViewInBlock(LineView &v, Entry &e, int &source, bool mayRead)
{
    switch (takeBlock(mayRead)) {
    case Take::Line:
        break;
    case Take::NeedRead:
        return Got::NeedRead;
    case Take::End:
        return Got::End;
    }
    if (!checkBlock())
        return Got::End;
    source = m_blockSource;
    const Block &b = m_block;
    if (b.kind == 'E') {
        ++m_blockTaken;
        v.atMs = b.atMs;
        v.sourceId = b.sourceId;
        v.partition.reset();
        v.offset.reset();
        v.timestamp.reset();
        v.value = {};
        v.valueAbsent = false;
        v.end = true;
        return Got::View;
    }
    // The block holds exactly `count` lines, the last ended by '\n' (checkBlock checked and
    // kept where each ends).
    const char *from = m_data + m_blockAt;
    const std::int64_t index = m_blockTaken++;
    const char *nl = b.payload.data() + b.lineEnds[static_cast<std::size_t>(index)];
    const std::string_view row(from, static_cast<std::size_t>(nl - from));
    m_blockAt += row.size() + 1;
    m_line = m_blockLine + 1 + index;
    if (b.kind == 'R') {
        v.atMs = b.atMs;
        v.sourceId = b.sourceId;
        v.partition = b.partition;
        if (b.firstOffset)
            v.offset = *b.firstOffset + index;
        else
            v.offset.reset();
        v.timestamp.reset();
        v.value = row;
        v.valueAbsent = false;
        v.end = false;
        return Got::View;
    }
    if (std::string why = parseRow(row, e); !why.empty()) {
        m_error = m_path + " line " + std::to_string(m_line) + " (row " + std::to_string(index + 1)
                  + " of block " + std::to_string(m_blockIndex) + " at byte "
                  + std::to_string(m_blockByte) + "): " + why;
        m_atEnd = true;
        return Got::End;
    }
    e.atMs = b.atMs;
    e.source = source;
    return Got::Entry;
}

Reader::Run Reader::peekRun(RawRun &run, bool mayRead, bool deferCheck)
{
    if (!m_blocks || !m_error.empty())
        return Run::Other;
    switch (takeBlock(mayRead)) {
    case Take::Line:
        break;
    case Take::NeedRead:
        return Run::NeedRead;
    case Take::End:
        return Run::End;
    }
    const Block &b = m_block;
    if (b.kind != 'R' || m_blockYields - m_blockTaken > INT_MAX)
        return Run::Other;
    const bool defer = deferCheck && !b.checked && m_blockTaken == 0;
    if (!defer && !checkBlock())
        return Run::End;
    run.source = m_blockSource;
    run.atMs = b.atMs;
    run.partition = b.partition;
    run.firstOffset.reset();
    if (b.firstOffset)
        run.firstOffset = *b.firstOffset + m_blockTaken;
    run.count = m_blockYields - m_blockTaken;
    run.begin = m_data + m_blockAt;
    run.end = b.payload.data() + b.payload.size();
    run.base = b.payload.data();
    run.ends = defer ? nullptr : b.lineEnds.data() + m_blockTaken;
    run.unchecked = defer;
    run.payloadCrc = b.payloadCrc;
    return Run::Lines;
}

void Reader::takeRun()
{
    m_blockAt = static_cast<std::size_t>(m_block.payload.data() - m_data) + m_block.payload.size();
    m_blockTaken = m_blockYields;
    m_line = m_blockLine + m_block.count;
}

} // namespace tideline::recording
