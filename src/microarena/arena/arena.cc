#include "microarena/arena/arena.h"

#include "microarena/base/align.h"

namespace microarena {

namespace {
// What the interpreter's structures in the arena need (pointers, size_t).
constexpr size_t kMinimumGranule = alignof(void*) > alignof(size_t) ? alignof(void*) : alignof(size_t);
}  // namespace

const char* ArenaAreaName(ArenaArea area) {
  switch (area) {
    case ArenaArea::kPersistent: return "persistent";
    case ArenaArea::kHead: return "head";
    case ArenaArea::kTemp: return "temp";
  }
  return "unknown";
}

Arena::Arena(uint8_t* buffer, size_t size_bytes, size_t alignment)
    : alignment_(IsPowerOfTwo(alignment) && alignment >= 4 ? alignment : 16),
      granule_(alignment_ > kMinimumGranule ? alignment_ : kMinimumGranule) {
  if (buffer == nullptr) return;
  const auto address = reinterpret_cast<uintptr_t>(buffer);
  const size_t misalignment = address & (granule_ - 1);
  start_padding_ = misalignment == 0 ? 0 : granule_ - misalignment;
  if (start_padding_ >= size_bytes) {
    // Too small to hold even the padding: nothing usable (every allocation fails).
    start_padding_ = size_bytes;
    start_ = buffer;
    return;
  }
  start_ = buffer + start_padding_;
  usable_bytes_ = (size_bytes - start_padding_) & ~(granule_ - 1);
}

size_t Arena::used_bytes() const {
  size_t low = head_bytes_ > temp_peak_bytes_ ? head_bytes_ : temp_peak_bytes_;
  const size_t used = tail_bytes_ + low;
  return start_padding_ + (used > peak_bytes_ ? used : peak_bytes_);
}

void Arena::NotePeak() {
  const size_t low = head_bytes_ > temp_bytes_ ? head_bytes_ : temp_bytes_;
  if (tail_bytes_ + low > peak_bytes_) peak_bytes_ = tail_bytes_ + low;
}

#ifdef MICROARENA_TEST_HOOKS
bool Arena::ShouldInjectFailure() {
  ++allocation_count_;
  if (fail_countdown_ == 0) return false;
  return --fail_countdown_ == 0;
}
#endif

Status Arena::NoRoom(ArenaArea area, size_t requested, size_t available) const {
  const size_t missing = requested - available;
  // This arena plus what is missing: a lower bound on the minimum arena
  // (later allocations may need more). Saturating.
  size_t needed = 0;
  if (__builtin_add_overflow(start_padding_ + usable_bytes_, missing, &needed)) needed = static_cast<size_t>(-1);
  return Status::Error(ErrorCode::kOutOfMemory,
                       "arena too small: the %s area needs %zu more bytes (requested %zu, available %zu, "
                       "missing %zu); arena %zu B holds persistent %zu B, head %zu B, temp %zu B; this "
                       "model needs an arena of at least %zu B",
                       ArenaAreaName(area), missing, requested, available, missing,
                       start_padding_ + usable_bytes_, tail_bytes_, head_bytes_, temp_bytes_, needed);
}

Result<uint8_t*> Arena::AllocatePersistent(size_t bytes) {
  size_t rounded = 0;
  if (!AlignUp(bytes, granule_, &rounded)) return NoRoom(ArenaArea::kPersistent, static_cast<size_t>(-1), 0);
  const size_t low = head_bytes_ > temp_bytes_ ? head_bytes_ : temp_bytes_;
  const size_t available = usable_bytes_ - tail_bytes_ - low;
  if (ShouldInjectFailure()) return NoRoom(ArenaArea::kPersistent, rounded + available + alignment_, available);
  if (rounded > available) return NoRoom(ArenaArea::kPersistent, rounded, available);
  tail_bytes_ += rounded;
  NotePeak();
  return start_ + (usable_bytes_ - tail_bytes_);
}

Result<uint8_t*> Arena::AllocateTemp(size_t bytes) {
  size_t rounded = 0;
  if (!AlignUp(bytes, granule_, &rounded)) return NoRoom(ArenaArea::kTemp, static_cast<size_t>(-1), 0);
  const size_t available = usable_bytes_ - tail_bytes_ - temp_bytes_;
  if (ShouldInjectFailure()) return NoRoom(ArenaArea::kTemp, rounded + available + alignment_, available);
  if (rounded > available) return NoRoom(ArenaArea::kTemp, rounded, available);
  uint8_t* result = start_ + temp_bytes_;
  temp_bytes_ += rounded;
  if (temp_bytes_ > temp_peak_bytes_) temp_peak_bytes_ = temp_bytes_;
  if (temp_bytes_ > temp_mark_peak_bytes_) temp_mark_peak_bytes_ = temp_bytes_;
  NotePeak();
  return result;
}

Status Arena::CommitHead(size_t head_bytes) {
  if (temp_bytes_ != 0) {
    return Status::Error(ErrorCode::kInternal, "the head is committed while %zu temp bytes are in use", temp_bytes_);
  }
  size_t rounded = 0;
  if (!AlignUp(head_bytes, alignment_, &rounded)) return NoRoom(ArenaArea::kHead, static_cast<size_t>(-1), 0);
  const size_t available = usable_bytes_ - tail_bytes_;
  if (ShouldInjectFailure()) return NoRoom(ArenaArea::kHead, rounded + available + alignment_, available);
  if (rounded > available) return NoRoom(ArenaArea::kHead, rounded, available);
  if (rounded > head_bytes_) head_bytes_ = rounded;
  NotePeak();
  return OkStatus();
}

}  // namespace microarena
