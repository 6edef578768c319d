// runtime/made_again.cpp: a late record of the fused path, made again on its instance's thread.
// A file range's line is read again from the file at the item's offset and is the record the
// chunk read; a file that only grew still gives it; a file rewritten (another event time, a
// line that no longer parses) or cut short fails with the path and the fix instead of making
// another record. A replay's line comes from the round's copy.

#include "operators/sources/file_chunks.hpp"
#include "runtime/made_again.hpp"

#include <tideline/engine/record_json.hpp>

#include <QTemporaryDir>
#include <QtTest>

#include <fcntl.h>
#include <stdexcept>
#include <string>
#include <unistd.h>

using namespace tideline;
using namespace tideline::parallel;

namespace {

/// The watermark node's event time: the integer field "t".
class FieldTime final : public fusable::PrefixWatermark
{
public:
    bool prefixMax(Timestamp &delay) const override
    {
        delay = 0;
        return true;
    }
    bool eventTime(const Record &rec, Timestamp &t, std::string &why) const override
    {
        const Value v = rec.get("t");
        if (v.type != ValueType::Int) {
            why = "no t";
            return false;
        }
        t = v.i;
        return true;
    }
    const std::string &timeField() const override { return m_field; }
    void advanceTo(Timestamp, Output &) override {}
    Timestamp emitted() const override { return kMinTime; }

private:
    std::string m_field = "t";
};

const std::string kFirst = "{\"t\":1000,\"k\":\"a\",\"v\":1}\n";
const std::string kLate = "{\"t\":500,\"k\":\"b\",\"v\":2}"; // at kFirst.size()

struct Fixture
{
    QTemporaryDir dir;
    std::string path;
    int fd = -1;
    sources::FileChunkConfig cfg;
    FieldTime watermark;
    Round round{1};
    FusedItem item;
    std::unique_ptr<RecordParser> parser;

    explicit Fixture(const std::string &text)
    {
        path = dir.filePath("events.jsonl").toStdString();
        write(text, O_CREAT | O_TRUNC);
        fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        cfg.fd = fd;
        cfg.path = "data/events.jsonl";
        round.file = &cfg;
        round.watermark = &watermark;
        item.line = kFirst.size();
        item.lineSize = static_cast<std::uint32_t>(kLate.size());
        item.time = 500;
    }
    ~Fixture() { ::close(fd); }
    void write(const std::string &text, int flags) const
    {
        const int w = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | flags, 0644);
        QVERIFY(w >= 0);
        QCOMPARE(::write(w, text.data(), text.size()), static_cast<ssize_t>(text.size()));
        ::close(w);
    }
    Record make()
    {
        MadeAgain m(round, parser);
        m.item = &item;
        return m.make();
    }
    /// make()'s failure message ("" when it made a record).
    std::string failure()
    {
        try {
            (void)make();
        } catch (const std::runtime_error &e) {
            return e.what();
        }
        return {};
    }
};

} // namespace

class TestMadeAgain : public QObject
{
    Q_OBJECT

private slots:
    void aFileLineIsReadAgainAtItsOffset()
    {
        Fixture f(kFirst + kLate + "\n");
        const Record r = f.make();
        QCOMPARE(r.get("k").s, std::string_view("b"));
        QCOMPARE(r.get("v").i, std::int64_t(2));
        QCOMPARE(r.time, Timestamp(500));
        QVERIFY(f.parser); // made on first use
    }

    void aFileThatOnlyGrewStillGivesTheLine()
    {
        Fixture f(kFirst + kLate + "\n");
        f.write("{\"t\":2000,\"k\":\"c\",\"v\":3}\n", O_APPEND);
        QCOMPARE(f.make().get("k").s, std::string_view("b"));
    }

    void aRewrittenLineFailsWithThePathAndTheFix()
    {
        Fixture f(kFirst + kLate + "\n");
        f.write(kFirst + "{\"t\":900,\"k\":\"b\",\"v\":2}\n", O_TRUNC); // same length, other time
        const std::string why = f.failure();
        QVERIFY2(why.find("data/events.jsonl: the line at byte 25 changed") == 0, why.c_str());
        QVERIFY2(why.find("event time") != std::string::npos, why.c_str());
        QVERIFY2(why.find("run at parallelism 1") != std::string::npos, why.c_str());
    }

    void aLineThatNoLongerParsesFails()
    {
        Fixture f(kFirst + kLate + "\n");
        f.write(kFirst + std::string(kLate.size(), 'x') + "\n", O_TRUNC);
        const std::string why = f.failure();
        QVERIFY2(why.find("no longer parses") != std::string::npos, why.c_str());
    }

    void aShorterFileFails()
    {
        Fixture f(kFirst + kLate + "\n");
        f.write(kFirst + "{\"t\":5", O_TRUNC);
        const std::string why = f.failure();
        QVERIFY2(why.find("the file is shorter now") != std::string::npos, why.c_str());
    }

    void aReplaysLineComesFromTheRoundsCopy()
    {
        Fixture f(kFirst); // the file does not hold it: a replay's config has no file
        f.cfg.fd = -1;
        f.round.text = "xx" + kLate;
        f.item.line = 2;
        const Record r = f.make();
        QCOMPARE(r.get("k").s, std::string_view("b"));
        QCOMPARE(r.time, Timestamp(500));
    }
};

QTEST_APPLESS_MAIN(TestMadeAgain)
#include "test_made_again.moc"
