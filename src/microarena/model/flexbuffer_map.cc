#include "microarena/model/flexbuffer_map.h"

#include <cstring>

namespace microarena {
namespace {

// FlexBuffers value types this reader knows.
constexpr uint8_t kTypeInt = 1;
constexpr uint8_t kTypeUInt = 2;
constexpr uint8_t kTypeFloat = 3;
constexpr uint8_t kTypeIndirectInt = 6;
constexpr uint8_t kTypeIndirectUInt = 7;
constexpr uint8_t kTypeIndirectFloat = 8;
constexpr uint8_t kTypeMap = 9;
constexpr uint8_t kTypeBool = 26;

bool ValidWidth(uint64_t width) { return width == 1 || width == 2 || width == 4 || width == 8; }

// Little-endian unsigned of `width` bytes at `pos`; false when outside.
bool ReadUInt(Span<const uint8_t> bytes, size_t pos, size_t width, uint64_t* value) {
  if (!ValidWidth(width) || pos > bytes.size() || bytes.size() - pos < width) return false;
  uint64_t v = 0;
  for (size_t i = 0; i < width; ++i) v |= static_cast<uint64_t>(bytes[pos + i]) << (8 * i);
  *value = v;
  return true;
}

bool ReadInt(Span<const uint8_t> bytes, size_t pos, size_t width, int64_t* value) {
  uint64_t bits = 0;
  if (!ReadUInt(bytes, pos, width, &bits)) return false;
  if (width < 8 && (bits >> (8 * width - 1)) != 0) bits |= ~uint64_t{0} << (8 * width);  // sign-extend
  std::memcpy(value, &bits, sizeof(*value));
  return true;
}

bool ReadDouble(Span<const uint8_t> bytes, size_t pos, size_t width, double* value) {
  uint64_t bits = 0;
  if ((width != 4 && width != 8) || !ReadUInt(bytes, pos, width, &bits)) return false;
  if (width == 4) {
    const auto low = static_cast<uint32_t>(bits);
    float f = 0.0f;
    std::memcpy(&f, &low, sizeof(f));
    *value = f;
  } else {
    std::memcpy(value, &bits, sizeof(*value));
  }
  return true;
}

// The position `offset` bytes before `pos`; false when it would be < 0.
bool Back(size_t pos, uint64_t offset, size_t* target) {
  if (offset > pos) return false;
  *target = pos - static_cast<size_t>(offset);
  return true;
}

}  // namespace

Status FlexbufferMap::Parse(Span<const uint8_t> bytes, FlexbufferMap* map) {
  const size_t n = bytes.size();
  if (n < 3) return Status::Error(ErrorCode::kMalformedModel, "FlexBuffers options of %zu bytes are too short", n);
  const size_t root_width = bytes[n - 1];
  const uint8_t packed = bytes[n - 2];
  if (!ValidWidth(root_width) || n < 2 + root_width) {
    return Status::Error(ErrorCode::kMalformedModel, "FlexBuffers root width %zu is invalid for %zu bytes", root_width,
                         n);
  }
  if ((packed >> 2) != kTypeMap) {
    return Status::Error(ErrorCode::kMalformedModel, "FlexBuffers root has type %d; expected a map (%d)", packed >> 2,
                         kTypeMap);
  }
  const size_t root = n - 2 - root_width;
  const size_t width = size_t{1} << (packed & 3);
  uint64_t offset = 0, size = 0, keys_offset = 0, key_width = 0;
  size_t values = 0, keys = 0;
  const bool ok = ReadUInt(bytes, root, root_width, &offset) && Back(root, offset, &values) && values >= 3 * width &&
                  ReadUInt(bytes, values - width, width, &size) &&
                  ReadUInt(bytes, values - 3 * width, width, &keys_offset) &&
                  ReadUInt(bytes, values - 2 * width, width, &key_width) &&
                  Back(values - 3 * width, keys_offset, &keys) && ValidWidth(key_width);
  if (!ok) return Status::Error(ErrorCode::kMalformedModel, "FlexBuffers map header lies outside its %zu bytes", n);
  // Values, then one type byte per value; keys: a sized vector of offsets.
  uint64_t key_count = 0;
  const bool fits = size <= n && values + size * width + size <= n && keys >= key_width &&
                    ReadUInt(bytes, keys - key_width, key_width, &key_count) && key_count == size &&
                    keys + size * key_width <= n;
  if (!fits) {
    return Status::Error(ErrorCode::kMalformedModel, "FlexBuffers map of %llu values does not fit its %zu bytes",
                         static_cast<unsigned long long>(size), n);
  }
  map->bytes_ = bytes;
  map->values_ = values;
  map->value_width_ = width;
  map->keys_ = keys;
  map->key_width_ = static_cast<size_t>(key_width);
  map->size_ = static_cast<size_t>(size);
  return OkStatus();
}

int64_t FlexbufferMap::Find(const char* key) const {
  const size_t key_length = std::strlen(key);
  for (size_t i = 0; i < size_; ++i) {
    const size_t entry = keys_ + i * key_width_;
    uint64_t offset = 0;
    size_t text = 0;
    if (!ReadUInt(bytes_, entry, key_width_, &offset) || !Back(entry, offset, &text)) continue;
    // The stored key must be `key` and its terminating NUL, all inside.
    if (text + key_length < bytes_.size() && std::memcmp(bytes_.data() + text, key, key_length) == 0 &&
        bytes_[text + key_length] == 0) {
      return static_cast<int64_t>(i);
    }
  }
  return -1;
}

Status FlexbufferMap::Value(const char* key, int64_t* as_int, double* as_double, bool* is_float) const {
  const int64_t index = Find(key);
  if (index < 0) return Status::Error(ErrorCode::kNotFound, "option '%s' is missing", key);
  const auto i = static_cast<size_t>(index);
  const uint8_t packed = bytes_[values_ + size_ * value_width_ + i];
  const uint8_t type = packed >> 2;
  size_t pos = values_ + i * value_width_;
  size_t width = value_width_;
  if (type == kTypeIndirectInt || type == kTypeIndirectUInt || type == kTypeIndirectFloat) {
    uint64_t offset = 0;
    if (!ReadUInt(bytes_, pos, width, &offset) || !Back(pos, offset, &pos)) {
      return Status::Error(ErrorCode::kMalformedModel, "option '%s' points outside the options", key);
    }
    width = size_t{1} << (packed & 3);
  }
  bool read = false;
  *is_float = false;
  switch (type) {
    case kTypeInt:
    case kTypeIndirectInt: read = ReadInt(bytes_, pos, width, as_int); break;
    case kTypeUInt:
    case kTypeIndirectUInt:
    case kTypeBool: {
      uint64_t bits = 0;
      read = ReadUInt(bytes_, pos, width, &bits) && bits <= static_cast<uint64_t>(INT64_MAX);
      *as_int = static_cast<int64_t>(bits);
      break;
    }
    case kTypeFloat:
    case kTypeIndirectFloat:
      read = ReadDouble(bytes_, pos, width, as_double);
      *is_float = true;
      break;
    default:
      return Status::Error(ErrorCode::kMalformedModel, "option '%s' has FlexBuffers type %d; expected a number", key,
                           type);
  }
  if (!read) return Status::Error(ErrorCode::kMalformedModel, "option '%s' lies outside the options", key);
  return OkStatus();
}

Status FlexbufferMap::GetInt(const char* key, int64_t* value) const {
  double as_double = 0.0;
  bool is_float = false;
  MICROARENA_RETURN_IF_ERROR(Value(key, value, &as_double, &is_float));
  if (is_float) return Status::Error(ErrorCode::kMalformedModel, "option '%s' is a float; expected an integer", key);
  return OkStatus();
}

Status FlexbufferMap::GetFloat(const char* key, float* value) const {
  int64_t as_int = 0;
  double as_double = 0.0;
  bool is_float = false;
  MICROARENA_RETURN_IF_ERROR(Value(key, &as_int, &as_double, &is_float));
  *value = is_float ? static_cast<float>(as_double) : static_cast<float>(as_int);
  return OkStatus();
}

Status FlexbufferMap::GetBool(const char* key, bool* value) const {
  int64_t as_int = 0;
  MICROARENA_RETURN_IF_ERROR(GetInt(key, &as_int));
  *value = as_int != 0;
  return OkStatus();
}

}  // namespace microarena
