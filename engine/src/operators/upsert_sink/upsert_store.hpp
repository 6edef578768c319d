#pragma once
// The RocksDB table behind `sink.upsert`: rows keyed by the encoded key fields, values are the
// records as JSON. A meta entry (key "\0tideline.meta", sorting before every row) records the
// key fields so that a node whose key changed refuses the old table instead of mixing rows.

#include <memory>
#include <string>
#include <string_view>

namespace rocksdb {
class DB;
class WriteBatch;
} // namespace rocksdb

namespace tideline::upsert {

inline constexpr std::string_view kMetaKey{"\0tideline.meta", 14};

class Store
{
public:
    Store();
    ~Store();
    /// Opens (creating) the table; false with `error` when it cannot, or when it was created
    /// with other key fields (`keyDescription`, e.g. "event_id").
    bool open(const std::string &path, const std::string &keyDescription, std::string &error);
    void put(std::string_view key, std::string_view value);
    /// Deletes the key's row (in the pending batch, like put).
    void erase(std::string_view key);
    /// Writes the pending batch (sync: wait for the WAL on disk).
    bool commit(bool sync, std::string &error);
    /// Commits, flushes the memtable and closes.
    bool close(std::string &error);
    bool isOpen() const { return m_db != nullptr; }
    /// RocksDB's identity of the open table (a UUID written when the table was created and
    /// kept by copies of the folder): a checkpoint remembers it so that a restore notices a
    /// deleted (and so recreated) or replaced table. "" when unknown.
    std::string identity() const;
    std::size_t pending() const;

private:
    std::unique_ptr<rocksdb::DB> m_db;
    std::unique_ptr<rocksdb::WriteBatch> m_batch;
};

} // namespace tideline::upsert
