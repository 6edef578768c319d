#pragma once
// Seals for the checkpoint folder's small JSON files (manifests, task pointers). The state
// blobs carry CRC32Cs in the manifest, but the manifest itself and the pointers were trusted as
// read: a flipped bit or a hand edit of a watermark, `source_finished` or an offset restored
// silently wrong results. A seal is a CRC32C over the document's compact serialisation without
// the seal, stored as its last key, so any change to a value or a key is detected and the file
// is treated like a corrupt state file (the restore falls back or refuses with the fix).
//
// Documents written before seals existed carry none; they are accepted only in their old
// format (the caller decides which) so that checkpoints taken by earlier versions restore.

#include <tideline/engine/spec.hpp> // Json (nlohmann ordered_json)

#include <string>

namespace tideline::checkpoint {

inline constexpr const char *kSealKey = "crc32c";

/// Adds the seal (replacing one already there).
void seal(Json &doc);

enum class SealCheck {
    Valid,    ///< sealed, and the seal matches (removed from `doc`)
    Unsealed, ///< no seal: only an old-format document may be accepted
    Broken,   ///< sealed, but the content does not match: corrupt or edited
};

/// Checks and removes the seal of an object.
[[nodiscard]] SealCheck unseal(Json &doc);

} // namespace tideline::checkpoint
