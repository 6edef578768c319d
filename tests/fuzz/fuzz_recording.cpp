// The recording's line format (engine/include/tideline/engine/recording.hpp). Properties:
// - parseLine never crashes on any bytes, with or without a valid CRC;
// - an entry built from the input round-trips exactly: parse(append(e)) == e, for any bytes in
//   the key, header names and values and the value (tabs, newlines, backslashes, NUL, invalid
//   UTF-8), and the line it writes is one line (no raw '\n' or '\t' beyond the 8 separators);
// - a line body given a correct CRC either fails cleanly or parses to an entry that writes and
//   parses back to itself (so the reader never misreads its own format);
// - an absent value (`\N`) and an end marker (`\E`) round-trip as such, never as bytes;
// - parseLine (the replay's fast path) reads every line as parseLineReference does: the same
//   entry and source id, or the same error.
// - parseLineView (the replay's no-copy reading of source.file lines) accepts only lines that
//   parseLineReference reads, with the same fields; and it accepts every line the recorder
//   writes for an entry without key and headers (so the replay's batch path is the usual one).
// tideline-recording/2 (blocks):
// - readBlock never crashes on any bytes; a block it calls whole gives its records or a clean
//   error, and every shorter prefix of it is torn, never whole (a kill's cut is always seen);
//   its two halves (readBlockHeader, then checkBlockPayload on another thread) agree with it;
// - the raw lines of a whole R block, taken as the replay hands them to source.file
//   (LineBatch::take), are the values blockEntries reads;
// - entries built from the input, encoded by BlockEncoder (as the Writer does, several to a
//   block), read back exactly, and the bytes it said each would cost add up to what it wrote.

#include "checkpoint/checksum.hpp"
#include "fuzz_common.hpp"
#include "recording/line_text.hpp"

#include <tideline/engine/record_replay.hpp>
#include <tideline/engine/recording.hpp>

#include <algorithm>
#include <cstring>

using namespace tideline::recording;

