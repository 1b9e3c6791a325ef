// A reader for the FlexBuffers map that custom ops carry as options (TFLM's
// CIRCULAR_BUFFER, DETECTION_POSTPROCESS): scalar values by key, straight
// from the model's bytes. Every offset is bounds-checked: the bytes are
// untrusted, and a malformed map is an error, never a read outside them.
//
// Format facts (FlexBuffers): the buffer ends with the root value, its
// packed type (type << 2 | log2 of its own width) and the root's width. A
// map's values form a vector preceded by [keys offset, keys width, size]
// and followed by one packed type per value; keys are sorted C strings.
#pragma once

#include <cstddef>
#include <cstdint>

#include "microarena/base/span.h"
#include "microarena/base/status.h"

namespace microarena {

class FlexbufferMap {
 public:
  // Reads the root of `bytes` as a map (kMalformedModel otherwise). The map
  // borrows `bytes`.
  static Status Parse(Span<const uint8_t> bytes, FlexbufferMap* map);

  size_t size() const { return size_; }
  // True when the map has `key`.
  bool Has(const char* key) const { return Find(key) >= 0; }
  // The value at `key` as an integer (INT, UINT, BOOL or their indirect
  // forms); kNotFound when the key is absent, kMalformedModel for another
  // type or a value outside the bytes.
  Status GetInt(const char* key, int64_t* value) const;
  // The value at `key` as a float (FLOAT, or an integer type converted);
  // the same errors as GetInt.
  Status GetFloat(const char* key, float* value) const;
  // The value at `key` as a bool (BOOL, or an integer: non-zero is true).
  Status GetBool(const char* key, bool* value) const;

 private:
  // The index of `key`, or -1.
  int64_t Find(const char* key) const;
  // The value at index `i`: its type and bits (doubles for FLOAT).
  Status Value(const char* key, int64_t* as_int, double* as_double, bool* is_float) const;

  Span<const uint8_t> bytes_;
  size_t values_ = 0;       // offset of the values vector
  size_t value_width_ = 0;  // its element width
  size_t keys_ = 0;         // offset of the keys vector
  size_t key_width_ = 0;
  size_t size_ = 0;
};

}  // namespace microarena
