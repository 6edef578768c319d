#pragma once
// The static table of an `enrich` node: loaded once at open() from CSV or JSON lines, then
// looked up by encoded key bytes. Loading never allocates per lookup afterwards.

#include "operators/keys/key_encoder.hpp"
#include "operators/keys/key_table.hpp"

#include <tideline/engine/record.hpp>

#include <functional>
#include <string>
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
        const std::uint32_t e = m_index.find(key);
        return e == Index::kNone ? nullptr : &m_rows[m_index.entry(e).value];
    }
    std::size_t size() const { return m_index.size(); }
    std::size_t bytes() const { return m_bytes; }

private:
    std::vector<Record> m_rows;
    using Index = keys::KeyTable<std::uint32_t>; ///< encoded key -> row (the toolkit's table)
    Index m_index;
    std::size_t m_bytes = 0;
};

/// Format from the `format` param, else from the file extension (.csv -> csv, else jsonl).
TableFormat tableFormat(const std::string &param, const std::string &path);

} // namespace tideline::enrich