namespace {

bool sameEntry(const Entry &a, const Entry &b)
{
    return a.atMs == b.atMs && a.partition == b.partition && a.offset == b.offset
           && a.timestamp == b.timestamp && a.key == b.key && a.headers == b.headers
           && a.value == b.value && a.valueAbsent == b.valueAbsent && a.end == b.end;
}

/// Cuts the input into parts at 0xFF 0x00 pairs (rare in text, easy for the fuzzer to make).
std::vector<std::string_view> parts(std::string_view s)
{
    std::vector<std::string_view> out;
    std::size_t from = 0;
    for (;;) {
        std::size_t at = s.find(std::string_view("\xFF\x00", 2), from);
        out.push_back(
            s.substr(from, at == std::string_view::npos ? std::string_view::npos : at - from));
        if (at == std::string_view::npos)
            return out;
        from = at + 2;
    }
}

/// parseLine against the reference reading of the same line.
std::string parseChecked(std::string_view line, Entry &e, std::string &id)
{
    Entry ref;
    std::string refId;
    const std::string want = parseLineReference(line, ref, refId);
    const std::string got = parseLine(line, e, id);
    FUZZ_CHECK(got == want, got + " / " + want + ": " + fuzz::shown(line));
    if (want.empty()) {
        FUZZ_CHECK(id == refId, fuzz::shown(line));
        ref.source = e.source;
        FUZZ_CHECK(sameEntry(e, ref), fuzz::shown(line));
    }
    LineView v;
    std::string scratch = "left over";
    if (parseLineView(line, v, scratch)) {
        FUZZ_CHECK(want.empty(), "parseLineView accepted: " + want + ": " + fuzz::shown(line));
        FUZZ_CHECK(v.sourceId == refId && v.atMs == ref.atMs && v.partition == ref.partition
                       && v.offset == ref.offset && v.timestamp == ref.timestamp && !ref.key
                       && ref.headers.empty() && v.value == ref.value
                       && v.valueAbsent == ref.valueAbsent && v.end == ref.end,
                   fuzz::shown(line));
    }
    return got;
}

/// A line the recorder wrote for an entry without key and headers, whose source id needed no
/// escape (its column, the third, has no backslash).
bool viewable(const Entry &e, std::string_view line)
{
    const std::size_t from = line.find('\t', line.find('\t') + 1) + 1;
    const std::string_view source = line.substr(from, line.find('\t', from) - from);
    return !e.key && e.headers.empty() && source.find('\\') == std::string_view::npos;
}

void roundTrip(const Entry &e, std::string_view sourceId)
{
    std::string line;
    appendLine(line, e, sourceId);
    FUZZ_CHECK(!line.empty() && line.back() == '\n', fuzz::shown(line));
    line.pop_back();
    FUZZ_CHECK(line.find('\n') == std::string::npos, fuzz::shown(line));
    FUZZ_CHECK(std::count(line.begin(), line.end(), '\t') == 8, fuzz::shown(line));
    Entry back;
    std::string id;
    const std::string why = parseChecked(line, back, id);
    FUZZ_CHECK(why.empty(), why + ": " + fuzz::shown(line));
    FUZZ_CHECK(id == sourceId, fuzz::shown(line));
    back.source = e.source;
    FUZZ_CHECK(sameEntry(back, e), fuzz::shown(line));
    if (viewable(e, line)) {
        LineView v;
        std::string scratch;
        FUZZ_CHECK(parseLineView(line, v, scratch), "parseLineView refused: " + fuzz::shown(line));
    }
}

/// The blocks at the start of `bytes`, read as a replay reads them; false at the first that is
/// not whole. Checks what holds for every whole block.
bool readBlocks(std::string_view bytes, std::vector<Entry> &out)
{
    while (!bytes.empty()) {
        Block b;
        std::string why;
        const BlockCheck check = readBlock(bytes, b, why);
        // Its two halves, as a parallel replay runs them on two threads: the same verdict, for
        // the same reason, and the same line ends.
        Block header;
        std::string headerWhy, payloadWhy;
        const BlockCheck first = readBlockHeader(bytes, header, headerWhy);
        std::vector<std::size_t> ends;
        const bool payloadOk = first == BlockCheck::Whole
                               && checkBlockPayload(header.payload, header.payloadCrc, header.count,
                                                    ends, payloadWhy);
        const BlockCheck halves = first != BlockCheck::Whole ? first
                                  : payloadOk                ? BlockCheck::Whole
                                                             : BlockCheck::Bad;
        FUZZ_CHECK(halves == check && (check == BlockCheck::Whole || why == headerWhy + payloadWhy)
                       && (check != BlockCheck::Whole || ends == b.lineEnds),
                   "readBlockHeader + checkBlockPayload differ from readBlock: "
                       + fuzz::shown(bytes));
        if (check != BlockCheck::Whole)
            return false;
        FUZZ_CHECK(b.size > 0 && b.size <= bytes.size(), fuzz::shown(bytes));
        const std::size_t step = b.size < 512 ? 1 : b.size / 64 + 1;
        for (std::size_t cut = 0; cut < b.size; cut += step) {
            Block part;
            FUZZ_CHECK(readBlock(bytes.substr(0, cut), part, why) == BlockCheck::Torn,
                       "a prefix of a whole block is not torn: " + fuzz::shown(bytes));
        }
        const std::size_t before = out.size();
        if (!blockEntries(b, out).empty())
            return false;
        FUZZ_CHECK(out.size() - before == static_cast<std::size_t>(b.kind == 'E' ? 1 : b.count),
                   fuzz::shown(bytes));
        if (b.kind == 'R' && b.count > 0) {
            LineBatch batch;
            batch.count = static_cast<int>(b.count);
            batch.rawAt = b.payload.data();
            batch.rawEnd = b.payload.data() + b.payload.size();
            batch.rawBase = b.payload.data();
            batch.rawEnds = b.lineEnds.data();
            FUZZ_CHECK(b.lineEnds.size() == static_cast<std::size_t>(b.count), fuzz::shown(bytes));
            batch.rawHasOffset = b.firstOffset.has_value();
            batch.rawOffset = b.firstOffset.value_or(0);
            for (std::size_t i = before; i < out.size(); ++i) {
                FUZZ_CHECK(batch.left(), fuzz::shown(bytes));
                const LineBatch::Line l = batch.take();
                FUZZ_CHECK(l.value == out[i].value && l.offset == out[i].offset && !l.entry,
                           fuzz::shown(bytes));
            }
            FUZZ_CHECK(!batch.left() && batch.rawAt == batch.rawEnd, fuzz::shown(bytes));
        }
        bytes.remove_prefix(b.size);
    }
    return true;
}

/// Encodes `entries` (sources 0 and 1) as the Writer does and reads them back.
void blocksRoundTrip(const std::vector<Entry> &entries, const std::string &sourceId)
{
    std::string escaped[2];
    tideline::recording::line::escape(escaped[0], sourceId); // as the Writer escapes ids
    escaped[1] = "other";
    BlockEncoder enc;
    std::string out;
    std::size_t costs = 0;
    for (const Entry &e : entries) {
        const std::string &id = escaped[e.source];
        costs += enc.cost(e, id);
        enc.add(e, id, out);
    }
    enc.close(out);
    FUZZ_CHECK(costs == out.size(), std::to_string(costs) + " != " + std::to_string(out.size()));
    std::vector<Entry> back;
    FUZZ_CHECK(readBlocks(out, back), fuzz::shown(out));
    FUZZ_CHECK(back.size() == entries.size(), fuzz::shown(out));
    for (std::size_t i = 0; i < back.size(); ++i) {
        Entry want = entries[i];
        if (want.end) { // an end marker's block holds nothing else
            want = Entry();
            want.atMs = entries[i].atMs;
            want.end = true;
        }
        back[i].source = want.source;
        FUZZ_CHECK(sameEntry(back[i], want), fuzz::shown(out));
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::string_view text = fuzz::asText(data, size);
    Entry e;
    std::string id;

    // 1. Raw bytes as a line.
    (void)parseChecked(text, e, id);

    // 2. The bytes as a line body with a correct CRC.
    char crc[10];
    std::snprintf(crc, sizeof crc, "%08x\t", tideline::checkpoint::crc32c(text));
    const std::string withCrc = std::string(crc, 9) + std::string(text);
    if (parseChecked(withCrc, e, id).empty() && !id.empty())
        roundTrip(e, id);

    // 3. An entry made of the input's parts.
    auto p = parts(text);
    Entry built;
    built.atMs = static_cast<std::int64_t>(size) * 7;
    built.value = std::string(p[0]);
    if (p.size() > 1)
        built.key = std::string(p[1]);
    for (std::size_t i = 2; i + 1 < p.size(); i += 2)
        built.headers.emplace_back(std::string(p[i]), std::string(p[i + 1]));
    if (size % 3 == 0) {
        built.partition = static_cast<std::int32_t>(size % 1024);
        built.offset = -static_cast<std::int64_t>(size) * 1000003;
        built.timestamp = static_cast<std::int64_t>(size) << 40;
    }
    // An absent value (a Kafka tombstone) and an end marker are not any value's bytes.
    if (size % 5 == 1 || size % 7 == 2) {
        built.value.clear();
        (size % 5 == 1 ? built.valueAbsent : built.end) = true;
    }
    std::string sourceId = p.size() > 1 && !p.back().empty() ? std::string(p.back()) : "src";
    roundTrip(built, sourceId);

    // 4. tideline-recording/2: the raw bytes as blocks, and the built entry in blocks: alone,
    //    as a run of file lines of one millisecond, and between another source's records.
    std::vector<Entry> blockEntriesIn;
    (void)readBlocks(text, blockEntriesIn);
    std::vector<Entry> run;
    for (int i = 0; i < 3; ++i) {
        Entry line = built;
        line.end = false;
        if (line.offset)
            *line.offset += i;
        run.push_back(line);
    }
    Entry other;
    other.source = 1;
    other.atMs = built.atMs;
    other.value = std::string(p.size() > 2 ? p[2] : "x");
    run.push_back(other);
    run.push_back(built);
    Entry raw; // a file line that continues none of the above
    raw.atMs = built.atMs + 1;
    raw.offset = 7;
    raw.value = std::string(p[0]);
    run.push_back(raw);
    blocksRoundTrip(run, sourceId);
    return 0;
}
