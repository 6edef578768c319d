#pragma once
// What a checkpoint remembers of the file a source.file was reading, so that a restore can
// tell the same file (perhaps grown by appends, or copied back byte for byte) from one that
// was replaced, rewritten or shortened: resuming those at the old byte offset would start
// mid-line in other data and mix the old state with it.
//
// The check costs O(1) I/O on both sides: the CRC32C of the file's first 64 KiB and of the
// 64 KiB just before the read position (where reading resumes), plus the length. Inode,
// device, size and mtime are kept to say what changed; they do not decide (a copy restored
// from a backup has another inode and the same bytes, an append changes size and mtime).
// Not detected: a rewrite that keeps both windows and only changes bytes between them.

#include <tideline/engine/state_io.hpp>

#include <cstdint>
#include <string>

namespace tideline {

struct InputIdentity
{
    static constexpr std::uint64_t kWindow = 64u << 10;

    std::uint64_t offset = 0; ///< read position the identity belongs to
    std::uint64_t size = 0;   ///< file size when taken
    std::uint64_t dev = 0, ino = 0;
    std::int64_t mtimeNs = 0;
    std::uint64_t headLen = 0; ///< min(offset, kWindow)
    std::uint32_t headCrc = 0;
    std::uint64_t tailLen = 0; ///< min(offset, kWindow) bytes ending at offset
    std::uint32_t tailCrc = 0;

    /// Of the open file `fd` at read position `offset`. Reuses `previous`'s head when it is
    /// complete (the first 64 KiB do not change while a file is read). "" or the OS error.
    static std::string
    capture(int fd, std::uint64_t offset, const InputIdentity *previous, InputIdentity &out);
    /// "" when `fd` holds the file this identity describes (or that file with more appended);
    /// else what differs, e.g. "it holds 1000 bytes, but the checkpoint had read 5000".
    [[nodiscard]] std::string differences(int fd) const;

    void write(StateWriter &w) const;
    /// false (and r.failed()) when the bytes are short.
    [[nodiscard]] bool read(StateReader &r);
};

} // namespace tideline
