#pragma once
// CRC32C (Castagnoli) of node state blobs, stored in the manifest so that a truncated or
// bit-flipped state is detected before any operator sees it. Uses the SSE4.2 instruction when
// the CPU has it (several GB/s, so checksumming 100 MB of window state costs ~20 ms), else a
// table.

#include <cstdint>
#include <string_view>

namespace tideline::checkpoint {

std::uint32_t crc32c(std::string_view data, std::uint32_t crc = 0);

} // namespace tideline::checkpoint
