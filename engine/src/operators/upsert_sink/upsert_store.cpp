#include "operators/upsert_sink/upsert_store.hpp"

#include <tideline/engine/upsert_table.hpp>

#include <rocksdb/db.h>
#include <rocksdb/options.h>
#include <rocksdb/write_batch.h>

#include <ostream>

namespace tideline::upsert {

Store::Store()
    : m_batch(std::make_unique<rocksdb::WriteBatch>())
{
}

Store::~Store()
{
    std::string ignored;
    close(ignored);
}

bool Store::open(const std::string &path, const std::string &keyDescription, std::string &error)
{
    rocksdb::Options options;
    options.create_if_missing = true;
    options.max_open_files = 64;
    options.keep_log_file_num = 2;
    rocksdb::DB *db = nullptr;
    rocksdb::Status s = rocksdb::DB::Open(options, path, &db);
    if (!s.ok()) {
        error = "cannot open table " + path + ": " + s.ToString();
        return false;
    }
    m_db.reset(db);
    std::string meta;
    std::string want = "key=" + keyDescription;
    s = m_db->Get(rocksdb::ReadOptions(), rocksdb::Slice(kMetaKey.data(), kMetaKey.size()), &meta);
    if (s.ok() && meta != want) {
        error = "the table " + path + " was written with " + meta.substr(4)
                + " as key, this node uses " + keyDescription
                + ": point `path` at a new folder or delete the old table";
        m_db.reset();
        return false;
    }
    if (s.IsNotFound()) {
        s = m_db->Put(rocksdb::WriteOptions(), rocksdb::Slice(kMetaKey.data(), kMetaKey.size()),
                      want);
        if (!s.ok()) {
            error = "cannot write table " + path + ": " + s.ToString();
            m_db.reset();
            return false;
        }
    }
    return true;
}

void Store::put(std::string_view key, std::string_view value)
{
    m_batch->Put(rocksdb::Slice(key.data(), key.size()),
                 rocksdb::Slice(value.data(), value.size()));
}

void Store::erase(std::string_view key)
{
    m_batch->Delete(rocksdb::Slice(key.data(), key.size()));
}

std::size_t Store::pending() const
{
    return static_cast<std::size_t>(m_batch->Count());
}

bool Store::commit(bool sync, std::string &error)
{
    if (!m_db || m_batch->Count() == 0)
        return true;
    rocksdb::WriteOptions wo;
    wo.sync = sync;
    rocksdb::Status s = m_db->Write(wo, m_batch.get());
    m_batch->Clear();
    if (!s.ok()) {
        error = s.ToString();
        return false;
    }
    return true;
}

std::string Store::identity() const
{
    std::string id;
    if (!m_db || !m_db->GetDbIdentity(id).ok())
        return {};
    while (!id.empty() && (id.back() == '\n' || id.back() == '\r'))
        id.pop_back();
    return id;
}

bool Store::close(std::string &error)
{
    if (!m_db)
        return true;
    bool ok = commit(false, error);
    rocksdb::Status s = m_db->Flush(rocksdb::FlushOptions());
    if (ok && !s.ok()) {
        error = s.ToString();
        ok = false;
    }
    s = m_db->Close();
    m_db.reset();
    return ok;
}

} // namespace tideline::upsert

namespace tideline {

bool dumpUpsertTable(const std::string &path, std::ostream &out, std::string &error)
{
    rocksdb::Options options;
    options.create_if_missing = false;
    rocksdb::DB *raw = nullptr;
    rocksdb::Status s = rocksdb::DB::OpenForReadOnly(options, path, &raw);
    if (!s.ok()) {
        error = "cannot open upsert table " + path + ": " + s.ToString();
        return false;
    }
    std::unique_ptr<rocksdb::DB> db(raw);
    std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(rocksdb::ReadOptions()));
    std::string meta;
    bool isTable = db->Get(rocksdb::ReadOptions(),
                           rocksdb::Slice(upsert::kMetaKey.data(), upsert::kMetaKey.size()), &meta)
                       .ok();
    if (!isTable) {
        error = path + " is a RocksDB folder but not a tideline upsert table (no meta entry)";
        return false;
    }
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
        rocksdb::Slice k = it->key();
        if (!k.empty() && k[0] == '\0')
            continue; // meta entries
        out.write(it->value().data(), static_cast<std::streamsize>(it->value().size()));
        out.put('\n');
    }
    if (!it->status().ok()) {
        error = "error reading " + path + ": " + it->status().ToString();
        return false;
    }
    return static_cast<bool>(out);
}

} // namespace tideline
