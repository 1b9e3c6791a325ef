// FlexbufferMap: the scalars of a FlexBuffers map, read with bounds checks.
//
// Custom ops carry their options as a FlexBuffers map (e.g. the detection
// post-processing op's "max_detections", "nms_iou_threshold", ...). The bytes
// come from an untrusted model, so every offset, width and length is checked
// before it is followed; a malformed buffer gives an error, never a read
// outside `bytes`. Only what options need is read: the root map, its keys and
// its scalar values (int, uint, float, bool, inline or indirect). Strings,
// vectors, blobs and nested maps are reported as "not a number".
//
//   Result<FlexbufferMap> map = FlexbufferMap::Parse(op.custom_options());
//   int32_t max_detections = 0;
//   bool present = false;
//   MICROARENA_RETURN_IF_ERROR(map->GetInt32("max_detections", &max_detections, &present));
//
// Layout read (FlexBuffers' own; all integers little-endian, offsets point
// backwards, i.e. target = position - offset):
//
//   ... keys: [count][off key0][off key1]...   key i -> "name\0" elsewhere
//   ... map:  [off keys][keys width][count] | v0 v1 ... v(n-1) | t0 t1 ... t(n-1)
//                                             ^ map position     packed types (1 B each)
//   ... root: [off map] [packed type of root] [root width]     <- last two bytes
//
// Each value slot is `map width` bytes; a packed type byte is
// (type << 2) | log2(width of the indirect target). Keys are sorted (byte
// order) and looked up by binary search, as FlexBuffers' reader does.
//
// Cost: Parse checks the header, O(1); each lookup is O(log n) key compares.
// No heap; the map borrows `bytes`, which must outlive it.
#pragma once

#include <cstddef>
#include <cstdint>

#include "microarena/base/result.h"
#include "microarena/base/span.h"
#include "microarena/base/status.h"

namespace microarena {

class FlexbufferMap {
 public:
  // Reads the root of `bytes` as a map. Errors (kInvalidArgument) say what is
  // wrong: empty or truncated bytes, a root that is not a map, a width that
  // is not 1, 2, 4 or 8, an offset or length that leaves the bytes.
  static Result<FlexbufferMap> Parse(Span<const uint8_t> bytes);

  // Number of keys.
  size_t size() const { return count_; }

  // The value under `key` converted as FlexBuffers' AsInt32 / AsFloat / AsBool
  // convert numbers. *present is false (and *value unchanged) when the key is
  // absent or its value is null. Errors (kInvalidArgument, naming the key): a
  // value that is not a number (string, vector, map, blob), an integer out of
  // int32 range, a float that is not finite or out of range for an int32 or
  // bool, a malformed slot (offset out of the bytes, bad width).
  Status GetInt32(const char* key, int32_t* value, bool* present) const;
  Status GetFloat(const char* key, float* value, bool* present) const;
  Status GetBool(const char* key, bool* value, bool* present) const;

 private:
  // One scalar value, as stored.
  struct Scalar {
    enum class Kind : uint8_t { kNull, kInt, kUInt, kFloat, kBool, kOther };
    Kind kind = Kind::kNull;
    uint8_t type = 0;  // the FlexBuffers type number, for messages
    int64_t int_value = 0;
    uint64_t uint_value = 0;
    double float_value = 0.0;
  };

  FlexbufferMap() = default;
  // Finds `key`; *found false when absent. Errors for malformed keys.
  Status Find(const char* key, Scalar* scalar, bool* found) const;
  // Compares `key` with key i of the map (as strcmp does); errors when key
  // i's offset or text leaves the bytes.
  Status CompareKey(const char* key, size_t index, int* order) const;
  Status ReadValue(const char* key, size_t index, Scalar* scalar) const;

  const uint8_t* bytes_ = nullptr;
  size_t size_bytes_ = 0;
  size_t values_position_ = 0;  // byte offset of value slot 0
  size_t keys_position_ = 0;    // byte offset of key offset 0
  size_t count_ = 0;
  uint8_t value_width_ = 1;  // bytes per value slot
  uint8_t key_width_ = 1;    // bytes per key offset
};

}  // namespace microarena
