#pragma once
// Reads a sink.upsert table (RocksDB) into a map, skipping the meta entry, for comparing the
// upsert sink's final table between an uninterrupted and a crashed-and-resumed run.

#include <rocksdb/db.h>

#include <map>
#include <memory>
#include <string>

namespace tideline::cptest {

inline std::map<std::string, std::string> dumpTable(const std::string &path)
{
    std::map<std::string, std::string> rows;
    rocksdb::Options o;
    rocksdb::DB *raw = nullptr;
    if (!rocksdb::DB::OpenForReadOnly(o, path, &raw).ok())
        return rows;
    std::unique_ptr<rocksdb::DB> db(raw);
    std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(rocksdb::ReadOptions()));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
        std::string k = it->key().ToString();
        if (!k.empty() && k[0] == '\0')
            continue; // "\0tideline.meta"
        rows[k] = it->value().ToString();
    }
    return rows;
}

} // namespace tideline::cptest
