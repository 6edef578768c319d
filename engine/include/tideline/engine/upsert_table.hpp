#pragma once
// Reading the table a `sink.upsert` node writes (a RocksDB folder holding the latest record per
// key), for `tideline-run --dump-table PATH` and for tests.

#include <iosfwd>
#include <string>

namespace tideline {

/// Writes every row of the upsert table at `path` as one JSON line, in key order. Opens the
/// table read-only. Returns false with `error` set when `path` is not a readable table.
bool dumpUpsertTable(const std::string &path, std::ostream &out, std::string &error);

} // namespace tideline
