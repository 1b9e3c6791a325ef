#include "microarena/model/flexbuffer_map.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "microarena/base/checked_math.h"

namespace microarena {
namespace {

// FlexBuffers type numbers (the high six bits of a packed type byte).
constexpr uint8_t kTypeNull = 0;
constexpr uint8_t kTypeInt = 1;
constexpr uint8_t kTypeUInt = 2;
constexpr uint8_t kTypeFloat = 3;
constexpr uint8_t kTypeKey = 4;
constexpr uint8_t kTypeString = 5;
constexpr uint8_t kTypeIndirectInt = 6;
constexpr uint8_t kTypeIndirectUInt = 7;
constexpr uint8_t kTypeIndirectFloat = 8;
constexpr uint8_t kTypeMap = 9;
constexpr uint8_t kTypeBlob = 25;
constexpr uint8_t kTypeBool = 26;

const char* TypeName(uint8_t type) {
  switch (type) {
    case kTypeNull: return "null";
    case kTypeInt: return "int";
    case kTypeUInt: return "uint";
    case kTypeFloat: return "float";
    case kTypeKey: return "key";
    case kTypeString: return "string";
    case kTypeIndirectInt: return "indirect int";
    case kTypeIndirectUInt: return "indirect uint";
    case kTypeIndirectFloat: return "indirect float";
    case kTypeMap: return "map";
    case kTypeBlob: return "blob";
    case kTypeBool: return "bool";
    default: return type >= 10 && type <= 36 ? "vector" : "unknown type";
  }
}

bool IsWidth(uint64_t width) { return width == 1 || width == 2 || width == 4 || width == 8; }

// The bytes as a bounds-checked little-endian reader over positions (never
// pointers outside the span).
class Reader {
 public:
  Reader(const uint8_t* bytes, size_t size) : bytes_(bytes), size_(size) {}

  // `width` bytes at `position`, zero-extended; false when they leave the bytes.
  bool UInt(size_t position, size_t width, uint64_t* value) const {
    if (position > size_ || width > size_ - position) return false;
    uint64_t result = 0;
    for (size_t i = 0; i < width; ++i) result |= static_cast<uint64_t>(bytes_[position + i]) << (8 * i);
    *value = result;
    return true;
  }
  // As UInt, sign-extended from `width` bytes.
  bool Int(size_t position, size_t width, int64_t* value) const {
    uint64_t raw = 0;
    if (!UInt(position, width, &raw)) return false;
    if (width < 8 && (raw >> (8 * width - 1)) != 0) raw |= ~uint64_t{0} << (8 * width);
    std::memcpy(value, &raw, sizeof(raw));
    return true;
  }
  // A 4- or 8-byte IEEE float at `position`, widened to double.
  bool Float(size_t position, size_t width, double* value) const {
    uint64_t raw = 0;
    if ((width != 4 && width != 8) || !UInt(position, width, &raw)) return false;
    if (width == 4) {
      const auto bits = static_cast<uint32_t>(raw);
      float f = 0.0f;
      std::memcpy(&f, &bits, sizeof(f));
      *value = static_cast<double>(f);
    } else {
      std::memcpy(value, &raw, sizeof(raw));
    }
    return true;
  }
  // The position `width` bytes at `position` point back to; false when the
  // offset field or its target leaves the bytes.
  bool Follow(size_t position, size_t width, size_t* target) const {
    uint64_t offset = 0;
    if (!UInt(position, width, &offset) || offset > position) return false;
    *target = position - static_cast<size_t>(offset);
    return true;
  }
  uint8_t Byte(size_t position) const { return bytes_[position]; }
  size_t size() const { return size_; }

