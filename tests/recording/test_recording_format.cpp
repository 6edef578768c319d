// The recording format: every byte a source can deliver comes back exactly; a recorder that was
// killed or ran out of disk leaves a folder that replays what it captured; truncation, a damaged
// line or an edited manifest is an error naming the file and the line.
#include "checkpoint/checksum.hpp"

#include <tideline/engine/recording.hpp>

#include <QTemporaryDir>
#include <QtTest>

#include <csignal>
#include <fstream>
#include <sstream>
#include <sys/resource.h>

using namespace tideline::recording;

namespace {

Manifest twoSources(int version = 2)
{
    Manifest m;
    m.version = version;
    m.pipeline = "clicks";
    m.pipelineSha256 = "abc";
    m.startedAtMs = 1800000000000;
    m.sources = {{"clicks", "source.kafka", 4, 0}, {"users", "source.file", 1, 0}};
    return m;
}

std::string allBytes()
{
    std::string s;
    for (int c = 0; c < 256; ++c)
        s += static_cast<char>(c);
    return s;
}

std::vector<Entry> sampleEntries()
{
    std::vector<Entry> out;
    Entry kafka;
    kafka.atMs = 0;
    kafka.source = 0;
    kafka.partition = 3;
    kafka.offset = 9000000000LL;
    kafka.timestamp = -5;
    kafka.key = std::string("k\tey\\\n");
    kafka.headers = {{"trace=id", "a\\=b\\;c"}, {"", ""}, {"bin", allBytes()}};
    kafka.value = "{\"user\":\"ann\",\"note\":\"tab\tand \\\"quote\\\"\"}";
    out.push_back(kafka);
    Entry line;
    line.atMs = 17;
    line.source = 1;
    line.value = "ann,München,\xE2\x82\xAC,\xFF\xFE bad utf-8,\r";
    out.push_back(line);
    Entry empty;
    empty.atMs = 17;
    empty.source = 0;
    empty.key = std::string();
    empty.value = "";
    out.push_back(empty);
    Entry binary;
    binary.atMs = 2000;
    binary.source = 0;
    binary.partition = 0;
    binary.value = allBytes() + allBytes();
    out.push_back(binary);
    return out;
}

void compareEntries(const Entry &a, const Entry &b)
{
    QCOMPARE(a.atMs, b.atMs);
    QCOMPARE(a.source, b.source);
    QCOMPARE(a.partition, b.partition);
    QCOMPARE(a.offset, b.offset);
    QCOMPARE(a.timestamp, b.timestamp);
    QCOMPARE(a.key, b.key);
    QCOMPARE(a.headers, b.headers);
    QCOMPARE(a.value, b.value);
}

std::string readFile(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

void writeFile(const std::string &path, const std::string &text)
{
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

std::vector<Entry>
readAll(const std::string &dir, std::string &error, std::vector<std::string> *notes = nullptr)
{
    std::vector<Entry> out;
    auto r = Reader::open(dir, error);
    if (!r)
        return out;
    Entry e;
    while (r->next(e))
        out.push_back(e);
    error = r->error();
    if (notes)
        *notes = r->info().notes;
    return out;
}

} // namespace

class TestRecordingFormat : public QObject
{
    Q_OBJECT
    static void versions()
    {
        QTest::addColumn<int>("version");
        QTest::newRow("tideline-recording/1") << 1;
        QTest::newRow("tideline-recording/2") << 2;
    }
private slots:
    void everyByteRoundTrips_data() { versions(); }
    void everyByteRoundTrips()
    {
        QFETCH(int, version);
        QTemporaryDir tmp;
        const std::string dir = tmp.path().toStdString() + "/rec";
        std::string error;
        auto w = Writer::create(dir, twoSources(version), {}, error);
        QVERIFY2(w, error.c_str());
        const auto entries = sampleEntries();
        for (const auto &e : entries)
            QVERIFY(w->add(e));
        QCOMPARE(w->finish("end of input"), std::string());
        // The lines stay one per record: escaped tabs and newlines never split them (/2: and
        // one per block header; the four entries are four blocks, of three kinds).
        const std::string text = readFile(dir + "/records.tsv");
        QCOMPARE(static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')),
                 entries.size() * (version == 1 ? 1 : 2));
        std::vector<std::string> notes;
        auto back = readAll(dir, error, &notes);
        QVERIFY2(error.empty(), error.c_str());
        QVERIFY(notes.empty());
        QCOMPARE(back.size(), entries.size());
        for (std::size_t i = 0; i < entries.size(); ++i)
            compareEntries(back[i], entries[i]);
        auto r = Reader::open(dir, error);
        QVERIFY(r);
        const Manifest &m = r->info().manifest;
        QCOMPARE(m.version, version);
        QVERIFY(m.complete);
        QCOMPARE(m.stoppedBy, std::string("end of input"));
        QCOMPARE(m.records, 4);
        QCOMPARE(m.sources[0].records, 3);
        QCOMPARE(m.sources[1].records, 1);
        QCOMPARE(m.durationMs, 2000);
        QCOMPARE(m.bytes, static_cast<std::int64_t>(text.size()));
    }

    void aFolderWithARecordingIsNotOverwritten()
    {
        QTemporaryDir tmp;
        const std::string dir = tmp.path().toStdString() + "/rec";
        std::string error;
        QVERIFY(Writer::create(dir, twoSources(), {}, error));
        QVERIFY(!Writer::create(dir, twoSources(), {}, error));
        QVERIFY2(error.find("already holds a recording") != std::string::npos, error.c_str());
    }

    void aKilledRecorderLeavesAValidPrefix()
    {
        QTemporaryDir tmp;
        const std::string dir = tmp.path().toStdString() + "/rec";
        std::string error;
        auto w = Writer::create(dir, twoSources(1), {}, error);
        QVERIFY(w);
        const auto entries = sampleEntries();
        for (const auto &e : entries)
            QVERIFY(w->add(e));
        QCOMPARE(w->checkpoint(), std::string()); // what a kill after this point leaves
        const std::string manifest = readFile(dir + "/manifest.json");
        std::string text = readFile(dir + "/records.tsv");
        w.reset(); // (the destructor finishes; put back what the kill left, plus a torn line)
        writeFile(dir + "/manifest.json", manifest);
        writeFile(dir + "/records.tsv", text + text.substr(0, text.find('\n') / 2));
        std::vector<std::string> notes;
        auto back = readAll(dir, error, &notes);
        QVERIFY2(error.empty(), error.c_str());
        QCOMPARE(back.size(), entries.size());
        QCOMPARE(notes.size(), std::size_t(2));
        QVERIFY2(notes[0].find("did not end cleanly") != std::string::npos, notes[0].c_str());
        QVERIFY2(notes[1].find("records.tsv line 5 was cut off") != std::string::npos,
                 notes[1].c_str());
    }

    void aTruncatedCompleteRecordingIsAnError()
    {
        QTemporaryDir tmp;
        const std::string dir = tmp.path().toStdString() + "/rec";
        std::string error;
        auto w = Writer::create(dir, twoSources(1), {}, error);
        for (const auto &e : sampleEntries())
            QVERIFY(w->add(e));
        QCOMPARE(w->finish("end of input"), std::string());
        std::string text = readFile(dir + "/records.tsv");
        writeFile(dir + "/records.tsv", text.substr(0, text.size() - 10));
        readAll(dir, error);
        QVERIFY2(error.find("records.tsv line 4: cut off") != std::string::npos, error.c_str());
        QVERIFY2(error.find("complete with 4 records but 3 whole lines") != std::string::npos,
                 error.c_str());
        // Whole lines missing (cut at a line end) are caught by the count.
        writeFile(dir + "/records.tsv", text.substr(0, text.find('\n') + 1));
        readAll(dir, error);
        QVERIFY2(error.find("complete with 4 records but 1 whole lines") != std::string::npos,
                 error.c_str());
    }

    void aDamagedLineNamesItsLine()
    {
        QTemporaryDir tmp;
        const std::string dir = tmp.path().toStdString() + "/rec";
        std::string error;
        auto w = Writer::create(dir, twoSources(1), {}, error);
        for (const auto &e : sampleEntries())
            QVERIFY(w->add(e));
        QCOMPARE(w->finish("end of input"), std::string());
        std::string text = readFile(dir + "/records.tsv");
        const std::size_t second = text.find('\n') + 1;
        std::string edited = text;
        edited[second + 12] = edited[second + 12] == '1' ? '2' : '1'; // at_ms of line 2
        writeFile(dir + "/records.tsv", edited);
        readAll(dir, error);
        QVERIFY2(error.find("records.tsv line 2: fails its CRC") != std::string::npos,
                 error.c_str());
        edited = text;
        edited.insert(second + 9, "\t");
        writeFile(dir + "/records.tsv", edited);
        readAll(dir, error);
        QVERIFY2(error.find("records.tsv line 2: ") != std::string::npos, error.c_str());
    }

    // tideline-recording/2: a kill can tear only the last block; wherever it was cut, an
    // incomplete recording replays the blocks before it (with a note naming the block) and a
    // complete one is an error.
    void aTornLastBlockIsLeftOutWhereverItIsCut()
    {
        QTemporaryDir tmp;
        const std::string dir = tmp.path().toStdString() + "/rec";
        std::string error;
        auto w = Writer::create(dir, twoSources(), {}, error);
        QVERIFY(w);
        const auto entries = sampleEntries();
        for (const auto &e : entries)
            QVERIFY(w->add(e));
        QCOMPARE(w->checkpoint(), std::string());
        const std::size_t lastStart = readFile(dir + "/records.tsv").size();
        std::vector<Entry> last;
        for (int i = 0; i < 5; ++i) { // one block of five raw lines
            Entry e;
            e.atMs = 3000;
            e.source = 1;
            e.offset = 10 + i;
            e.value = "{\"n\":" + std::to_string(i) + "}";
            last.push_back(e);
            QVERIFY(w->add(e));
        }
        QCOMPARE(w->checkpoint(), std::string());
        const std::string incomplete = readFile(dir + "/manifest.json");
        const std::string text = readFile(dir + "/records.tsv");
        QCOMPARE(w->finish("end of input"), std::string());
        const std::string complete = readFile(dir + "/manifest.json");
        w.reset();
        Block b;
        std::string why;
        QCOMPARE(readBlock(std::string_view(text).substr(lastStart), b, why), BlockCheck::Whole);
        QCOMPARE(b.count, 5);
        QCOMPARE(lastStart + b.size, text.size());
        const std::string where
            = "records.tsv line 9 (block 5 at byte " + std::to_string(lastStart) + ")";
        for (std::size_t cut = lastStart; cut <= text.size(); ++cut) {
            writeFile(dir + "/records.tsv", text.substr(0, cut));
            writeFile(dir + "/manifest.json", incomplete);
            std::vector<std::string> notes;
            auto back = readAll(dir, error, &notes);
            QVERIFY2(error.empty(), (std::to_string(cut) + ": " + error).c_str());
            const bool whole = cut == text.size(), none = cut == lastStart;
            QCOMPARE(back.size(), entries.size() + (whole ? last.size() : 0));
            QCOMPARE(notes.size(), std::size_t(none || whole ? 1 : 2));
            if (!none && !whole)
                QVERIFY2(notes[1].find(where + " was cut off by the interruption")
                             != std::string::npos,
                         notes[1].c_str());
            for (std::size_t i = 0; i < back.size(); ++i)
                compareEntries(back[i], i < entries.size() ? entries[i] : last[i - entries.size()]);
            writeFile(dir + "/manifest.json", complete);
            back = readAll(dir, error, &notes);
            if (whole) {
                QVERIFY2(error.empty(), error.c_str());
                continue;
            }
            QVERIFY2(error.find("complete with 9 records but " + std::to_string(entries.size())
                                + " are in whole blocks")
                         != std::string::npos,
                     error.c_str());
            if (!none)
                QVERIFY2(error.find(where + ": cut off") != std::string::npos, error.c_str());
        }
    }

    void aDamagedBlockNamesItsLineAndByte()
    {
        QTemporaryDir tmp;
        const std::string dir = tmp.path().toStdString() + "/rec";
        std::string error;
        auto w = Writer::create(dir, twoSources(), {}, error);
        for (const auto &e : sampleEntries())
            QVERIFY(w->add(e));
        QCOMPARE(w->finish("end of input"), std::string());
        const std::string text = readFile(dir + "/records.tsv");
        Block first;
        std::string why;
        QCOMPARE(readBlock(text, first, why), BlockCheck::Whole);
        // Block 2 (the file's line) starts on line 3: block 1's header and its one row before.
        const std::string where
            = "records.tsv line 3 (block 2 at byte " + std::to_string(first.size) + "): ";
        Block second;
        QCOMPARE(readBlock(std::string_view(text).substr(first.size), second, why),
                 BlockCheck::Whole);
        std::string edited = text;
        edited[first.size + second.headerSize + 1] ^= 1; // in its payload: the block's CRC
        writeFile(dir + "/records.tsv", edited);
        auto back = readAll(dir, error);
        QCOMPARE(back.size(), std::size_t(1)); // block 1's record was replayed
        QVERIFY2(error.find(where + "its records fail the block's CRC") != std::string::npos,
                 error.c_str());
        edited = text;
        edited[first.size + 12] ^= 1; // in its header (its at_ms): the header's CRC
        writeFile(dir + "/records.tsv", edited);
        readAll(dir, error);
        QVERIFY2(error.find(where + "has a block header that fails its CRC") != std::string::npos,
                 error.c_str());
        edited = text;
        edited.insert(first.size, "x"); // not a block where one must start
        writeFile(dir + "/records.tsv", edited);
        readAll(dir, error);
        QVERIFY2(error.find(where + "does not start a block") != std::string::npos, error.c_str());
    }

    void aDeferredBlockIsCheckedByWhoeverParsesIt()
    {
        // A parallel replay's loop thread hands a whole raw block on unread (peekRun's
        // deferCheck); the worker's checkBlockPayload must give the verdict the reader gives,
        // after the same "where": a bad payload CRC, and a line count the header (its own CRC
        // right) does not match.
        QTemporaryDir tmp;
        const std::string dir = tmp.path().toStdString() + "/rec";
        std::string error;
        auto w = Writer::create(dir, twoSources(), {}, error);
        for (int i = 0; i < 30; ++i) {
            Entry e;
            e.atMs = i / 10; // three raw blocks of ten lines
            e.source = 1;
            e.offset = i + 1;
            e.value = "{\"i\":" + std::to_string(i) + "}";
            QVERIFY(w->add(e));
        }
        QCOMPARE(w->finish("end of input"), std::string());
        const std::string text = readFile(dir + "/records.tsv");
        std::vector<Block> blocks;
        std::string why;
        for (std::size_t at = 0; at < text.size();) {
            Block &b = blocks.emplace_back();
            QCOMPARE(readBlock(std::string_view(text).substr(at), b, why), BlockCheck::Whole);
            at += b.size;
        }
        QCOMPARE(blocks.size(), std::size_t(3));
        const std::size_t second = blocks[0].size; // where block 2 starts
        std::string badCrc = text;
        badCrc[second + blocks[1].headerSize + 2] ^= 1;
        // Block 2 says 11 lines, its header CRC recomputed: only the count check can tell.
        std::string badCount = text.substr(0, second);
        {
            const std::string header = text.substr(second + 10, blocks[1].headerSize - 11);
            std::vector<std::string> f;
            for (std::size_t from = 0;;) {
                const std::size_t tab = header.find('\t', from);
                f.push_back(header.substr(from, tab == std::string::npos ? tab : tab - from));
                if (tab == std::string::npos)
                    break;
                from = tab + 1;
            }
            QCOMPARE(f[3], std::string("10")); // kind, at_ms, source, count, ...
            f[3] = "11";
            std::string rest;
            for (std::size_t k = 0; k < f.size(); ++k)
                rest += (k ? "\t" : "") + f[k];
            char crc[9];
            std::snprintf(crc, sizeof crc, "%08x", tideline::checkpoint::crc32c(rest));
            badCount += "#" + std::string(crc) + "\t" + rest + "\n";
            badCount += text.substr(second + blocks[1].headerSize);
        }
        for (const std::string &edited : {badCrc, badCount}) {
            writeFile(dir + "/records.tsv", edited);
            // The reader's own verdict, checking as it reads.
            std::string readError;
            const auto read = readAll(dir, readError);
            QCOMPARE(read.size(), std::size_t(10)); // block 1's lines, none of block 2's
            QVERIFY(!readError.empty());
            // Deferred: block 1 and block 2 described unchecked, checked here; by a mapped
            // reader (TIDELINE_REPLAY_MAP=1; read() is the default: reader.cpp).
            auto plain = Reader::open(dir, error);
            QVERIFY2(plain && !plain->mapped(), error.c_str());
            qputenv("TIDELINE_REPLAY_MAP", "1");
            auto r = Reader::open(dir, error);
            qunsetenv("TIDELINE_REPLAY_MAP");
            QVERIFY2(r && r->mapped(), error.c_str());
            Reader::RawRun run;
            QCOMPARE(r->peekRun(run, true, true), Reader::Run::Lines);
            QVERIFY(run.unchecked && !run.ends && run.count == 10);
            std::vector<std::size_t> ends;
            const std::string_view payload(run.begin,
                                           static_cast<std::size_t>(run.end - run.begin));
            QVERIFY(checkBlockPayload(payload, run.payloadCrc, run.count, ends, why));
            QCOMPARE(ends, blocks[0].lineEnds);
            r->takeRun();
            QCOMPARE(r->peekRun(run, true, true), Reader::Run::Lines);
            QVERIFY(run.unchecked);
            const std::string_view bad(run.begin, static_cast<std::size_t>(run.end - run.begin));
            QVERIFY(!checkBlockPayload(bad, run.payloadCrc, run.count, ends, why));
            QCOMPARE(r->checkedWhere() + ": " + why, readError);
            // Not deferred, the same block is checked by the reader: the same error.
            QCOMPARE(r->peekRun(run, true, false), Reader::Run::End);
            QCOMPARE(r->error(), readError);
        }
    }

    void recordsAreGroupedIntoBlocks()
    {
        // A file's lines of one millisecond are one raw block; a key or a tombstone, or a
        // line with a newline, are rows of a C block; an end marker is its own block.
        QTemporaryDir tmp;
        const std::string dir = tmp.path().toStdString() + "/rec";
        std::string error;
        auto w = Writer::create(dir, twoSources(), {}, error);
        std::vector<Entry> in;
        for (int i = 0; i < 1000; ++i) {
            Entry e;
            e.atMs = i / 400;
            e.source = 1;
            e.offset = i + 1;
            e.value = std::string(static_cast<std::size_t>(i % 300), 'v');
            in.push_back(e);
        }
        in[500].value = "a\nb"; // a newline in a value (a CSV cell spanning lines: never raw)
        Entry end;
        end.atMs = 2;
        end.source = 1;
        end.end = true;
        in.push_back(end);
        for (const auto &e : in)
            QVERIFY(w->add(e));
        QCOMPARE(w->finish("end of input"), std::string());
        const std::string text = readFile(dir + "/records.tsv");
        QCOMPARE(static_cast<std::int64_t>(text.size()), w->manifest().bytes);
        std::string kinds, why;
        for (std::size_t at = 0; at < text.size();) {
            Block b;
            QCOMPARE(readBlock(std::string_view(text).substr(at), b, why), BlockCheck::Whole);
            kinds += b.kind + std::to_string(b.count) + " ";
            at += b.size;
        }
        // ms 0: 400 lines; ms 1: 100, then the newline's C block of the rest of that ms;
        // ms 2: 200 lines in blocks of up to 64 KiB, then the end.
        QCOMPARE(kinds, std::string("R400 R100 C300 R200 E0 "));
        std::string err;
        auto back = readAll(dir, err);
        QVERIFY2(err.empty(), err.c_str());
        QCOMPARE(back.size(), in.size());
        for (std::size_t i = 0; i + 1 < in.size(); ++i)
            compareEntries(back[i], in[i]);
        QVERIFY(back.back().end);
    }

    void lineEndsAreFoundAtEveryAlignment()
    {
        // readBlock keeps where each line ends (the replay takes lines there, no second newline
        // search): lines of every length from 0 to 99, so that ends fall at every offset of the
        // 16- and 32-byte vector steps, and runs of empty lines, 32 ends in one step.
        QTemporaryDir tmp;
        const std::string dir = tmp.path().toStdString() + "/rec";
        std::string error;
        auto w = Writer::create(dir, twoSources(), {}, error);
        std::vector<Entry> in;
        for (int i = 0; i < 3000; ++i) {
            Entry e;
            e.atMs = i / 1000;
            e.source = 1;
            e.offset = i + 1;
            e.value = i % 500 < 100 ? std::string() : std::string(std::size_t(i % 100), 'x');
            in.push_back(e);
        }
        for (const auto &e : in)
            QVERIFY(w->add(e));
        QCOMPARE(w->finish("end of input"), std::string());
        const std::string text = readFile(dir + "/records.tsv");
        std::string why;
        int blocks = 0;
        for (std::size_t at = 0; at < text.size(); ++blocks) {
            Block b;
            QCOMPARE(readBlock(std::string_view(text).substr(at), b, why), BlockCheck::Whole);
            std::vector<std::size_t> expected;
            for (std::size_t k = 0; k < b.payload.size(); ++k)
                if (b.payload[k] == '\n')
                    expected.push_back(k);
            QCOMPARE(b.lineEnds, expected);
            QCOMPARE(b.lineEnds.size(), std::size_t(b.kind == 'E' ? 0 : b.count));
            at += b.size;
        }
        QVERIFY(blocks >= 3);
        auto back = readAll(dir, error);
        QVERIFY2(error.empty(), error.c_str());
        QCOMPARE(back.size(), in.size());
        for (std::size_t i = 0; i < in.size(); ++i)
            compareEntries(back[i], in[i]);
    }

    void anEditedManifestIsRefused()
    {
        QTemporaryDir tmp;
        const std::string dir = tmp.path().toStdString() + "/rec";
        std::string error;
        auto w = Writer::create(dir, twoSources(), {}, error);
        QVERIFY(w->add(sampleEntries()[0]));
        QCOMPARE(w->finish("end of input"), std::string());
        std::string m = readFile(dir + "/manifest.json");
        m.replace(m.find("\"records\": 1"), 12, "\"records\": 2");
        writeFile(dir + "/manifest.json", m);
        QVERIFY(!Reader::open(dir, error));
        QVERIFY2(error.find("manifest.json: its seal does not match") != std::string::npos,
                 error.c_str());
        writeFile(dir + "/manifest.json", "{\"format\": \"tideline-rec");
        QVERIFY(!Reader::open(dir, error));
        QVERIFY2(error.find("manifest.json: not valid JSON") != std::string::npos, error.c_str());
        QVERIFY(!Reader::open(tmp.path().toStdString() + "/nothing", error));
        QVERIFY2(error.find("is ") != std::string::npos
                     && error.find("a recording folder") != std::string::npos,
                 error.c_str());
    }

    void limitsStopCaptureCleanly_data() { versions(); }
    void limitsStopCaptureCleanly()
    {
        QFETCH(int, version);
        for (const char *which : {"max records", "max bytes", "max duration"}) {
            QTemporaryDir tmp;
            const std::string dir = tmp.path().toStdString() + "/rec";
            Limits limits;
            if (std::string(which) == "max records")
                limits.maxRecords = 2;
            else if (std::string(which) == "max bytes")
                limits.maxBytes = 200;
            else
                limits.maxDurationMs = 100;
            std::string error;
            auto w = Writer::create(dir, twoSources(version), limits, error);
            int added = 0;
            for (const auto &e : sampleEntries()) {
                if (!w->add(e))
                    break;
                ++added;
            }
            QCOMPARE(w->stoppedBy(), std::string(which));
            QCOMPARE(w->finish("end of input"), std::string());
            auto back = readAll(dir, error);
            QVERIFY2(error.empty(), error.c_str());
            QCOMPARE(static_cast<int>(back.size()), added);
            auto r = Reader::open(dir, error);
            QCOMPARE(r->info().manifest.stoppedBy, std::string(which));
            QVERIFY(r->info().manifest.complete);
            if (limits.maxBytes)
                QVERIFY(r->info().manifest.bytes <= 200);
            QCOMPARE(r->info().manifest.bytes,
                     static_cast<std::int64_t>(readFile(dir + "/records.tsv").size()));
        }
    }

    void aFullDiskKeepsWholeLinesOnly_data() { versions(); }
    void aFullDiskKeepsWholeLinesOnly()
    {
        QFETCH(int, version);
        // RLIMIT_FSIZE makes write() fail as a full disk does (EFBIG instead of ENOSPC).
        QTemporaryDir tmp;
        const std::string dir = tmp.path().toStdString() + "/rec";
        std::string error;
        auto w = Writer::create(dir, twoSources(version), {}, error);
        QVERIFY(w);
        Entry big;
        big.source = 1;
        big.value = std::string(300000, 'x');
        QVERIFY(w->add(big));
        QCOMPARE(w->checkpoint(), std::string()); // one whole line on disk
        std::signal(SIGXFSZ, SIG_IGN);
        rlimit old{};
        getrlimit(RLIMIT_FSIZE, &old);
        rlimit small = old;
        small.rlim_cur = 400000;
        setrlimit(RLIMIT_FSIZE, &small);
        bool stopped = false;
        for (int i = 0; i < 10 && !stopped; ++i) {
            big.atMs = i + 1;
            stopped = !w->add(big);
            if (!stopped)
                stopped = !w->checkpoint().empty() || !w->stoppedBy().empty();
        }
        setrlimit(RLIMIT_FSIZE, &old);
        QVERIFY(stopped);
        QVERIFY2(w->stoppedBy().find("write error") != std::string::npos, w->stoppedBy().c_str());
        QCOMPARE(w->finish("end of input"), std::string());
        auto back = readAll(dir, error);
        QVERIFY2(error.empty(), error.c_str());
        QCOMPARE(back.size(), std::size_t(1));
        QCOMPARE(back[0].value, big.value);
        auto r = Reader::open(dir, error);
        QCOMPARE(r->info().manifest.records, 1);
        QCOMPARE(r->info().manifest.sources[1].records, 1);
    }

    void sourcesThatDoNotMatchAreNamed()
    {
        Manifest m = twoSources();
        QVERIFY(sourceMismatches(m, m.sources).empty());
        auto out = sourceMismatches(
            m, {{"clicks", "source.file", 1, 0}, {"orders", "source.kafka", 1, 0}});
        QCOMPARE(out.size(), std::size_t(3));
        QVERIFY(
            out[0].find("`clicks` is source.file in the pipeline but was recorded as source.kafka")
            != std::string::npos);
        QVERIFY(out[1].find("`orders` (source.kafka) is not in the recording")
                != std::string::npos);
        QVERIFY(out[2].find("the recording has source `users`") != std::string::npos);
    }

    void malformedLinesAreRejectedNotMisread()
    {
        Entry e;
        std::string id;
        for (const char *bad : {"", "00000000", "zzzzzzzz\t0\ta\t\\N\t\\N\t\\N\t\\N\t\\N\tv",
                                "00000000\t0\ta\t\\N\t\\N\t\\N\t\\N\t\\N\tv"})
            QVERIFY(!parseLine(bad, e, id).empty());
        std::string line;
        Entry good;
        good.value = "v\\x";
        appendLine(line, good, "a");
        line.pop_back();
        QVERIFY(parseLine(line, e, id).empty());
        QCOMPARE(e.value, good.value);
    }
};

QTEST_GUILESS_MAIN(TestRecordingFormat)
#include "test_recording_format.moc"
