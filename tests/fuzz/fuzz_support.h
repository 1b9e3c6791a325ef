// Helpers shared by the fuzz targets: an aligned copy of the fuzzer's bytes
// (LoadModel needs a 4-byte aligned start, libFuzzer gives none) and a check
// that turns a broken invariant into a crash libFuzzer reports.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "microarena/base/span.h"
#include "microarena/base/status.h"

namespace microarena::fuzz {

// The fuzzer's bytes copied into 8-byte aligned storage.
class AlignedBytes {
 public:
  AlignedBytes(const uint8_t* data, size_t size) : storage_((size + 7) / 8 + 1), size_(size) {
    if (size != 0) std::memcpy(storage_.data(), data, size);
  }
  Span<const uint8_t> span() const { return Span<const uint8_t>(reinterpret_cast<const uint8_t*>(storage_.data()), size_); }

 private:
  std::vector<uint64_t> storage_;
  size_t size_;
};

// A property that must hold whatever the input: abort (a finding) when it does not.
inline void Require(bool condition, const char* what, const Status& status = OkStatus()) {
  if (condition) return;
  std::fprintf(stderr, "fuzz invariant broken: %s: %s\n", what, status.ok() ? "" : status.message());
  std::abort();
}

// Every error message must be non-empty text: the contract is "a clear error".
inline void RequireMessage(const Status& status, const char* where) {
  if (status.ok()) return;
  Require(status.message() != nullptr && status.message()[0] != '\0', where, status);
}

}  // namespace microarena::fuzz
