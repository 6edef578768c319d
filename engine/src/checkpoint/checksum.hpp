#pragma once
// CRC32C (Castagnoli) of node state blobs, stored in the manifest so that a truncated or
// bit-flipped state is detected before any operator sees it, and of every block of a
// recording. The fastest way the CPU has: carry-less multiplication folding (VPCLMULQDQ), the
// SSE4.2 instruction in three lanes (several GB/s), else a table. All give the same value.

#include <cstdint>
#include <string_view>
#include <vector>

namespace tideline::checkpoint {

std::uint32_t crc32c(std::string_view data, std::uint32_t crc = 0);

/// The ways of computing it, for tests that hold each to the others.
enum class CrcImpl { Table, Instruction, Folding };
/// The ways this CPU can run (Table always).
std::vector<CrcImpl> crc32cImplementations();
std::uint32_t crc32cUsing(CrcImpl impl, std::string_view data, std::uint32_t crc = 0);

} // namespace tideline::checkpoint
