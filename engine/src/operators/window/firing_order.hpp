#pragma once
// FiringOrder: the order of one firing's results, by key value as compareValues orders the key
// fields one by one (the contract), ties between distinct encodings broken by the encoded
// bytes, then by position.
//
// Why not only a comparison sort: at 100,000 keys per window, introsort with a comparator that
// compares decoded Values was about a third of the run. For keys made of null, bool, int and
// string fields (nearly all keys) there is an order-preserving byte form (a "normalized key",
// as DuckDB and most columnar engines sort): memcmp of two forms orders them exactly as the
// contract does, and distinct keys have distinct forms, so no tie-break is needed. Those forms
// are sorted by an LSD radix on a 64-bit window of them (starting after the bytes every key of
// the firing shares, e.g. the type byte and the high bytes of small ints), and the few keys
// whose windows are equal by memcmp of the rest. Keys with a double, a raw value or a nested
// object (compareValues compares ints with doubles by value, raw values by their bytes) take
// the comparison sort of before, unchanged.

#include "operators/window/key_codec.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tideline::window {

class FiringOrder
{
public:
    /// Sorts `order` (indexes into `keys`, encoded by `codec`) into the contract's order.
    void sort(const KeyCodec &codec,
              std::vector<std::uint32_t> &order,
              const std::vector<std::string_view> &keys);

    /// The comparison sort (every key kind); sort() uses it when some key has no normalized
    /// form. Public so that tests can check both agree.
    void comparisonSort(const KeyCodec &codec,
                        std::vector<std::uint32_t> &order,
                        const std::vector<std::string_view> &keys);

private:
    struct Item
    {
        std::uint64_t window; ///< 8 bytes of the normalized form, big-endian (compare as u64)
        std::uint32_t idx;    ///< index into keys
        std::uint32_t form;   ///< index into m_offsets
    };
    /// One int field in every key: sorted by the int itself. False (nothing done) otherwise.
    bool sortSingleInts(const KeyCodec &codec,
                        std::vector<std::uint32_t> &order,
                        const std::vector<std::string_view> &keys);
    bool normalizeAll(const KeyCodec &codec,
                      const std::vector<std::uint32_t> &order,
                      const std::vector<std::string_view> &keys);
    std::string_view form(std::uint32_t f) const
    {
        return {m_forms.data() + m_offsets[f], m_offsets[f + 1] - m_offsets[f]};
    }
    void radixSort();

    std::string m_forms;                  ///< every key's normalized form, back to back
    std::vector<std::uint32_t> m_offsets; ///< form f is [m_offsets[f], m_offsets[f + 1])
    std::vector<Item> m_items, m_tmp;
    std::vector<KeyCodec::Decoded> m_decoded;
    std::vector<Value> m_values;
};

} // namespace tideline::window
