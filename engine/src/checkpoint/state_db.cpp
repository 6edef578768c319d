#include "checkpoint/state_db.hpp"

#include "checkpoint/files.hpp"

#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/options.h>
#include <rocksdb/table.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <sys/stat.h>

namespace tideline::checkpoint {

namespace fs = std::filesystem;

namespace {

std::string chunkKey(const std::string &node, std::uint64_t chunk)
{
    char idx[24];
    std::snprintf(idx, sizeof idx, "%08llx", static_cast<unsigned long long>(chunk));
    return "s/" + node + "/" + idx;
}

rocksdb::Options stateOptions()
{
    rocksdb::Options o;
    // One-shot DB: written once, read at most once, never compacted.
    o.disable_auto_compactions = true;
    o.write_buffer_size = 512u << 20; // one memtable, one flush, (usually) one SST
    o.max_write_buffer_number = 2;
    o.max_background_jobs = 1;
    o.keep_log_file_num = 1;
    o.info_log_level = rocksdb::InfoLogLevel::WARN_LEVEL;
    o.max_manifest_file_size = 1u << 20;
    // LZ4 is cheap enough to keep checkpoints small without costing the loop much time.
    o.compression = rocksdb::kNoCompression;
    for (auto c : rocksdb::GetSupportedCompressions())
        if (c == rocksdb::kLZ4Compression)
            o.compression = rocksdb::kLZ4Compression;
    rocksdb::BlockBasedTableOptions t;
    t.block_size = 64u << 10;
    o.table_factory.reset(rocksdb::NewBlockBasedTableFactory(t));
    return o;
}

} // namespace

StateWriteResult writeStateDb(const std::string &dir, const std::vector<NodeBlob> &blobs)
{
    StateWriteResult res;
    auto fail = [&](const std::string &what, const std::string &cause) {
        res.error = what;
        res.cause = cause;
        std::error_code ec;
        fs::remove_all(dir, ec);
        return res;
    };
    // mkdir ourselves first: it gives a clean errno for the failure cause.
    if (::mkdir(dir.c_str(), 0755) != 0) {
        int err = errno;
        return fail("cannot create " + dir + ": " + std::strerror(err), causeFromErrno(err));
    }
    rocksdb::Options o = stateOptions();
    o.create_if_missing = true;
    rocksdb::DB *raw = nullptr;
    rocksdb::Status st = rocksdb::DB::Open(o, dir, &raw);
    if (!st.ok())
        return fail("cannot create state DB " + dir + ": " + st.ToString(),
                    causeFromMessage(st.ToString()));
    std::unique_ptr<rocksdb::DB> db(raw);
    rocksdb::WriteOptions wo;
    wo.disableWAL = true; // the explicit Flush below makes the data durable in SST files
    for (const auto &b : blobs) {
        const std::uint64_t n = chunkCount(b.data.size());
        for (std::uint64_t c = 0; c < n; ++c) {
            std::size_t off = static_cast<std::size_t>(c) * kChunkBytes;
            rocksdb::Slice v(b.data.data() + off, std::min(kChunkBytes, b.data.size() - off));
            st = db->Put(wo, chunkKey(b.nodeId, c), v);
            if (!st.ok()) {
                db.reset();
                return fail("writing state of `" + b.nodeId + "` to " + dir + ": " + st.ToString(),
                            causeFromMessage(st.ToString()));
            }
        }
        res.chunks += n;
    }
    rocksdb::FlushOptions fo;
    fo.wait = true;
    st = db->Flush(fo);
    if (st.ok())
        st = db->Close();
    db.reset();
    if (!st.ok())
        return fail("flushing state DB " + dir + ": " + st.ToString(),
                    causeFromMessage(st.ToString()));
    if (std::string e = fsyncDir(dir); !e.empty())
        return fail(e, causeFromMessage(e));
    return res;
}

bool readStateDb(const std::string &dir,
                 const std::vector<BlobSpec> &specs,
                 std::map<std::string, std::string> &out,
                 std::string &error)
{
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
        error = "state folder " + dir + " is missing";
        return false;
    }
    rocksdb::Options o = stateOptions();
    o.create_if_missing = false;
    o.paranoid_checks = true;
    rocksdb::DB *raw = nullptr;
    rocksdb::Status st = rocksdb::DB::OpenForReadOnly(o, dir, &raw);
    if (!st.ok()) {
        error = "state DB " + dir + " cannot be opened: " + st.ToString();
        return false;
    }
    std::unique_ptr<rocksdb::DB> db(raw);
    rocksdb::ReadOptions ro;
    ro.verify_checksums = true;
    ro.fill_cache = false;
    std::string chunk;
    for (const auto &s : specs) {
        std::string &blob = out[s.nodeId];
        blob.clear();
        blob.reserve(s.bytes);
        for (std::uint64_t c = 0; c < s.chunks; ++c) {
            st = db->Get(ro, chunkKey(s.nodeId, c), &chunk);
            if (!st.ok()) {
                error = "state of `" + s.nodeId + "` chunk " + std::to_string(c) + " in " + dir
                        + ": " + st.ToString();
                return false;
            }
            blob += chunk;
        }
        if (blob.size() != s.bytes) {
            error = "state of `" + s.nodeId + "` in " + dir + " has " + std::to_string(blob.size())
                    + " bytes, the manifest says " + std::to_string(s.bytes) + " (truncated)";
            return false;
        }
    }
    return true;
}

} // namespace tideline::checkpoint
