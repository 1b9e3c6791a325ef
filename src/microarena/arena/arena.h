// Arena: the one caller-owned buffer everything lives in at run time.
//
//   buffer                                                        buffer + size
//   | pad | head (planned tensors + scratch) | temp ->   free   <- tail | pad |
//         ^ start (aligned up)                                    end (aligned down) ^
//
//  - tail (persistent area): grows down from the end; lives until the
//    interpreter dies (tensor metadata, op data, variable tensors, scratch
//    offsets).
//  - temp: grows up from the start during Prepare and planning; released
//    (ResetTemp) before the head is committed. Its peak counts toward the
//    minimum arena.
//  - head (non-persistent area): the planned activations and scratch, from the
//    start; committed once its size is known.
//
// Every allocation size is rounded up to the arena's alignment, so the
// figures are exact: the minimum arena for a model is
// start padding + tail + max(head, temp peak), and one alignment step less
// fails. All arithmetic is overflow-checked; pointers are never formed out of
// range. No heap.
#pragma once

#include <cstddef>
#include <cstdint>

#include "microarena/base/result.h"

namespace microarena {

enum class ArenaArea : uint8_t { kPersistent = 0, kHead = 1, kTemp = 2 };
const char* ArenaAreaName(ArenaArea area);

// What a persistent allocation is for; the arena keeps the bytes per use so
// reports can break the tail down (heap-free: one counter per use).
enum class PersistentUse : uint8_t {
  kTensorMetadata = 0,  // one EvalTensor per tensor
  kOpTable = 1,         // the interpreter's node per op (kernel + op data pointers)
  kOpData = 2,          // kernels' op data (e.g. per-channel multipliers and shifts)
  kVariableState = 3,   // variable tensors (LSTM/RNN state)
  kScratchHandles = 4,  // the scratch offset table
  kWeightsCopy = 5,     // constant data copied in with copy_weights_to_arena
  kOther = 6,           // anything allocated without a use
};
constexpr size_t kPersistentUseCount = 7;
// A stable, lower-case name ("tensor metadata").
const char* PersistentUseName(PersistentUse use);

class Arena {
 public:
  // `buffer` is borrowed: it must outlive the arena. `alignment` is a power of
  // two >= 4; every pointer handed out is aligned to it (and to `alignment`
  // asked per call when larger).
  Arena(uint8_t* buffer, size_t size_bytes, size_t alignment = 16);

  // `bytes` from the tail, counted under `use`. Errors (kOutOfMemory) say the
  // area, the bytes requested, available and missing.
  Result<uint8_t*> AllocatePersistent(size_t bytes, PersistentUse use = PersistentUse::kOther);
  // `bytes` from temp, above the previous temp allocations (so successive
  // temp allocations of multiples of the alignment are contiguous).
  Result<uint8_t*> AllocateTemp(size_t bytes);
  // Releases all temp memory (the peak is remembered).
  void ResetTemp() { temp_bytes_ = 0; }
  // Reserves the head; temp must have been reset.
  Status CommitHead(size_t head_bytes);

  uint8_t* head_start() const { return start_; }
  size_t persistent_bytes() const { return tail_bytes_; }
  // The tail bytes allocated for `use` (rounded up to the alignment); the
  // uses sum to persistent_bytes().
  size_t persistent_bytes(PersistentUse use) const { return persistent_by_use_[static_cast<size_t>(use)]; }
  // The tail bytes asked for, before rounding: persistent_bytes() minus this
  // is what alignment costs in the tail.
  size_t persistent_requested_bytes() const { return persistent_requested_bytes_; }
  size_t head_bytes() const { return head_bytes_; }
  size_t temp_bytes() const { return temp_bytes_; }
  size_t temp_peak_bytes() const { return temp_peak_bytes_; }
  size_t start_padding_bytes() const { return start_padding_; }
  // start padding + tail + max(head, temp peak): the smallest buffer (at this
  // start address) that would hold everything allocated so far.
  size_t used_bytes() const;
  size_t usable_bytes() const { return usable_bytes_; }
  size_t alignment() const { return alignment_; }

  // Test hook: make the `n`-th allocation from now on (1 = the next) fail as if
  // the arena were full; 0 turns it off. Counts persistent, temp and head.
  void FailAllocationNumber(uint32_t n) { fail_countdown_ = n; }

 private:
  Status NoRoom(ArenaArea area, size_t requested, size_t available) const;
  bool ShouldInjectFailure();

  uint8_t* start_ = nullptr;     // aligned start of the usable region
  size_t usable_bytes_ = 0;      // aligned length of the usable region
  size_t start_padding_ = 0;     // bytes skipped to align the start
  size_t alignment_ = 16;
  size_t tail_bytes_ = 0;
  size_t temp_bytes_ = 0;
  size_t temp_peak_bytes_ = 0;
  size_t head_bytes_ = 0;
  size_t persistent_by_use_[kPersistentUseCount] = {};
  size_t persistent_requested_bytes_ = 0;
  uint32_t fail_countdown_ = 0;
};

}  // namespace microarena
