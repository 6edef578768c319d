// source.file: JSON lines or CSV, read in file order. Malformed lines go to `errors` with the
// file and line; blank lines are skipped. Position (byte offset + line) is the checkpoint,
// with the file's identity (input_identity.hpp): a restore refuses a file that was replaced,
// rewritten or shortened since, instead of resuming mid-line in other data.
//
// With parallelism > 1 the lines are parsed on the job's workers in chunks (file_chunks.hpp),
// handed out here in file order: the same records and errors, line numbers included.
//
// State layout: offset, line, held-back flag [, record], then (since identities) the tag 'I'
// and the identity. Checkpoints without the tag (older builds) restore without the check.

#include "operators/fusable.hpp"
#include "operators/operators.hpp"
#include "operators/params.hpp"
#include "operators/sources/file_chunks.hpp"
#include "operators/sources/input_identity.hpp"
#include "operators/sources/line_reader.hpp"
#include "operators/sources/pacer.hpp"

#include <tideline/engine/record_json.hpp>
#include <tideline/engine/record_replay.hpp>

namespace tideline {

namespace {

class FileSource final : public SourceOperator,
                         public sources::ChunkedSource,
                         public fusable::SplittableFile
{
public:
    explicit FileSource(const OperatorContext &ctx)
        : m_nodeId(ctx.spec.id)
        , m_path(ctx.path(NodeParams(ctx).string("path")))
        , m_displayPath(NodeParams(ctx).string("path"))
        , m_csv(NodeParams(ctx).string("format") == "csv")
        // A replay is paced by the recording (the times its lines arrived), not by `pace`.
        , m_pacer(ctx.feed ? Json::object() : ctx.spec.params.value("pace", Json::object()),
                  ctx.clock)
        , m_capture(ctx.capture)
        , m_feed(ctx.feed)
    {
        if (!m_feed)
            m_paceTimeField = NodeParams(ctx).object("pace").string("time_field");
    }

    void open() override
    {
        if (m_feed) { // --replay: the recorded lines instead of the file
            const int source = m_feed->sourceIndex(m_nodeId);
            if (source < 0)
                throw ConfigError("the recording has no input for this source");
            m_feedSource = source;
            m_reader.replay(m_feed, source);
            if (m_csv)
                readHeader();
            return;
        }
        std::string err = m_reader.open(m_path, m_parser.limits().maxBytes);
        if (!err.empty())
            throw ConfigError("params.path: cannot open " + m_path + ": " + err
                              + " (relative paths resolve against the pipeline file's folder)");
        if (m_capture) // --record: every line as read, the CSV header too
            m_reader.record(m_capture, m_capture->declare(m_nodeId, 1));
        if (m_csv)
            readHeader();
    }

    bool runChunksOn(sources::ChunkRunner &runner) override
    {
        // A replay's lines come from the recording, a recording wants them as read, pacing
        // holds lines back, a pipe cannot be read at offsets: those stay on the loop thread.
        if (m_feed || m_capture || m_pacer.active() || m_reader.fd() < 0
            || !sources::FileChunkReader::splittable(m_reader.fd()))
            return false;
        sources::FileChunkConfig cfg;
        cfg.fd = m_reader.fd();
        cfg.path = m_displayPath;
        cfg.csv = m_csv ? &m_csvReader : nullptr;
        cfg.maxLine = m_parser.limits().maxBytes;
        m_chunks = std::make_unique<sources::FileChunkReader>(runner, cfg, m_reader.offset(),
                                                              m_reader.lineNumber());
        return true;
    }

    bool fuse(sources::FileChunkConfig &cfg, std::uint64_t &offset, std::uint64_t &line) override
    {
        if (m_feed || m_capture || m_pacer.active() || m_reader.fd() < 0
            || !sources::FileChunkReader::splittable(m_reader.fd()))
            return false;
        m_chunks.reset(); // (TIDELINE_PARALLEL_SOURCES: nothing was issued before the first poll)
        cfg.fd = m_reader.fd();
        cfg.path = m_displayPath;
        cfg.csv = m_csv ? &m_csvReader : nullptr;
        cfg.maxLine = m_parser.limits().maxBytes;
        offset = m_reader.offset();
        line = m_reader.lineNumber();
        return true;
    }
    bool fuseReplay(sources::FileChunkConfig &cfg) override
    {
        if (!m_feed || m_csv || m_capture)
            return false;
        cfg.fd = -1; // the lines come from takeLines, not from the file
        cfg.csv = nullptr;
        cfg.maxLine = m_parser.limits().maxBytes;
        return true;
    }
    Take takeLines(sources::LineList &out, std::size_t maxBytes, bool ahead) override
    {
        std::string_view line;
        std::uint64_t fullLength = 0;
        const std::size_t had = out.lines.size();
        while (out.bytes < maxBytes) {
            // A whole recorded block first: the loop thread hands it on unread.
            const std::uint64_t before = m_reader.lineNumber();
            recording::LineBatch *block = nullptr;
            switch (m_reader.takeBlock(block)) {
            case recording::Feed::Whole::Taken: {
                sources::LineList::Line &l = out.lines.emplace_back();
                l.block = true;
                l.at = out.blocks.size();
                sources::LineList::Block &b = out.blocks.emplace_back();
                b.payload = std::string_view(
                    block->rawAt, static_cast<std::size_t>(block->rawEnd - block->rawAt));
                // Read, not mapped: the share keeps the reader's buffer as it is until the
                // chunk is cleared (the reader reads on into another one meanwhile).
                b.keep = std::move(block->rawKeep);
                b.count = block->count;
                b.crc = block->rawCrc;
                b.firstLine = block->rawHasOffset ? static_cast<std::uint64_t>(block->rawOffset)
                                                  : before + 1;
                b.where = block->rawWhere;
                out.bytes += b.payload.size();
                continue;
            }
            case recording::Feed::Whole::NotDue:
                if (ahead && m_feed->skipToNext(m_feedSource))
                    continue;
                return out.lines.size() > had ? Take::Lines : Take::Pending;
            case recording::Feed::Whole::No:
                break;
            }
            const auto r = m_reader.next(line, fullLength);
            if (r == LineReader::Result::Pending) {
                if (ahead && m_feed->skipToNext(m_feedSource))
                    continue;
                return out.lines.size() > had ? Take::Lines : Take::Pending;
            }
            if (r == LineReader::Result::End) {
                if (!m_reader.error().empty())
                    throw std::runtime_error("reading " + m_path + ": " + m_reader.error());
                return out.lines.size() > had ? Take::Lines : Take::End;
            }
            sources::LineList::Line &l = out.lines.emplace_back();
            l.size = line.size();
            l.number = m_reader.lineNumber();
            l.tooLong = r == LineReader::Result::TooLong;
            l.length = fullLength;
            out.bytes += line.size();
            if (m_reader.lineStays()) {
                l.stays = line.data();
            } else {
                l.at = out.text.size();
                out.text.append(line);
            }
        }
        return Take::Lines;
    }
    void resumeAt(std::uint64_t offset, std::uint64_t line) override
    {
        if (!m_reader.seek(offset, line))
            throw std::runtime_error("cannot seek " + m_path + " to byte "
                                     + std::to_string(offset));
    }
    std::string where(std::uint64_t line, bool tooLong, std::uint64_t length) const override
    {
        std::string w = m_displayPath + ":" + std::to_string(line);
        if (tooLong)
            w += " (" + std::to_string(length) + " bytes, limit "
                 + std::to_string(m_parser.limits().maxBytes) + ")";
        return w;
    }
    std::string readFailure(const std::string &error) const override
    {
        return "reading " + m_path + ": " + error;
    }

    Poll poll(Output &out, int maxRecords) override
    {
        int n = m_pacer.allowance(maxRecords);
        if (n == 0)
            return Poll::Waiting;
        int produced = 0;
        if (m_chunks) {
            if (pollChunks(out, n, produced))
                return produced ? Poll::Produced : Poll::Finished;
            // A CSV record spans lines: on from its first line, here.
        }
        std::string_view line;
        std::uint64_t fullLength = 0;
        while (produced < n) {
            if (m_heldBack) {
                if (!m_pacer.dueAt(m_held.get(m_paceTimeField).i))
                    return produced ? Poll::Produced : Poll::Waiting;
                m_heldBack = false;
                out.emit(0, std::move(m_held));
                ++produced;
                m_pacer.emitted();
                continue;
            }
            auto r = m_reader.next(line, fullLength);
            if (r == LineReader::Result::Pending) [[unlikely]] // a replay: not due yet
                return produced ? Poll::Produced : Poll::Waiting;
            if (r == LineReader::Result::End) {
                if (!m_reader.error().empty())
                    throw std::runtime_error("reading " + m_path + ": " + m_reader.error());
                break;
            }
            m_recordLine = m_reader.lineNumber();
            if (r == LineReader::Result::TooLong) {
                out.emitError("record_too_large", Record{}, kMinTime, line,
                              where() + " (" + std::to_string(fullLength) + " bytes, limit "
                                  + std::to_string(m_parser.limits().maxBytes) + ")");
                ++produced;
                continue;
            }
            if (m_reader.lineNumber() == 1 && line.substr(0, 3) == sources::kByteOrderMark)
                line.remove_prefix(3); // a UTF-8 byte order mark is not part of the data
            if (sources::isBlankLine(line))
                continue;
            if (m_csv && line.find('"') != std::string_view::npos) {
                // RFC 4180: a quoted cell may span lines; join them (with '\n') first.
                CsvReader::QuoteScan scan;
                scan.feed(line);
                if (scan.open()) {
                    if (!joinCsvLines(line, scan, out)) {
                        ++produced; // it went to `errors`
                        continue;
                    }
                    line = m_joined;
                }
            }
            // One record object parses every line: when downstream did not keep the last one
            // (stateless pipelines), its buffers are still here and nothing is allocated.
            Record &rec = m_rec;
            bool ok = m_csv ? m_csvReader.parse(line, rec, m_error)
                            : m_parser.parse(line, rec, m_error);
            if (!ok) {
                out.emitError(m_error, Record{}, kMinTime, line, where());
                ++produced;
                continue;
            }
            if (m_pacer.bySpeed() && !m_paceTimeField.empty()
                && !m_pacer.dueAt(rec.get(m_paceTimeField).i)) {
                m_held = std::move(rec);
                m_heldBack = true;
                return produced ? Poll::Produced : Poll::Waiting;
            }
            out.emit(0, std::move(rec));
            ++produced;
            m_pacer.emitted();
        }
        return produced ? Poll::Produced : Poll::Finished;
    }

    void snapshotState(StateWriter &w) const override
    {
        InputIdentity id;
        if (std::string e
            = InputIdentity::capture(m_reader.fd(), m_reader.offset(), &m_identity, id);
            !e.empty())
            throw std::runtime_error("reading " + m_path + " at byte "
                                     + std::to_string(m_reader.offset()) + " for the checkpoint: "
                                     + e + " (was it truncated while being read?)");
        m_identity = id;
        w.u64(m_reader.offset());
        w.u64(m_reader.lineNumber());
        w.u8(m_heldBack ? 1 : 0);
        if (m_heldBack)
            w.record(m_held);
        w.u8(kIdentityTag);
        id.write(w);
    }
    void restoreState(StateReader &r) override
    {
        std::uint64_t offset = r.u64();
        std::uint64_t line = r.u64();
        m_heldBack = r.u8() != 0;
        if (m_heldBack)
            r.record(m_held);
        if (r.failed())
            return; // reported by the caller
        if (!r.atEnd()) {
            InputIdentity id;
            if (r.u8() != kIdentityTag || !id.read(r) || id.offset != offset)
                throw std::runtime_error("the saved position in " + m_displayPath
                                         + " is not in a layout this build reads");
            if (std::string why = id.differences(m_reader.fd()); !why.empty())
                throw std::runtime_error(
                    m_displayPath + " is not the file the checkpoint read up to byte "
                    + std::to_string(offset) + ": " + why
                    + ". Put the original file back (appending to it is fine), or rerun with "
                      "--reset-state "
                    + m_nodeId
                    + " to read this file from its start (the other nodes keep their state), "
                      "or with --fresh to start the whole pipeline over");
            m_identity = id;
        }
        if (!m_reader.seek(offset, line))
            throw std::runtime_error("cannot seek " + m_path + " to byte "
                                     + std::to_string(offset));
    }
    std::string stateFingerprint() const override { return "file/" + m_displayPath; }

private:
    /// Hands out the chunks' records and errors; false when the rest of the file is to be
    /// read on the loop thread (the reader is then positioned there).
    bool pollChunks(Output &out, int n, int &produced)
    {
        Record *rec = nullptr;
        const sources::ChunkLineError *err = nullptr;
        std::uint64_t line = 0;
        while (produced < n) {
            switch (m_chunks->next(rec, err, line)) {
            case sources::FileChunkReader::Next::Record:
                out.emit(0, std::move(*rec));
                break;
            case sources::FileChunkReader::Next::Error: {
                std::string w = m_displayPath + ":" + std::to_string(line);
                if (err->tooLong)
                    w += " (" + std::to_string(err->length) + " bytes, limit "
                         + std::to_string(m_parser.limits().maxBytes) + ")";
                out.emitError(err->reason, Record{}, kMinTime, err->raw, w);
                break;
            }
            case sources::FileChunkReader::Next::End:
                if (!m_chunks->readError().empty())
                    throw std::runtime_error("reading " + m_path + ": " + m_chunks->readError());
                return true;
            case sources::FileChunkReader::Next::Sequential:
                if (!m_reader.seek(m_chunks->resumeOffset(), m_chunks->resumeLine()))
                    throw std::runtime_error("cannot seek " + m_path + " to byte "
                                             + std::to_string(m_chunks->resumeOffset()));
                m_chunks.reset();
                return false;
            }
            ++produced;
        }
        return true;
    }
    std::string where() const
    {
        std::string w = m_displayPath + ":" + std::to_string(m_recordLine);
        if (m_reader.lineNumber() > m_recordLine)
            w += "-" + std::to_string(m_reader.lineNumber());
        return w;
    }
    /// Reads the following lines of a CSV record whose quoted cell is still open into
    /// m_joined. False when it cannot be completed (unclosed at the end of the file, or longer
    /// than the record limit): the record then went to `errors`.
    bool joinCsvLines(std::string_view first, CsvReader::QuoteScan &scan, Output &out)
    {
        m_joined.assign(first);
        const std::size_t limit = m_parser.limits().maxBytes;
        std::string_view next;
        std::uint64_t length = 0;
        while (scan.open()) {
            auto r = m_reader.next(next, length, false);
            if (r == LineReader::Result::End) {
                if (!m_reader.error().empty())
                    throw std::runtime_error("reading " + m_path + ": " + m_reader.error());
                out.emitError("unclosed quote: the quoted cell runs to the end of the file",
                              Record{}, kMinTime, m_joined, where());
                return false;
            }
            if (r == LineReader::Result::TooLong || m_joined.size() + 1 + next.size() > limit) {
                out.emitError("record_too_large", Record{}, kMinTime, m_joined,
                              where() + " (a quoted cell spans lines beyond the limit of "
                                  + std::to_string(limit) + " bytes)");
                return false;
            }
            m_joined += '\n';
            m_joined.append(next);
            scan.feed("\n");
            scan.feed(next);
        }
        return true;
    }
    void readHeader()
    {
        std::string_view line;
        std::uint64_t len = 0;
        auto r = m_reader.next(line, len, false);
        std::string err;
        if (r == LineReader::Result::Line) {
            CsvReader::QuoteScan scan;
            scan.feed(line);
            std::string header(line);
            while (scan.open() && header.size() < m_parser.limits().maxBytes) {
                std::string_view next;
                if (m_reader.next(next, len, false) != LineReader::Result::Line)
                    break;
                header += '\n';
                header.append(next);
                scan.feed("\n");
                scan.feed(next);
            }
            m_joined = std::move(header);
            line = m_joined;
        }
        if (r != LineReader::Result::Line || !m_csvReader.setHeader(line, err))
            throw ConfigError("params.path: " + m_path + " has no usable CSV header line"
                              + (err.empty() ? "" : ": " + err));
    }

    static constexpr std::uint8_t kIdentityTag = 'I';

    std::string m_nodeId;
    std::string m_path;
    std::string m_displayPath;
    bool m_csv;
    /// The last identity written (its head CRC is reused once the first 64 KiB are read).
    mutable InputIdentity m_identity;
    Pacer m_pacer;
    recording::Capture *m_capture;
    recording::Feed *m_feed;
    int m_feedSource = -1; ///< this source's index in the replay's recording
    std::string m_paceTimeField;
    LineReader m_reader;
    RecordParser m_parser;
    CsvReader m_csvReader;
    std::string m_error;
    Record m_rec;
    Record m_held;
    bool m_heldBack = false;
    std::uint64_t m_recordLine = 0; ///< first line of the record being read
    std::string m_joined;           ///< a CSV record of several lines
    /// Parallelism > 1: the chunks parsed on the workers (null: read here, line by line).
    std::unique_ptr<sources::FileChunkReader> m_chunks;
};

} // namespace

std::unique_ptr<Operator> makeFileSource(const OperatorContext &ctx)
{
    return std::make_unique<FileSource>(ctx);
}

void validateFileSource(const NodeValidationContext &ctx)
{
    // pace.speed replays event time, which a file source reads from pace.time_field (it runs
    // before any watermark node). Without it the run went flat out without a word.
    const NodeSpec &n = ctx.spec.nodes[static_cast<std::size_t>(ctx.nodeIndex)];
    auto pace = n.params.find("pace");
    if (pace == n.params.end() || !pace->is_object() || !pace->contains("speed")
        || !(*pace)["speed"].is_number() || (*pace)["speed"].get<double>() <= 0)
        return;
    if (auto tf = pace->find("time_field");
        tf != pace->end() && tf->is_string() && !tf->get<std::string>().empty())
        return;
    std::string suggestion;
    for (const auto &e : ctx.spec.edges) {
        if (e.from.node != n.id)
            continue;
        const int to = ctx.spec.nodeIndex(e.to.node);
        if (to < 0)
            continue;
        const NodeSpec &next = ctx.spec.nodes[static_cast<std::size_t>(to)];
        const NodeKind *nextKind = findNodeKind(next.kind);
        if (nextKind && nextKind->assignsEventTime && next.params.contains("time_field")
            && next.params["time_field"].is_string()) {
            suggestion = next.params["time_field"].get<std::string>();
            break;
        }
    }
    ctx.error("pace.time_field",
              "pace.speed replays event time, so it needs `time_field` (the field holding each "
              "record's epoch-ms event time)"
                  + (suggestion.empty() ? std::string(": set it, or pace by records_per_s")
                                        : ": set it to \"" + suggestion
                                              + "\", the time_field of the watermark node after "
                                                "this source"));
}

} // namespace tideline
