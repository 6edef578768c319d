// The replay's batch hand-over of source.file lines (Feed::nextLines): two replayers of the same
// recording, one asked line by line (Feed::next) and one in batches taken partly or wholly, driven
// by the same random turns, clock steps and continuation reads, hand out the same lines in the
// same order at the same virtual times, with the same counts, end markers and errors. The
// recording mixes two sources, lines with escapes, a key or headers (which the batch path reads
// as whole entries), gaps in time and more than one read buffer of lines.
#include <tideline/engine/record_replay.hpp>
#include <tideline/engine/recording.hpp>
#include <tideline/engine/spec.hpp>

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <random>
#include <set>
#include <sstream>

using namespace tideline;
using namespace tideline::recording;

namespace {

PipelineSpec twoFileSources()
{
    PipelineSpec s;
    s.name = "batch";
    s.nodes.push_back({"a", "source.file", Json::object(), {}});
    s.nodes.push_back({"b", "source.file", Json::object(), {}});
    return s;
}

/// About 40,000 lines (several of the reader's 256 KiB buffers) of two sources, `b` ending
/// first; a few lines with escapes, a key or a `length` header.
void writeRecording(const std::string &dir, int version)
{
    Manifest m;
    m.version = version;
    m.pipeline = "batch";
    m.pipelineSha256 = sha256Hex("batch");
    m.startedAtMs = 1800000000000;
    m.sources = {{"a", "source.file", 1, 0}, {"b", "source.file", 1, 0}};
    std::string error;
    auto w = Writer::create(dir, m, {}, error);
    QVERIFY2(w, error.c_str());
    std::mt19937 rng(19);
    std::int64_t at = 0, line[2] = {0, 0};
    int source = 0;
    for (int i = 0; i < 40000; ++i) {
        if (rng() % 7 == 0)
            source = static_cast<int>(rng() % 2);
        if (i > 30000)
            source = 0;
        if (rng() % 50 == 0)
            at += rng() % 4;
        Entry e;
        e.atMs = at;
        e.source = source;
        e.offset = ++line[source];
        e.value
            = "{\"i\":" + std::to_string(i) + ",\"pad\":\"" + std::string(rng() % 90, 'x') + "\"}";
        switch (rng() % 97) {
        case 0:
            e.value += "\ttab\\slash\nnewline"; // escapes: unescaped into the batch's scratch
            break;
        case 1:
            e.key = "k" + std::to_string(i); // a key: read as an Entry
            break;
        case 2:
            e.headers.emplace_back("length", std::to_string(5000 + i)); // an over-long line
            break;
        case 3:
            e.value.clear(); // a blank line
            break;
        default:
            break;
        }
        QVERIFY(w->add(e));
        if (i == 30000) {
            Entry end;
            end.atMs = at;
            end.source = 1;
            end.end = true;
            QVERIFY(w->add(end));
        }
    }
    Entry end;
    end.atMs = at;
    end.source = 0;
    end.end = true;
    QVERIFY(w->add(end));
    QCOMPARE(w->finish("end of input"), std::string());
}

/// Runs the replay with random turns; one line per event in the returned log.
std::string drive(const std::string &dir, bool batched, std::string &failure)
{
    std::string error;
    auto r = Replayer::open(dir, twoFileSources(), "batch", 0, error);
    if (!r) {
        failure = error;
        return {};
    }
    LineBatch *batch[2] = {nullptr, nullptr};
    std::ostringstream log;
    std::mt19937 rng(7);
    bool ended[2] = {false, false};
    // One take: the log line, or "" when the source has nothing now.
    auto take = [&](int s, bool anyTime) -> std::string {
        std::string_view value;
        std::optional<std::int64_t> offset;
        std::string headers;
        if (batched) {
            // The feed's one batch: another source's lines left in it are not this one's.
            if (!batch[s] || batch[s]->source != s || !batch[s]->left()) {
                const Feed::Next n = r->nextLines(s, anyTime, batch[s]);
                if (n != Feed::Next::Entry) {
                    ended[s] |= n == Feed::Next::End;
                    return {};
                }
            }
            LineBatch &b = *batch[s];
            const LineBatch::Line l = b.take();
            value = l.value;
            offset = l.offset;
            if (l.entry)
                for (const auto &[k, v] : l.entry->headers)
                    headers += k + "=" + v + ";";
        } else {
            const Entry *e = nullptr;
            const Feed::Next n = r->next(s, anyTime, e);
            if (n != Feed::Next::Entry) {
                ended[s] |= n == Feed::Next::End;
                return {};
            }
            value = e->value;
            offset = e->offset;
            for (const auto &[k, v] : e->headers)
                headers += k + "=" + v + ";";
        }
        std::ostringstream out;
        out << r->clock().nowMs() << ' ' << s << ' ' << offset.value_or(-1) << ' ' << headers << ' '
            << value << '\n';
        return out.str();
    };
    try {
        while (!ended[0] || !ended[1]) {
            const int s = static_cast<int>(rng() % 2);
            const int budget = 1 + static_cast<int>(rng() % 300);
            for (int k = 0; k < budget && !ended[s]; ++k) {
                const std::string got = take(s, rng() % 13 == 0); // now and then a continuation
                if (got.empty())
                    break;
                log << got;
            }
            log << "turn " << r->replayed() << '\n';
            if (rng() % 3 == 0)
                r->clock().sleepMs(static_cast<std::int64_t>(rng() % 3));
        }
    } catch (const std::exception &e) {
        log << "error " << e.what() << '\n';
    }
    log << "replayed " << r->replayed() << '\n';
    return log.str();
}

std::string readFile(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

} // namespace

class TestReplayBatch : public QObject
{
    Q_OBJECT
    static void versions()
    {
        QTest::addColumn<int>("version");
        QTest::newRow("tideline-recording/1") << 1;
        QTest::newRow("tideline-recording/2") << 2;
    }

private slots:
    void batchesHandOutWhatNextDoes_data() { versions(); }
    void batchesHandOutWhatNextDoes()
    {
        QFETCH(int, version);
        QTemporaryDir tmp;
        const std::string dir = tmp.path().toStdString() + "/rec";
        writeRecording(dir, version);
        std::string failure;
        const std::string lines = drive(dir, false, failure);
        QVERIFY2(failure.empty(), failure.c_str());
        const std::string batches = drive(dir, true, failure);
        QVERIFY2(failure.empty(), failure.c_str());
        QVERIFY(lines.find("replayed 40000\n") != std::string::npos);
        QVERIFY(lines.find("error") == std::string::npos);
        QCOMPARE(batches, lines);
    }

