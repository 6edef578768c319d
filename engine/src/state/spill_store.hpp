#pragma once
// SpillStore: a scratch RocksDB that holds keyed state an operator moved out of memory
// (settings.state "rocksdb"). Operators keep hot keys in their own in-memory tables and spill
// cold ones here under their own byte keys; a key lives in exactly one of the two places.
//
// The store is working space, not a durability mechanism: no WAL, nothing synced, and the
// folder is wiped when the store opens and deleted when it closes. Durability comes from
// checkpoints, which include spilled state: snapshot() pins a consistent RocksDB view at the
// checkpoint's cut, and the checkpoint writer thread reads it while the loop goes on writing.
//
// [Threading] put/get/erase/scan are called from the pipeline loop; a Snapshot may be read from
// the checkpoint writer thread at the same time (RocksDB allows that). Errors (disk full in
// the working folder) throw std::runtime_error: the run fails with the message.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace rocksdb {
class DB;
class Snapshot;
class WriteBatch;
} // namespace rocksdb

namespace tideline::state {

class SpillStore : public std::enable_shared_from_this<SpillStore>
{
public:
    /// Creates (after wiping) `dir` as a RocksDB for spilled state. `memtableBytes` bounds the
    /// store's own write buffer so that spilling really leaves memory. nullptr with `error`.
    static std::shared_ptr<SpillStore>
    open(const std::string &dir, std::size_t memtableBytes, std::string &error);
    ~SpillStore();
    SpillStore(const SpillStore &) = delete;
    SpillStore &operator=(const SpillStore &) = delete;

    /// A batch of puts and deletes applied at once (an eviction pass).
    class Batch
    {
    public:
        explicit Batch(SpillStore &store);
        ~Batch();
        void put(std::string_view key, std::string_view value);
        void erase(std::string_view key);
        void commit();

    private:
        SpillStore &m_store;
        std::unique_ptr<rocksdb::WriteBatch> m_batch;
    };

    /// false when absent.
    bool get(std::string_view key, std::string &value) const;
    void erase(std::string_view key);
    /// Deletes every key in [begin, end).
    void eraseRange(std::string_view begin, std::string_view end);
    /// Calls fn(key, value) for every key in [begin, end), in byte order.
    void scan(std::string_view begin,
              std::string_view end,
              const std::function<void(std::string_view, std::string_view)> &fn) const;

    /// The first key in [begin, end) into `key`; false when the range is empty.
    bool first(std::string_view begin, std::string_view end, std::string &key) const;

    /// A pinned, consistent view of the store (released when the last copy goes away).
    class Snapshot
    {
    public:
        /// Every key in byte order, as of the moment the snapshot was taken.
        void scan(const std::function<void(std::string_view, std::string_view)> &fn) const;
        ~Snapshot();

    private:
        friend class SpillStore;
        std::shared_ptr<SpillStore> m_store;
        const rocksdb::Snapshot *m_snap = nullptr;
    };
    std::shared_ptr<const Snapshot> snapshot();

    /// Files of the store on disk (SST + logs), for figures and tests.
    std::uint64_t diskBytes() const;
    const std::string &dir() const { return m_dir; }

private:
    SpillStore() = default;
    [[noreturn]] void fail(const std::string &what, const std::string &status) const;

    std::string m_dir;
    std::unique_ptr<rocksdb::DB> m_db;
};

} // namespace tideline::state
