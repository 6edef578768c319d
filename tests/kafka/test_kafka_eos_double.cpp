// Exactly-once decision logic (eos.hpp) against a TEST DOUBLE.
//
// *** FakeKafka below is a test double, not Kafka. *** librdkafka 2.0.2's mock cluster does
// not store TxnOffsetCommit and does not enforce read_committed, so the recovery decision
// cannot be exercised end to end here. This test proves the protocol and decideRecovery():
// the double implements the transactional semantics real Kafka documents (output and group
// offsets commit atomically; a new instance's init aborts the pending transaction;
// read_committed sees only committed output). It does NOT prove broker isolation.
//
// The engine's protocol per epoch N (kafka_sink.cpp): begin -> produce -> barrier:
// send_offsets(O_N) -> checkpoint N durable (holds O_N and O_{N-1}) -> commit. A crash is
// injected at every step of a run; each recovery must give every input exactly once in the
// committed output and a state (running sum) equal to the uninterrupted run.

#include "connectors/kafka/eos.hpp"

#include <QtTest>

#include <map>
#include <optional>
#include <vector>

using namespace tideline::kafka;

namespace {

/// TEST DOUBLE of a transactional Kafka cluster (one input topic, one output topic, one group).
struct FakeKafka
{
    std::vector<std::vector<int>> input;        // per partition: event ids
    std::vector<int> committedOutput;           // what a read_committed reader sees
    std::vector<int> openTxn;                   // produced, not yet committed
    std::optional<PartitionOffsets> txnOffsets; // sent into the open transaction
    PartitionOffsets groupOffsets;              // committed offsets of the group
    bool txnOpen = false;

    void initTransactions() // a new producer instance fences the old one: pending aborts
    {
        openTxn.clear();
        txnOffsets.reset();
        txnOpen = false;
    }
    void begin() { txnOpen = true; }
    void produce(int v) { openTxn.push_back(v); }
    void sendOffsets(const PartitionOffsets &o) { txnOffsets = o; }
    void commit()
    {
        committedOutput.insert(committedOutput.end(), openTxn.begin(), openTxn.end());
        if (txnOffsets)
            for (const auto &[p, off] : *txnOffsets)
                groupOffsets[p] = off;
        initTransactions();
    }
};

struct Checkpoint
{
    PartitionOffsets offsets;  // O_N
    PartitionOffsets previous; // O_{N-1}
    long long sum = 0;         // operator state
    bool hasPrevious = false;
};

struct Crash
{
};

/// One engine instance; `crashAt` counts protocol steps and throws Crash at that step.
struct Engine
{
    FakeKafka &kafka;
    std::vector<Checkpoint> &checkpoints; // durable store, newest last (keeps >= 2)
    int &step;
    int crashAt;
    PartitionOffsets pos;
    long long sum = 0;
    PartitionOffsets lastCommitted;
    bool hasCommitted = false;

    void tick()
    {
        if (step++ == crashAt)
            throw Crash{};
    }

    /// Recovery: the decision under test.
    bool recover()
    {
        kafka.initTransactions();
        if (checkpoints.empty()) {
            for (std::size_t p = 0; p < kafka.input.size(); ++p)
                pos[static_cast<int>(p)] = 0;
            return true;
        }
        const Checkpoint &latest = checkpoints.back();
        std::optional<PartitionOffsets> prev;
        if (latest.hasPrevious)
            prev = latest.previous;
        RecoveryDecision d = decideRecovery(latest.offsets, prev, kafka.groupOffsets);
        if (d.action == Recovery::UseLatest) {
            pos = latest.offsets;
            sum = latest.sum;
            lastCommitted = latest.offsets;
            hasCommitted = true;
            return true;
        }
        if (d.action == Recovery::UsePrevious) {
            checkpoints.pop_back(); // its transaction was aborted
            if (checkpoints.empty()) {
                for (std::size_t p = 0; p < kafka.input.size(); ++p)
                    pos[static_cast<int>(p)] = 0;
                sum = 0;
                hasCommitted = false;
            } else {
                pos = checkpoints.back().offsets;
                sum = checkpoints.back().sum;
                lastCommitted = pos;
                hasCommitted = true;
            }
            return true;
        }
        qWarning("inconsistent: %s", d.reason.c_str());
        return false;
    }

    void run(int epochSize)
    {
        int inEpoch = 0;
        bool more = true;
        while (more) {
            more = false;
            for (std::size_t p = 0; p < kafka.input.size(); ++p) {
                auto &off = pos[static_cast<int>(p)];
                if (off >= static_cast<long long>(kafka.input[p].size()))
                    continue;
                more = true;
                if (!kafka.txnOpen) {
                    tick();
                    kafka.begin();
                }
                int v = kafka.input[p][static_cast<std::size_t>(off)];
                tick();
                kafka.produce(v);
                sum += v;
                ++off;
                if (++inEpoch == epochSize) {
                    barrier();
                    inEpoch = 0;
                }
            }
        }
        if (kafka.txnOpen)
            barrier();
    }

