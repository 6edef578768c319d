// operators/sources/file_chunks.cpp: a file cut into ranges of any size, each range's lines
// made by a FileChunk read a slice at a time, gives back every line once and in order: lines
// that cross a slice or a range's end, lines longer than a slice, a line over the limit, blank
// lines, the byte order mark and a last line without a newline. Each chunk's resumeOffset is
// the start of the first line after its own. The newline search they use is memchr's.

#include "operators/sources/file_chunks.hpp"
#include "operators/sources/line_reader.hpp"

#include <QTemporaryDir>
#include <QtTest>

#include <cstring>
#include <fcntl.h>
#include <string>
#include <unistd.h>
#include <vector>

using namespace tideline;
using namespace tideline::sources;

namespace {

struct Expected
{
    std::vector<std::string> ids;          ///< "i" of each record, in order
    std::vector<std::uint64_t> tooLong;    ///< lengths of the lines over the limit, in order
    std::vector<std::uint64_t> lineStarts; ///< offset of every line (blank ones too)
    std::uint64_t size = 0;
};

/// The file: lines of lengths that cross 64 KiB slices and 4 KiB tails in every way.
std::string makeFile(std::size_t maxLine, Expected &e)
{
    std::string text = "\xEF\xBB\xBF"; // a byte order mark before the first line
    const std::size_t pads[] = {0, 10, 130, 4000, 5000, 70000, 131072, 65500, 1, 300};
    int id = 0;
    for (int round = 0; round < 30; ++round) {
        for (std::size_t pad : pads) {
            e.lineStarts.push_back(text.size());
            if (round % 7 == 3 && pad == 10) {
                text += "   \n"; // blank: skipped
                continue;
            }
            const std::string line = "{\"i\":\"" + std::to_string(id) + "\",\"pad\":\""
                                     + std::string(pad, 'x') + "\"}";
            if (round % 11 == 5 && pad == 131072) {
                const std::string big(maxLine + 9000, 'y'); // over the limit
                text += big + "\n";
                e.tooLong.push_back(big.size());
                continue;
            }
            e.ids.push_back(std::to_string(id++));
            text += line + "\n";
        }
    }
    e.lineStarts.push_back(text.size());
    text += "{\"i\":\"last\"}"; // no newline at the end
    e.ids.push_back("last");
    e.size = text.size();
    return text;
}

} // namespace

class TestFileChunks : public QObject
{
    Q_OBJECT

private slots:
    void findNewlineIsMemchr()
    {
        // The line splitter of LineReader and FileChunk (line_reader.hpp): the first '\n' or
        // null, as memchr gives it, for every start and length around its 32-byte steps, with
        // newlines at every place in a step and bytes that differ from '\n' by one bit.
        std::string buf(200, 'x');
        for (std::size_t i = 0; i < buf.size(); ++i)
            buf[i] = static_cast<char>("ab\x0b\x8a\t{}\"0"[i % 9]);
        for (std::size_t nlAt :
             {std::size_t(0), std::size_t(1), std::size_t(15), std::size_t(16), std::size_t(31),
              std::size_t(32), std::size_t(33), std::size_t(63), std::size_t(64), std::size_t(100),
              std::size_t(199), std::size_t(1000)}) {
            std::string b = buf;
            if (nlAt < b.size())
                b[nlAt] = '\n';
            if (nlAt + 40 < b.size())
                b[nlAt + 40] = '\n'; // a second one: the first is found
            for (std::size_t from = 0; from < 70; ++from)
                for (std::size_t to = from; to <= b.size(); ++to) {
                    const char *p = b.data() + from;
                    const char *end = b.data() + to;
                    const void *want = std::memchr(p, '\n', to - from);
                    if (findNewline(p, end) != want)
                        QFAIL(qPrintable(
                            QStringLiteral("newline at %1, [%2, %3)").arg(nlAt).arg(from).arg(to)));
                }
        }
    }

    void everyLineOnceWhateverTheRanges_data()
    {
        QTest::addColumn<qulonglong>("range");
        QTest::newRow("1 KiB") << qulonglong(1024);
        QTest::newRow("7 KiB") << qulonglong(7 * 1024 + 3);
        QTest::newRow("64 KiB") << qulonglong(64 * 1024);
        QTest::newRow("100 KiB") << qulonglong(100 * 1024 + 17);
        QTest::newRow("512 KiB") << qulonglong(512 * 1024);
        QTest::newRow("whole file") << qulonglong(0);
    }

    void everyLineOnceWhateverTheRanges()
    {
        QFETCH(qulonglong, range);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string path = dir.filePath("lines.jsonl").toStdString();
        FileChunkConfig cfg;
        cfg.maxLine = 200 * 1024;
        Expected want;
        {
            const std::string text = makeFile(cfg.maxLine, want);
            FILE *f = std::fopen(path.c_str(), "wb");
            QVERIFY(f);
            QCOMPARE(std::fwrite(text.data(), 1, text.size(), f), text.size());
            std::fclose(f);
        }
        cfg.fd = ::open(path.c_str(), O_RDONLY);
        QVERIFY(cfg.fd >= 0);

        std::vector<std::string> ids;
        std::vector<std::uint64_t> tooLong;
        std::uint64_t lines = 0;
        FileChunk chunk(cfg);
        for (std::uint64_t begin = 0; begin < want.size;) {
            const bool last = range == 0 || want.size - begin <= range;
            const std::uint64_t end = last ? FileChunk::kToEnd : begin + range;
            chunk.assign(begin, end, begin == 0, begin == 0);
            chunk.run();
            QVERIFY2(chunk.readError.empty(), chunk.readError.c_str());
            QVERIFY(!chunk.stop);
            for (const ChunkLineError &e : chunk.errors) {
                QVERIFY(e.tooLong);
                tooLong.push_back(e.length);
            }
            for (const Record &r : chunk.records)
                ids.push_back(std::string(r.get("i").s));
            lines += chunk.lines;
            if (last) {
                QCOMPARE(chunk.endOffset, want.size);
                break;
            }
            // The first line after this chunk's: the first line start at or after `end`,
            // or 0 when no line starts in the range.
            std::uint64_t next = 0;
            bool startsIn = false;
            for (std::uint64_t s : want.lineStarts) {
                startsIn = startsIn || (s >= begin && s < end);
                if (s >= end) {
                    next = s;
                    break;
                }
            }
            QCOMPARE(chunk.resumeOffset, startsIn ? next : 0);
            begin = end;
        }
        ::close(cfg.fd);
        QCOMPARE(ids, want.ids);
        QCOMPARE(tooLong, want.tooLong);
        QCOMPARE(lines, std::uint64_t(want.lineStarts.size()));
    }
};

QTEST_APPLESS_MAIN(TestFileChunks)
#include "test_file_chunks.moc"
