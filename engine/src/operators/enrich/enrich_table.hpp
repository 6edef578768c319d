#pragma once
// The static table of an `enrich` node: loaded once at open() from CSV or JSON lines, then
// looked up by encoded key bytes. Loading never allocates per lookup afterwards.

#include "operators/keys/key_encoder.hpp"

#include <tideline/engine/record.hpp>

#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

namespace tideline::enrich {

enum class TableFormat { Jsonl, Csv };

class Table
{
public:
    /// Loads `path`. Returns false with `error` naming the file and line ("users.csv:17:
    /// expected 3 cells, found 2"). Later rows with an already seen key replace earlier ones.
    bool load(const std::string &path,
              TableFormat format,
              const std::string &keyColumn,
              std::string &error);

    /// The row whose key encodes to `key`, or nullptr.
    const Record *find(std::string_view key) const
    {
        auto it = m_index.find(key);
        return it == m_index.end() ? nullptr : &m_rows[it->second];
    }
    std::size_t size() const { return m_index.size(); }
    std::size_t bytes() const { return m_bytes; }

private:
    std::vector<Record> m_rows;
    std::unordered_map<std::string, std::uint32_t, keys::BytesHash, std::equal_to<>> m_index;
    std::size_t m_bytes = 0;
};

/// Format from the `format` param, else from the file extension (.csv -> csv, else jsonl).
TableFormat tableFormat(const std::string &param, const std::string &path);

} // namespace tideline::enrich