    void aDamagedLineFailsAfterTheLinesBeforeIt_data() { versions(); }
    void aDamagedLineFailsAfterTheLinesBeforeIt()
    {
        QFETCH(int, version);
        QTemporaryDir tmp;
        const std::string dir = tmp.path().toStdString() + "/rec";
        writeRecording(dir, version);
        std::string text = readFile(dir + "/records.tsv");
        std::size_t at = 0;
        for (int i = 0; i < 20000; ++i) // into line 20001's value (/2: a line of a block)
            at = text.find('\n', at) + 1;
        at = text.find("\"i\"", at) + 1;
        text[at] = 'j';
        std::ofstream(dir + "/records.tsv", std::ios::binary | std::ios::trunc) << text;
        std::string failure;
        const std::string lines = drive(dir, false, failure);
        const std::string batches = drive(dir, true, failure);
        // /1: the line; /2: the block it is in (its records are not replayed).
        const std::string want = version == 1 ? "records.tsv line 20001: fails its CRC"
                                              : "its records fail the block's CRC";
        QVERIFY2(lines.find(want) != std::string::npos,
                 lines.substr(lines.size() - std::min<std::size_t>(lines.size(), 300)).c_str());
        QCOMPARE(batches, lines);
    }

    // Feed::nextBlock (the fused replay at parallelism > 1): a /2 recording's whole raw blocks
    // are handed over unread whether it is read (the default) or mapped; a read one's block
    // views the reader's buffer (rawStays false: the taker copies it). Every block's payload
    // passes its own check, and blocks plus batches replay every record once.
    void wholeBlocksComeReadOrMapped_data()
    {
        QTest::addColumn<bool>("mapped");
        QTest::newRow("read") << false;
        QTest::newRow("mapped (TIDELINE_REPLAY_MAP=1)") << true;
    }
    void wholeBlocksComeReadOrMapped()
    {
        QFETCH(bool, mapped);
        QTemporaryDir tmp;
        const std::string dir = tmp.path().toStdString() + "/rec";
        writeRecording(dir, 2);
        std::string error;
        if (mapped)
            qputenv("TIDELINE_REPLAY_MAP", "1");
        auto r = Replayer::open(dir, twoFileSources(), "batch", 0, error);
        qunsetenv("TIDELINE_REPLAY_MAP");
        QVERIFY2(r, error.c_str());
        int blocks = 0;
        bool ended[2] = {false, false};
        // Every other block's share is held to the end (as a chunk in flight holds it while
        // the reader reads on), the others' dropped at once (their buffers are reused): the
        // held blocks' bytes must still be what was read.
        struct Held
        {
            std::shared_ptr<const void> keep;
            std::string_view payload;
            std::uint32_t crc;
            std::int64_t count;
        };
        std::vector<Held> held;
        for (int turn = 0; turn < 400000 && !(ended[0] && ended[1]); ++turn) {
            const int s = turn % 2;
            if (ended[s])
                continue;
            LineBatch *b = nullptr;
            const Feed::Whole whole = r->nextBlock(s, b);
            if (whole == Feed::Whole::Taken) {
                ++blocks;
                QCOMPARE(b->rawStays, mapped);
                QCOMPARE(b->rawKeep == nullptr, mapped); // read: parsed where it was read
                QVERIFY(b->rawUnchecked && b->taken == b->count);
                std::vector<std::size_t> ends;
                std::string why;
                const std::string_view payload(b->rawAt,
                                               static_cast<std::size_t>(b->rawEnd - b->rawAt));
                QVERIFY2(checkBlockPayload(payload, b->rawCrc, b->count, ends, why), why.c_str());
                QCOMPARE(ends.size(), static_cast<std::size_t>(b->count));
                if (blocks % 2)
                    held.push_back({std::move(b->rawKeep), payload, b->rawCrc, b->count});
                else
                    b->rawKeep.reset();
                continue;
            }
            if (whole == Feed::Whole::NotDue) {
                (void)r->skipToNext(s);
                continue;
            }
            const Feed::Next n = r->nextLines(s, true, b);
            if (n == Feed::Next::End)
                ended[s] = true;
            else if (n == Feed::Next::Entry)
                while (b->left())
                    (void)b->take();
        }
        QVERIFY(ended[0] && ended[1]);
        QVERIFY2(blocks > 10, std::to_string(blocks).c_str());
        QCOMPARE(r->replayed(), std::int64_t(40000));
        if (!mapped) { // the reader read on into other buffers while shares were held
            std::set<const void *> buffers;
            for (const Held &h : held)
                buffers.insert(h.keep.get());
            QVERIFY2(buffers.size() >= 3, std::to_string(buffers.size()).c_str());
        }
        for (const Held &h : held) {
            std::vector<std::size_t> ends;
            std::string why;
            QVERIFY2(checkBlockPayload(h.payload, h.crc, h.count, ends, why), why.c_str());
        }
    }
};

QTEST_GUILESS_MAIN(TestReplayBatch)
#include "test_replay_batch.moc"