    void barrier()
    {
        tick();
        kafka.sendOffsets(pos); // snapshotState: pre-commit
        tick();
        Checkpoint c{pos, lastCommitted, sum, hasCommitted};
        checkpoints.push_back(c); // manifest durable
        tick();
        kafka.commit(); // notifyCheckpointComplete
        lastCommitted = pos;
        hasCommitted = true;
        tick();
    }
};

} // namespace

class KafkaEosDoubleTest : public QObject
{
    Q_OBJECT
private slots:
    void decisionTable()
    {
        PartitionOffsets o1{{0, 5}, {1, 7}}, o2{{0, 9}, {1, 12}};
        QCOMPARE(decideRecovery(o2, o1, o2).action, Recovery::UseLatest);
        QCOMPARE(decideRecovery(o2, o1, o1).action, Recovery::UsePrevious);
        QCOMPARE(decideRecovery(o2, std::nullopt, {}).action, Recovery::UsePrevious);
        QCOMPARE(decideRecovery(o2, o1, PartitionOffsets{{0, 9}, {1, 7}}).action,
                 Recovery::Inconsistent);
        // Partitions another member owns do not disturb the decision.
        QCOMPARE(decideRecovery(o2, o1, PartitionOffsets{{0, 9}, {1, 12}, {2, 100}}).action,
                 Recovery::UseLatest);
        auto d = decideRecovery(o2, o1, PartitionOffsets{{0, 1}, {1, 1}});
        QCOMPARE(d.action, Recovery::Inconsistent);
        QVERIFY2(d.reason.find("match neither") != std::string::npos, d.reason.c_str());
    }

    void crashAtEveryStepGivesExactlyOnce()
    {
        // 3 partitions x 20 events, epochs of 7 records: every protocol step is a crash point.
        std::vector<std::vector<int>> input(3);
        long long golden = 0;
        for (int p = 0; p < 3; ++p)
            for (int i = 0; i < 20; ++i) {
                input[static_cast<std::size_t>(p)].push_back(p * 1000 + i);
                golden += p * 1000 + i;
            }
        // Count the steps of an uninterrupted run.
        int totalSteps = 0;
        {
            FakeKafka k{input, {}, {}, {}, {}, false};
            std::vector<Checkpoint> cps;
            int step = 0;
            Engine e{k, cps, step, -1, {}, 0, {}, false};
            QVERIFY(e.recover());
            e.run(7);
            totalSteps = step;
            QCOMPARE(static_cast<int>(k.committedOutput.size()), 60);
        }
        QVERIFY(totalSteps > 60);
        int recoveries = 0, usedPrevious = 0;
        for (int crashAt = 0; crashAt < totalSteps; ++crashAt) {
            FakeKafka k{input, {}, {}, {}, {}, false};
            std::vector<Checkpoint> cps;
            int step = 0;
            long long finalSum = 0;
            for (int attempt = 0; attempt < 2; ++attempt) {
                std::size_t before = cps.size();
                Engine e{k, cps, step, attempt == 0 ? crashAt : -1, {}, 0, {}, false};
                QVERIFY2(e.recover(), qPrintable(QString("crash at step %1").arg(crashAt)));
                if (attempt == 1) {
                    ++recoveries;
                    if (cps.size() < before)
                        ++usedPrevious;
                }
                try {
                    e.run(7);
                    finalSum = e.sum;
                    break;
                } catch (const Crash &) {
                }
            }
            std::vector<int> out = k.committedOutput;
            std::sort(out.begin(), out.end());
            std::vector<int> want;
            for (const auto &part : input)
                want.insert(want.end(), part.begin(), part.end());
            std::sort(want.begin(), want.end());
            QVERIFY2(out == want,
                     qPrintable(QString("crash at step %1: %2 committed records, want 60")
                                    .arg(crashAt)
                                    .arg(out.size())));
            QCOMPARE(finalSum, golden);
        }
        qInfo("TEST DOUBLE: %d crash points, %d recoveries, %d rolled back to the previous "
              "checkpoint, "
              "0 lost, 0 duplicated",
              totalSteps, recoveries, usedPrevious);
        QVERIFY(usedPrevious > 0); // the crash between checkpoint and commit was exercised
    }
};

QTEST_GUILESS_MAIN(KafkaEosDoubleTest)
#include "test_kafka_eos_double.moc"
