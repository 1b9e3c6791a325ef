#include "microarena/analysis/offline_plan.h"

#include "microarena/base/align.h"

namespace microarena {

Result<Span<const int32_t>> ReadOfflinePlan(const ModelView& model, const char* metadata_name) {
  Span<const uint8_t> bytes = model.metadata(metadata_name);
  if (!model.has_metadata(metadata_name)) return Span<const int32_t>();
  constexpr size_t kHeaderWords = 3;
  if (bytes.size() % sizeof(int32_t) != 0 || bytes.size() < kHeaderWords * sizeof(int32_t)) {
    return Status::Error(ErrorCode::kMalformedModel,
                         "%s metadata: %zu bytes is not a whole number of int32 words of at least 3",
                         metadata_name, bytes.size());
  }
  if (!IsAligned(bytes.data(), alignof(int32_t))) {
    return Status::Error(ErrorCode::kMalformedModel, "%s metadata: the buffer is not 4-byte aligned",
                         metadata_name);
  }
  const auto* words = reinterpret_cast<const int32_t*>(bytes.data());
  const size_t word_count = bytes.size() / sizeof(int32_t);
  if (words[0] != 0) {
    return Status::Error(ErrorCode::kUnsupported, "%s metadata: version %d is not supported (expected 0)",
                         metadata_name, words[0]);
  }
  if (words[1] < 0 || static_cast<size_t>(words[1]) != model.subgraph_count()) {
    return Status::Error(ErrorCode::kMalformedModel,
                         "%s metadata: subgraph count %d but the model has %zu subgraphs",
                         metadata_name, words[1], model.subgraph_count());
  }
  size_t total_tensors = 0;
  for (size_t s = 0; s < model.subgraph_count(); ++s) total_tensors += model.subgraph(s).tensor_count();
  if (words[2] < 0 || static_cast<size_t>(words[2]) != total_tensors) {
    return Status::Error(ErrorCode::kMalformedModel,
                         "%s metadata: tensor count %d but the model has %zu tensors",
                         metadata_name, words[2], total_tensors);
  }
  if (word_count - kHeaderWords != total_tensors) {
    return Status::Error(ErrorCode::kMalformedModel,
                         "%s metadata: %zu offsets for %zu tensors", metadata_name,
                         word_count - kHeaderWords, total_tensors);
  }
  for (size_t t = 0; t < total_tensors; ++t) {
    if (words[kHeaderWords + t] < -1) {
      return Status::Error(ErrorCode::kMalformedModel, "%s metadata: tensor %zu has offset %d (below -1)",
                           metadata_name, t, words[kHeaderWords + t]);
    }
  }
  return Span<const int32_t>(words + kHeaderWords, total_tensors);
}

}  // namespace microarena
