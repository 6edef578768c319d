#pragma once
// The session window's state (session_window.cpp): per key slot, its sessions, and the timer
// payload that names one session. putSessionHead writes a session's head as the snapshot and
// the spill store both keep it: start, length (wrapping arithmetic: never overflows), flags;
// the accumulators follow.

#include "operators/window/aggregates.hpp"

#include <tideline/engine/state_io.hpp>
#include <tideline/engine/time.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace tideline::window {

struct Session
{
    Timestamp start = 0;
    Timestamp end = 0;
    bool fired = false;   ///< the current extent was emitted (waits only for cleanup)
    bool emitted = false; ///< some extent of it was emitted: the next emit is an update
    std::vector<AggState> acc;
};

struct KeySlot
{
    std::string key;
    std::vector<Session> sessions;
    std::uint32_t gen = 0;
    bool used = false;
    bool spilled = false; ///< settings.state "rocksdb": the sessions are in the spill store
    bool touched = false; ///< a record reached the key since the last eviction pass
};

struct SessionRef
{
    std::uint32_t slot;
    std::uint32_t gen;
    Timestamp start;
};

/// Writes the head of `s` into `b` (room for 2 * kMaxVarint + 1 bytes); returns its length.
inline std::size_t putSessionHead(char *b, const Session &s)
{
    std::size_t n = putUvar(b, zigzag(s.start));
    n += putUvar(b + n, static_cast<std::uint64_t>(s.end) - static_cast<std::uint64_t>(s.start));
    b[n++] = static_cast<char>((s.fired ? 1 : 0) | (s.emitted ? 2 : 0));
    return n;
}

} // namespace tideline::window
