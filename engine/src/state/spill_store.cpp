#include "state/spill_store.hpp"

#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/options.h>
#include <rocksdb/table.h>
#include <rocksdb/write_batch.h>

#include <filesystem>
#include <stdexcept>

namespace tideline::state {

namespace fs = std::filesystem;

namespace {
rocksdb::Slice slice(std::string_view s)
{
    return {s.data(), s.size()};
}
} // namespace

std::shared_ptr<SpillStore>
SpillStore::open(const std::string &dir, std::size_t memtableBytes, std::string &error)
{
    std::error_code ec;
    fs::remove_all(dir, ec); // left over by a killed run: scratch, never state of record
    fs::create_directories(dir, ec);
    if (ec) {
        error = "cannot create the state folder " + dir + ": " + ec.message();
        return nullptr;
    }
    rocksdb::Options o;
    o.create_if_missing = true;
    o.error_if_exists = false;
    // Small memtables so that spilled entries reach SST files instead of staying in RAM.
    o.write_buffer_size = std::max<std::size_t>(64u << 10, memtableBytes);
    o.max_write_buffer_number = 2;
    o.max_background_jobs = 1;
    o.keep_log_file_num = 1;
    o.max_manifest_file_size = 1u << 20;
    o.info_log_level = rocksdb::InfoLogLevel::WARN_LEVEL;
    o.compression = rocksdb::kNoCompression; // accumulators are small; CPU matters more
    rocksdb::BlockBasedTableOptions t;
    // Most lookups are for keys that were never spilled: a Bloom filter answers them without
    // reading a block.
    t.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
    t.block_cache = rocksdb::NewLRUCache(std::max<std::size_t>(1u << 20, memtableBytes));
    o.table_factory.reset(rocksdb::NewBlockBasedTableFactory(t));
    rocksdb::DB *raw = nullptr;
    rocksdb::Status st = rocksdb::DB::Open(o, dir, &raw);
    if (!st.ok()) {
        error = "cannot open the state store " + dir + ": " + st.ToString();
        return nullptr;
    }
    std::shared_ptr<SpillStore> s(new SpillStore());
    s->m_dir = dir;
    s->m_db.reset(raw);
    return s;
}

SpillStore::~SpillStore()
{
    if (m_db) {
        m_db->Close();
        m_db.reset();
    }
    std::error_code ec;
    fs::remove_all(m_dir, ec);
    fs::remove(fs::path(m_dir).parent_path(), ec); // only when empty (the other nodes' are gone)
}

void SpillStore::fail(const std::string &what, const std::string &status) const
{
    throw std::runtime_error("state store " + m_dir + ": " + what + ": " + status);
}

SpillStore::Batch::Batch(SpillStore &store)
    : m_store(store)
    , m_batch(std::make_unique<rocksdb::WriteBatch>())
{
}

SpillStore::Batch::~Batch() = default;

void SpillStore::Batch::put(std::string_view key, std::string_view value)
{
    m_batch->Put(slice(key), slice(value));
}

void SpillStore::Batch::erase(std::string_view key)
{
    m_batch->Delete(slice(key));
}

void SpillStore::Batch::commit()
{
    if (m_batch->Count() == 0)
        return;
    rocksdb::WriteOptions wo;
    wo.disableWAL = true;
    rocksdb::Status st = m_store.m_db->Write(wo, m_batch.get());
    if (!st.ok())
        m_store.fail("spilling state", st.ToString());
    m_batch->Clear();
}

bool SpillStore::get(std::string_view key, std::string &value) const
{
    rocksdb::Status st = m_db->Get(rocksdb::ReadOptions(), slice(key), &value);
    if (st.IsNotFound())
        return false;
    if (!st.ok())
        fail("reading spilled state", st.ToString());
    return true;
}

void SpillStore::erase(std::string_view key)
{
    rocksdb::WriteOptions wo;
    wo.disableWAL = true;
    rocksdb::Status st = m_db->Delete(wo, slice(key));
    if (!st.ok())
        fail("deleting spilled state", st.ToString());
}

void SpillStore::eraseRange(std::string_view begin, std::string_view end)
{
    rocksdb::WriteOptions wo;
    wo.disableWAL = true;
    rocksdb::Status st
        = m_db->DeleteRange(wo, m_db->DefaultColumnFamily(), slice(begin), slice(end));
    if (!st.ok())
        fail("dropping spilled state", st.ToString());
}

void SpillStore::scan(std::string_view begin,
                      std::string_view end,
                      const std::function<void(std::string_view, std::string_view)> &fn) const
{
    rocksdb::ReadOptions ro;
    rocksdb::Slice upper = slice(end);
    ro.iterate_upper_bound = &upper;
    ro.fill_cache = false;
    std::unique_ptr<rocksdb::Iterator> it(m_db->NewIterator(ro));
    for (it->Seek(slice(begin)); it->Valid(); it->Next())
        fn(std::string_view(it->key().data(), it->key().size()),
           std::string_view(it->value().data(), it->value().size()));
    if (!it->status().ok())
        fail("scanning spilled state", it->status().ToString());
}

bool SpillStore::first(std::string_view begin, std::string_view end, std::string &key) const
{
    rocksdb::ReadOptions ro;
    rocksdb::Slice upper = slice(end);
    ro.iterate_upper_bound = &upper;
    ro.fill_cache = false;
    std::unique_ptr<rocksdb::Iterator> it(m_db->NewIterator(ro));
    it->Seek(slice(begin));
    if (it->Valid()) {
        key.assign(it->key().data(), it->key().size());
        return true;
    }
    if (!it->status().ok())
        fail("scanning spilled state", it->status().ToString());
    return false;
}

std::shared_ptr<const SpillStore::Snapshot> SpillStore::snapshot()
{
    auto s = std::shared_ptr<Snapshot>(new Snapshot());
    s->m_store = shared_from_this();
    s->m_snap = m_db->GetSnapshot();
    return s;
}

SpillStore::Snapshot::~Snapshot()
{
    if (m_snap)
        m_store->m_db->ReleaseSnapshot(m_snap);
}

void SpillStore::Snapshot::scan(
    const std::function<void(std::string_view, std::string_view)> &fn) const
{
    rocksdb::ReadOptions ro;
    ro.snapshot = m_snap;
    ro.fill_cache = false;
    std::unique_ptr<rocksdb::Iterator> it(m_store->m_db->NewIterator(ro));
    for (it->SeekToFirst(); it->Valid(); it->Next())
        fn(std::string_view(it->key().data(), it->key().size()),
           std::string_view(it->value().data(), it->value().size()));
    if (!it->status().ok())
        m_store->fail("reading spilled state for a checkpoint", it->status().ToString());
}

std::uint64_t SpillStore::diskBytes() const
{
    std::uint64_t total = 0;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(m_dir, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
        if (it->is_regular_file(ec))
            total += it->file_size(ec);
    return total;
}

} // namespace tideline::state
