// ReplayClock's pause and step hooks (record_replay.hpp), which the designer's Pause and Step
// use on a paced replay: restartPacing() after the loop was held, so the time held is not
// caught up in a burst, and skipMs(), which moves the virtual clock at once whatever the speed.
// Only lower bounds of wall time are asserted where a sleep must happen (a loaded machine
// only makes sleeps longer); where none may happen, the bound is far above any sleep's.
#include <tideline/engine/record_replay.hpp>

#include <QElapsedTimer>
#include <QtTest>

#include <thread>

using tideline::recording::ReplayClock;

class TestReplayClock : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void flatOutNeverWaits();
    void pacedWaitsForTheWallClock();
    void restartPacingAfterAHoldPacesAgain();
    void withoutRestartAHoldIsCaughtUp();
    void skipMovesAtOnceAtAnySpeed();
    void aTinySpeedWaitsAtMostASecondACall();
};

void TestReplayClock::flatOutNeverWaits()
{
    ReplayClock c(1000, 0);
    QElapsedTimer t;
    t.start();
    for (int i = 0; i < 100; ++i)
        c.sleepMs(1000);
    QCOMPARE(c.nowMs(), 1000 + 100 * 1000);
    QVERIFY(t.elapsed() < 2000); // 100 s of virtual time
}

void TestReplayClock::pacedWaitsForTheWallClock()
{
    ReplayClock c(0, 1);
    c.sleepMs(1); // anchors pacing
    QElapsedTimer t;
    t.start();
    for (int i = 0; i < 10; ++i)
        c.sleepMs(10);
    QVERIFY2(t.elapsed() >= 90, qPrintable(QString::number(t.elapsed())));
    QCOMPARE(c.nowMs(), 101);
}

void TestReplayClock::restartPacingAfterAHoldPacesAgain()
{
    ReplayClock c(0, 1);
    c.sleepMs(1);
    // The designer held the loop (Pause) for a while: the virtual clock stood still.
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    c.restartPacing(); // may come from another thread: it is an atomic flag
    c.sleepMs(1);      // anchors afresh
    QElapsedTimer t;
    t.start();
    for (int i = 0; i < 10; ++i)
        c.sleepMs(10);
    // As recorded again: 100 ms of records take 100 ms, not an instant burst.
    QVERIFY2(t.elapsed() >= 90, qPrintable(QString::number(t.elapsed())));
}

void TestReplayClock::withoutRestartAHoldIsCaughtUp()
{
    // What restartPacing() prevents: the clock, paced from its old anchor, runs the held time
    // off without waiting.
    ReplayClock c(0, 1);
    c.sleepMs(1);
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
    QElapsedTimer t;
    t.start();
    for (int i = 0; i < 10; ++i)
        c.sleepMs(10);
    QVERIFY2(t.elapsed() < 300, qPrintable(QString::number(t.elapsed())));
}

void TestReplayClock::skipMovesAtOnceAtAnySpeed()
{
    ReplayClock c(5000, 1);
    c.sleepMs(1);
    QElapsedTimer t;
    t.start();
    // Step on a replay at ×1 whose next record is a minute away: the loop's idle sleeps
    // during the step skip instead of waiting the minute.
    for (int i = 0; i < 60000; ++i)
        c.skipMs(1);
    QCOMPARE(c.nowMs(), 5001 + 60000);
    // And pacing resumes from there (not from the old anchor, a minute behind).
    c.sleepMs(1);
    for (int i = 0; i < 5; ++i)
        c.sleepMs(10);
    QVERIFY2(t.elapsed() >= 45, qPrintable(QString::number(t.elapsed())));
    QVERIFY2(t.elapsed() < 5000, qPrintable(QString::number(t.elapsed())));
}

// A speed so small that the wall time a virtual millisecond takes is beyond int64: the clock
// used to cast that quotient to an integer (undefined; on x86 it came out negative and the
// replay did not wait at all). It waits, a second at most per call, as for any long wait.
void TestReplayClock::aTinySpeedWaitsAtMostASecondACall()
{
    ReplayClock c(0, 1e-300);
    c.sleepMs(1); // anchors pacing
    QElapsedTimer t;
    t.start();
    c.sleepMs(1);
    QVERIFY2(t.elapsed() >= 900, qPrintable(QString::number(t.elapsed())));
    QVERIFY2(t.elapsed() < 3000, qPrintable(QString::number(t.elapsed())));
    QCOMPARE(c.nowMs(), 2);
}

QTEST_GUILESS_MAIN(TestReplayClock)
#include "test_replay_clock.moc"
