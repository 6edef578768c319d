// The parallel stage's pool of firing-sized output vectors (runtime/output_pool.hpp): a vector
// that must grow past kFrom takes the largest pooled one with its items in order, small ones
// stay with their round, the pool keeps at most kKeep, the items a vector was put back with
// are destroyed by the worker that takes it, and workers growing while the loop thread gives
// back lose nothing.

#include "runtime/output_pool.hpp"

#include <QtTest>

#include <string>
#include <thread>
#include <utility>
#include <vector>

using tideline::parallel::VectorPool;

namespace {

std::vector<std::string> numbered(std::size_t n)
{
    std::vector<std::string> v;
    for (std::size_t i = 0; i < n; ++i)
        v.push_back("item " + std::to_string(i) + std::string(20, 'x')); // not SSO: moved
    return v;
}

} // namespace

class TestOutputPool : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void smallVectorsStayWithTheirRound()
    {
        VectorPool<std::string> pool;
        std::vector<std::string> small = numbered(10);
        small.shrink_to_fit();
        pool.put(small);
        QCOMPARE(small.size(), std::size_t(10)); // not taken: below kFrom
        std::vector<std::string> other = numbered(3);
        const auto *before = other.data();
        pool.reserve(other, 4); // below kFrom: nothing pooled is asked for
        QCOMPARE(other.data(), before);
    }

    void aGrowingVectorTakesThePooledOneWithItsItemsInOrder()
    {
        VectorPool<std::string> pool;
        std::vector<std::string> big;
        big.reserve(8 * VectorPool<std::string>::kFrom);
        big.emplace_back("old");
        const auto *storage = big.data();
        pool.put(big);
        QVERIFY(big.empty());
        QCOMPARE(big.capacity(), std::size_t(0));

        std::vector<std::string> growing = numbered(VectorPool<std::string>::kFrom);
        growing.shrink_to_fit();
        const std::vector<std::string> expected = growing;
        pool.reserve(growing, growing.size() + 1);
        QCOMPARE(growing.data(), storage); // the pooled storage, already touched
        QCOMPARE(growing, expected);       // moved over in order, nothing of "old" left
        growing.emplace_back("next");      // room without growing
        QCOMPARE(growing.data(), storage);

        // Its own storage (kFrom items' worth) went back to the pool: the next vector that
        // grows to kFrom gets it.
        std::vector<std::string> again = numbered(VectorPool<std::string>::kFrom - 1);
        again.shrink_to_fit();
        pool.reserve(again, VectorPool<std::string>::kFrom);
        QCOMPARE(again.capacity(), VectorPool<std::string>::kFrom);
        QCOMPARE(again.size(), VectorPool<std::string>::kFrom - 1);
        QCOMPARE(again.back(), expected[VectorPool<std::string>::kFrom - 2]);
    }

    void aPooledVectorTooSmallIsNotTaken()
    {
        VectorPool<int> pool;
        std::vector<int> pooled(VectorPool<int>::kFrom);
        pool.put(pooled);
        std::vector<int> growing(4 * VectorPool<int>::kFrom, 7);
        growing.shrink_to_fit();
        const int *before = growing.data();
        pool.reserve(growing, growing.size() + 1);
        QCOMPARE(growing.data(), before); // left to grow as usual
        QCOMPARE(growing.size(), 4 * VectorPool<int>::kFrom);
    }

    void keepsAtMostKKeepTheLargest()
    {
        using Pool = VectorPool<int>;
        Pool pool;
        const std::size_t n = Pool::kKeep + 3;
        for (std::size_t i = 0; i < n; ++i) {
            std::vector<int> v;
            v.reserve(Pool::kFrom * (i + 1));
            pool.put(v);
        }
        // Drained by vectors of kFrom items that must grow (their own storage goes back, too
        // small to be taken again): exactly kKeep come out, the largest ones.
        std::size_t taken = 0, smallest = SIZE_MAX;
        for (;;) {
            std::vector<int> w(Pool::kFrom, 2);
            w.shrink_to_fit();
            const int *before = w.data();
            pool.reserve(w, w.size() + 1);
            if (w.data() == before)
                break;
            ++taken;
            smallest = std::min(smallest, w.capacity());
            QCOMPARE(w, std::vector<int>(Pool::kFrom, 2));
            QVERIFY2(taken <= n, "the pool gives vectors back forever");
        }
        QCOMPARE(taken, Pool::kKeep);
        QVERIFY(smallest >= Pool::kFrom * (n - Pool::kKeep + 1));
    }

    void theItemsPutLeavesAreDestroyedByTheThreadThatTakesTheVector()
    {
        // The loop thread puts a replayed round's results back; the worker that takes the
        // vector destroys them, so their buffers are freed (or pooled) where they were made.
        struct Item
        {
            std::vector<std::thread::id> *destroyedOn = nullptr;
            Item() = default;
            explicit Item(std::vector<std::thread::id> *log)
                : destroyedOn(log)
            {
            }
            Item(Item &&o) noexcept
                : destroyedOn(std::exchange(o.destroyedOn, nullptr))
            {
            }
            Item &operator=(Item &&o) noexcept
            {
                destroyedOn = std::exchange(o.destroyedOn, nullptr);
                return *this;
            }
            ~Item()
            {
                if (destroyedOn)
                    destroyedOn->push_back(std::this_thread::get_id());
            }
        };
        using Pool = VectorPool<Item>;
        std::vector<std::thread::id> log;
        Pool pool;
        std::vector<Item> replayed;
        replayed.reserve(2 * Pool::kFrom);
        for (int i = 0; i < 3; ++i)
            replayed.emplace_back(&log);
        pool.put(replayed);
        QVERIFY(replayed.empty());
        QVERIFY(log.empty()); // not on the loop thread

        std::thread::id worker;
        std::thread t([&] {
            worker = std::this_thread::get_id();
            std::vector<Item> growing(Pool::kFrom);
            pool.reserve(growing, growing.size() + 1);
        });
        t.join();
        QCOMPARE(log.size(), std::size_t(3));
        for (const std::thread::id &id : log)
            QCOMPARE(id, worker);
    }

    void workersAndTheLoopThreadShareItSafely()
    {
        // Two "workers" fill vectors past kFrom while the "loop thread" gives theirs back, as
        // rounds go round: every vector keeps exactly what was pushed into it.
        VectorPool<std::string> pool;
        auto worker = [&pool](int id) {
            for (int round = 0; round < 200; ++round) {
                std::vector<std::string> out;
                const std::size_t n = VectorPool<std::string>::kFrom + 37 * (round % 5);
                for (std::size_t i = 0; i < n; ++i) {
                    pool.reserve(out, out.size() + 1);
                    out.push_back(std::to_string(id) + ":" + std::to_string(i));
                }
                for (std::size_t i = 0; i < n; ++i)
                    if (out[i] != std::to_string(id) + ":" + std::to_string(i))
                        return false;
                pool.put(out);
            }
            return true;
        };
        bool a = false, b = false;
        std::thread t1([&] { a = worker(1); });
        std::thread t2([&] { b = worker(2); });
        t1.join();
        t2.join();
        QVERIFY(a);
        QVERIFY(b);
    }
};

QTEST_GUILESS_MAIN(TestOutputPool)
#include "test_output_pool.moc"