 private:
  const uint8_t* bytes_;
  size_t size_;
};

Status Malformed(const char* what) {
  return Status::Error(ErrorCode::kInvalidArgument, "malformed FlexBuffers map: %s", what);
}

}  // namespace

Result<FlexbufferMap> FlexbufferMap::Parse(Span<const uint8_t> bytes) {
  const Reader reader(bytes.data(), bytes.size());
  if (bytes.size() < 3) {
    return Status::Error(ErrorCode::kInvalidArgument,
                         "malformed FlexBuffers map: %zu bytes, at least 3 (value, type, width) expected",
                         bytes.size());
  }
  const size_t n = bytes.size();
  const uint8_t root_width = reader.Byte(n - 1);
  const uint8_t root_packed = reader.Byte(n - 2);
  if (!IsWidth(root_width)) {
    return Status::Error(ErrorCode::kInvalidArgument, "malformed FlexBuffers map: root width %u is not 1, 2, 4 or 8",
                         root_width);
  }
  if (n - 2 < root_width) return Malformed("the root value is cut off");
  const size_t root_position = n - 2 - root_width;
  const uint8_t root_type = static_cast<uint8_t>(root_packed >> 2);
  if (root_type != kTypeMap) {
    return Status::Error(ErrorCode::kInvalidArgument, "FlexBuffers root is a %s, a map is expected",
                         TypeName(root_type));
  }
  FlexbufferMap map;
  map.bytes_ = bytes.data();
  map.size_bytes_ = n;
  map.value_width_ = static_cast<uint8_t>(1u << (root_packed & 3u));
  const size_t width = map.value_width_;
  if (!reader.Follow(root_position, root_width, &map.values_position_)) {
    return Malformed("the root offset points outside the bytes");
  }
  // Three prefix fields before value 0: keys offset, keys width, count.
  if (map.values_position_ < 3 * width) return Malformed("the map header is cut off");
  uint64_t count = 0;
  uint64_t key_width = 0;
  const size_t keys_field = map.values_position_ - 3 * width;
  if (!reader.UInt(map.values_position_ - width, width, &count) ||
      !reader.UInt(map.values_position_ - 2 * width, width, &key_width)) {
    return Malformed("the map header is cut off");
  }
  if (!IsWidth(key_width)) {
    return Status::Error(ErrorCode::kInvalidArgument, "malformed FlexBuffers map: key width %llu is not 1, 2, 4 or 8",
                         static_cast<unsigned long long>(key_width));
  }
  map.key_width_ = static_cast<uint8_t>(key_width);
  if (!reader.Follow(keys_field, width, &map.keys_position_)) {
    return Malformed("the keys offset points outside the bytes");
  }
  uint64_t key_count = 0;
  if (map.keys_position_ < map.key_width_ ||
      !reader.UInt(map.keys_position_ - map.key_width_, map.key_width_, &key_count)) {
    return Malformed("the keys vector's length is cut off");
  }
  if (key_count != count) {
    return Status::Error(ErrorCode::kInvalidArgument, "malformed FlexBuffers map: %llu keys for %llu values",
                         static_cast<unsigned long long>(key_count), static_cast<unsigned long long>(count));
  }
  // Value slots then one type byte per value; key offsets.
  size_t values_bytes = 0;
  size_t values_end = 0;
  size_t keys_bytes = 0;
  size_t keys_end = 0;
  if (count > n || !CheckedMul(static_cast<size_t>(count), width + 1, &values_bytes) ||
      !CheckedAdd(map.values_position_, values_bytes, &values_end) || values_end > n ||
      !CheckedMul(static_cast<size_t>(count), map.key_width_, &keys_bytes) ||
      !CheckedAdd(map.keys_position_, keys_bytes, &keys_end) || keys_end > n) {
    return Status::Error(ErrorCode::kInvalidArgument, "malformed FlexBuffers map: %llu entries do not fit in %zu bytes",
                         static_cast<unsigned long long>(count), n);
  }
  map.count_ = static_cast<size_t>(count);
  return map;
}

Status FlexbufferMap::CompareKey(const char* key, size_t index, int* order) const {
  const Reader reader(bytes_, size_bytes_);
  size_t text = 0;
  if (!reader.Follow(keys_position_ + index * key_width_, key_width_, &text)) {
    return Status::Error(ErrorCode::kInvalidArgument,
                         "malformed FlexBuffers map: key %zu points outside the bytes (looking up '%s')", index, key);
  }
  for (size_t i = 0;; ++i) {
    if (text + i >= size_bytes_) {
      return Status::Error(ErrorCode::kInvalidArgument,
                           "malformed FlexBuffers map: key %zu has no terminating NUL (looking up '%s')", index, key);
    }
    const auto a = static_cast<unsigned char>(key[i]);
    const unsigned char b = reader.Byte(text + i);
    if (a != b || a == 0) {
      *order = a < b ? -1 : (a > b ? 1 : 0);
      return OkStatus();
    }
  }
}

Status FlexbufferMap::Find(const char* key, Scalar* scalar, bool* found) const {
  // Binary search over the sorted keys, probing as bsearch does.
  size_t low = 0;
  size_t high = count_;
  while (low < high) {
    const size_t middle = (low + high) / 2;
    int order = 0;
    MICROARENA_RETURN_IF_ERROR(CompareKey(key, middle, &order));
    if (order < 0) {
      high = middle;
    } else if (order > 0) {
      low = middle + 1;
    } else {
      *found = true;
      return ReadValue(key, middle, scalar);
    }
  }
  *found = false;
  return OkStatus();
}

Status FlexbufferMap::ReadValue(const char* key, size_t index, Scalar* scalar) const {
  const Reader reader(bytes_, size_bytes_);
  const size_t slot = values_position_ + index * value_width_;
  const uint8_t packed = reader.Byte(values_position_ + count_ * value_width_ + index);
  const auto type = static_cast<uint8_t>(packed >> 2);
  const size_t target_width = size_t{1} << (packed & 3u);
  scalar->type = type;
  bool ok = true;
  size_t target = 0;
  switch (type) {
    case kTypeNull: scalar->kind = Scalar::Kind::kNull; break;
    case kTypeInt:
      scalar->kind = Scalar::Kind::kInt;
      ok = reader.Int(slot, value_width_, &scalar->int_value);
      break;
    case kTypeUInt:
      scalar->kind = Scalar::Kind::kUInt;
      ok = reader.UInt(slot, value_width_, &scalar->uint_value);
      break;
    case kTypeBool:
      scalar->kind = Scalar::Kind::kBool;
      ok = reader.UInt(slot, value_width_, &scalar->uint_value);
      break;
    case kTypeFloat:
      scalar->kind = Scalar::Kind::kFloat;
      ok = reader.Float(slot, value_width_, &scalar->float_value);
      break;
    case kTypeIndirectInt:
      scalar->kind = Scalar::Kind::kInt;
      ok = reader.Follow(slot, value_width_, &target) && reader.Int(target, target_width, &scalar->int_value);
      break;
    case kTypeIndirectUInt:
      scalar->kind = Scalar::Kind::kUInt;
      ok = reader.Follow(slot, value_width_, &target) && reader.UInt(target, target_width, &scalar->uint_value);
      break;
    case kTypeIndirectFloat:
      scalar->kind = Scalar::Kind::kFloat;
      ok = reader.Follow(slot, value_width_, &target) && reader.Float(target, target_width, &scalar->float_value);
      break;
    default: scalar->kind = Scalar::Kind::kOther; break;
  }
  if (!ok) {
    return Status::Error(ErrorCode::kInvalidArgument,
                         "malformed FlexBuffers map: the %s value of key '%s' (width %u) leaves the %zu bytes or has "
                         "a float width other than 4 or 8",
                         TypeName(type), key, static_cast<unsigned>(value_width_), size_bytes_);
  }
  return OkStatus();
}

Status FlexbufferMap::GetInt32(const char* key, int32_t* value, bool* present) const {
  Scalar scalar;
  bool found = false;
  MICROARENA_RETURN_IF_ERROR(Find(key, &scalar, &found));
  *present = found && scalar.kind != Scalar::Kind::kNull;
  if (!*present) return OkStatus();
  constexpr int64_t kMin = std::numeric_limits<int32_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  switch (scalar.kind) {
    case Scalar::Kind::kInt:
      if (scalar.int_value >= kMin && scalar.int_value <= kMax) {
        *value = static_cast<int32_t>(scalar.int_value);
        return OkStatus();
      }
      break;
    case Scalar::Kind::kUInt:
    case Scalar::Kind::kBool:
      if (scalar.uint_value <= static_cast<uint64_t>(kMax)) {
        *value = static_cast<int32_t>(scalar.uint_value);
        return OkStatus();
      }
      break;
    case Scalar::Kind::kFloat:
      // Truncated toward zero, as FlexBuffers' AsInt32 does.
      if (std::isfinite(scalar.float_value) && std::trunc(scalar.float_value) >= static_cast<double>(kMin) &&
          std::trunc(scalar.float_value) <= static_cast<double>(kMax)) {
        *value = static_cast<int32_t>(scalar.float_value);
        return OkStatus();
      }
      break;
    default:
      return Status::Error(ErrorCode::kInvalidArgument, "option '%s' is a %s, a number is expected", key,
                           TypeName(scalar.type));
  }
  return Status::Error(ErrorCode::kInvalidArgument, "option '%s' (%s) is out of the int32 range", key,
                       TypeName(scalar.type));
}

Status FlexbufferMap::GetFloat(const char* key, float* value, bool* present) const {
  Scalar scalar;
  bool found = false;
  MICROARENA_RETURN_IF_ERROR(Find(key, &scalar, &found));
  *present = found && scalar.kind != Scalar::Kind::kNull;
  if (!*present) return OkStatus();
  switch (scalar.kind) {
    case Scalar::Kind::kFloat: *value = static_cast<float>(scalar.float_value); return OkStatus();
    case Scalar::Kind::kInt: *value = static_cast<float>(static_cast<double>(scalar.int_value)); return OkStatus();
    case Scalar::Kind::kUInt:
    case Scalar::Kind::kBool: *value = static_cast<float>(static_cast<double>(scalar.uint_value)); return OkStatus();
    default:
      return Status::Error(ErrorCode::kInvalidArgument, "option '%s' is a %s, a number is expected", key,
                           TypeName(scalar.type));
  }
}

Status FlexbufferMap::GetBool(const char* key, bool* value, bool* present) const {
  Scalar scalar;
  bool found = false;
  MICROARENA_RETURN_IF_ERROR(Find(key, &scalar, &found));
  *present = found && scalar.kind != Scalar::Kind::kNull;
  if (!*present) return OkStatus();
  switch (scalar.kind) {
    case Scalar::Kind::kBool:
    case Scalar::Kind::kUInt: *value = scalar.uint_value != 0; return OkStatus();
    case Scalar::Kind::kInt: *value = scalar.int_value != 0; return OkStatus();
    default:
      return Status::Error(ErrorCode::kInvalidArgument, "option '%s' is a %s, a bool or integer is expected", key,
                           TypeName(scalar.type));
  }
}

}  // namespace microarena
