#pragma once
// What the pieces of RecordParser share (internal to engine/src/record/): the fast path's
// per-parser state and entry point (json_fast_path.cpp), and the problem finder the simdjson
// path asks for a precise message (json_problem.cpp). RecordParser (json_parser.cpp) owns the
// state and decides which path a line takes.

#include <tideline/engine/record.hpp>
#include <tideline/engine/record_json.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tideline::detail {

constexpr int kFastMaxDepth = 16; // deeper lines go to simdjson (which enforces the limit)

/// The fast path's per-parser state: field names already seen, as (parent, key) -> interned
/// full path, and name buffers reused from line to line.
struct FastNames
{
    struct Slot
    {
        const char *parent = nullptr; ///< interned parent path or kRootParent; null = empty
        std::uint32_t keyLen = 0;
        char key[28] = {};
        StaticPath full{std::string_view()};
        std::uint32_t seen = 0; ///< the line (FastNames::line) that last used this key
        /// The shape of the last line that had this key: the slot of the key that followed it
        /// in its object (a sibling: same parent), and of the first key of the object it held.
        /// The next line is predicted to repeat them, which skips the key's scan and lookup.
        Slot *next = nullptr;
        Slot *firstChild = nullptr;
    };
    static constexpr std::size_t kSlots = 512; // power of two
    static constexpr std::size_t kMaxUsed = 384;
    std::array<Slot, kSlots> slots{};
    /// Per slot: whether the projection with id keepFor[i] keeps slots[i].full (0: not asked
    /// yet). Beside the slots, not in them: only the projecting parse reads it.
    std::array<std::uint32_t, kSlots> keepFor{};
    std::array<bool, kSlots> keep{};
    std::size_t used = 0;
    Slot *rootFirst = nullptr; ///< the slot of the last line's first top-level key
    std::array<std::string, kFastMaxDepth> built;   ///< names not interned, per depth
    std::array<std::string, kFastMaxDepth> parents; ///< a not-interned object path, per depth
    /// Stamp of the line being parsed: a key whose slot already carries it is a duplicate.
    std::uint32_t line = 0;
    /// Full names of the keys of this line that are not in the cache ('\n'-terminated; the
    /// fast path's names never contain a newline), checked for duplicates at the end.
    std::string uncached;
    std::size_t uncachedCount = 0;
    std::vector<std::string_view> sorted;

    void newLine()
    {
        if (++line == 0) { // wrapped: forget every stamp
            for (auto &s : slots)
                s.seen = 0;
            line = 1;
        }
        uncached.clear();
        uncachedCount = 0;
    }
    /// Whether two keys of the line that are not cached have the same full name.
    /// The test is inline, the sort behind it not: a call per line for the common answer
    /// ("fewer than two") measured in a parse-bound run (docs/benchmarks.md "Session 19").
    bool uncachedDuplicates() { return uncachedCount >= 2 && sortedDuplicates(); }

    [[gnu::noinline]] bool sortedDuplicates()
    {
        sorted.clear();
        std::size_t pos = 0;
        while (pos < uncached.size()) {
            std::size_t end = uncached.find('\n', pos);
            sorted.emplace_back(uncached.data() + pos, end - pos);
            pos = end + 1;
        }
        std::sort(sorted.begin(), sorted.end());
        return std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end();
    }
};

/// Parses one line with the fast path (see json_fast_path.cpp) into out. False when the line
/// is not in the fast subset (or is malformed): the caller then clears out and asks simdjson.
/// With `only`: a field only FieldProjection::keeps is appended (the line is still read and
/// checked whole, so what is accepted does not change).
bool parseFast(FastNames &names,
               Record &out,
               const char *p,
               const char *end,
               const FieldProjection *only = nullptr);

/// JsonProblemFinder (json_problem.cpp): the first problem of JSON text simdjson rejected, or,
/// with numbersOnly, the first number literal out of range. False when it finds none.
bool findJsonProblem(std::string_view text, bool numbersOnly, std::string &message);

} // namespace tideline::detail
