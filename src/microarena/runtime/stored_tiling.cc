#include "microarena/runtime/stored_tiling.h"

#include "microarena/runtime/kernel_data.h"

namespace microarena {

Result<Span<const TiledSegment>> ReadStoredTiling(const ModelView& model) {
  const Span<const uint8_t> blob = model.metadata(kStoredTilingMetadataName);
  if (blob.empty()) return Span<const TiledSegment>();
  const uint8_t* b = blob.data();
  if (blob.size() < kStoredTilingHeaderBytes || reinterpret_cast<uintptr_t>(b) % 4 != 0 ||
      LoadU32(b) != kStoredTilingMagic || LoadU32(b + 4) != kStoredTilingVersion) {
    return Status::Error(ErrorCode::kInvalidArgument, "metadata %s: not a version-%u tiling (%zu bytes)",
                         kStoredTilingMetadataName, static_cast<unsigned>(kStoredTilingVersion), blob.size());
  }
  if (LoadU64(b + 8) != ModelFingerprint(model)) return Span<const TiledSegment>();  // made for another model
  const size_t count = LoadU32(b + 24);
  if ((blob.size() - kStoredTilingHeaderBytes) / sizeof(TiledSegment) < count ||
      Fnv1a64(b + 24, blob.size() - 24) != LoadU64(b + 16)) {
    return Status::Error(ErrorCode::kInvalidArgument,
                         "metadata %s: %zu segments in %zu bytes, or the payload does not match its hash",
                         kStoredTilingMetadataName, count, blob.size());
  }
  return Span<const TiledSegment>(reinterpret_cast<const TiledSegment*>(b + kStoredTilingHeaderBytes), count);
}

uint64_t TilingFingerprint(uint64_t model_fingerprint, Span<const TiledSegment> segments) {
  uint64_t hash = model_fingerprint;
  for (const TiledSegment& segment : segments) {
    const int32_t fields[3] = {segment.first_op, segment.last_op, segment.band_rows};
    hash = Fnv1a64(reinterpret_cast<const uint8_t*>(fields), sizeof(fields), hash);
  }
  return hash;
}

bool IsStoredTiling(const ModelView& model, Span<const TiledSegment> segments) {
  Result<Span<const TiledSegment>> stored = ReadStoredTiling(model);
  if (!stored.ok() || stored->size() != segments.size() || segments.empty()) return false;
  for (size_t i = 0; i < segments.size(); ++i) {
    const TiledSegment& a = (*stored)[i];
    const TiledSegment& b = segments[i];
    if (a.first_op != b.first_op || a.last_op != b.last_op || a.band_rows != b.band_rows) return false;
  }
  return true;
}

}  // namespace microarena
