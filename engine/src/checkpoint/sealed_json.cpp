#include "checkpoint/sealed_json.hpp"

#include "checkpoint/checksum.hpp"

namespace tideline::checkpoint {

void seal(Json &doc)
{
    doc.erase(kSealKey);
    doc[kSealKey] = crc32c(doc.dump());
}

SealCheck unseal(Json &doc)
{
    if (!doc.is_object())
        return SealCheck::Broken;
    auto it = doc.find(kSealKey);
    if (it == doc.end())
        return SealCheck::Unsealed;
    if (!it->is_number_unsigned())
        return SealCheck::Broken;
    const auto stored = it->get<std::uint64_t>();
    doc.erase(it);
    // ordered_json keeps the key order and nlohmann prints numbers, strings and literals the
    // same way every time, so re-serialising what was read reproduces the sealed bytes.
    return stored == crc32c(doc.dump()) ? SealCheck::Valid : SealCheck::Broken;
}

} // namespace tideline::checkpoint
