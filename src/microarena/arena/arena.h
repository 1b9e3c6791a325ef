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

class Arena {
 public:
  // `buffer` is borrowed: it must outlive the arena. `alignment` is a power of
  // two >= 4; every pointer handed out is aligned to it (and to `alignment`
  // asked per call when larger).
  Arena(uint8_t* buffer, size_t size_bytes, size_t alignment = 16);

  // `bytes` from the tail. Errors (kOutOfMemory) say the area, the bytes
  // requested, available and missing.
  Result<uint8_t*> AllocatePersistent(size_t bytes);
  // `bytes` from temp, above the previous temp allocations (so successive
  // temp allocations of multiples of the alignment are contiguous).
  Result<uint8_t*> AllocateTemp(size_t bytes);
  // Releases all temp memory (the peak is remembered).
  void ResetTemp() { temp_bytes_ = 0; }
  // Releases the newest temp memory, down to `temp_bytes` (a value
  // temp_bytes() had; the peak is remembered). Never grows.
  void ReleaseTempTo(size_t temp_bytes) {
    if (temp_bytes < temp_bytes_) temp_bytes_ = temp_bytes;
  }
  // Reserves at least `head_bytes` of head (the head only grows: interpreters
  // sharing one arena each commit theirs, the largest wins); temp must have
  // been reset.
  Status CommitHead(size_t head_bytes);
  // Gives back the newest persistent bytes, down to `tail_bytes` (a failed
  // AllocateTensors in a shared arena returns what it took; an op's data
  // found identical in the model's flash). Never grows; used_bytes() keeps
  // counting the peak the given-back bytes reached.
  void ShrinkTailTo(size_t tail_bytes) {
    if (tail_bytes < tail_bytes_) tail_bytes_ = tail_bytes;
  }
  // Restarts the temp peak that temp_peak_since_mark_bytes() reports (the
  // arena-wide temp_peak_bytes() keeps counting).
  void MarkTempPeak() { temp_mark_peak_bytes_ = temp_bytes_; }
  size_t temp_peak_since_mark_bytes() const { return temp_mark_peak_bytes_; }

  uint8_t* head_start() const { return start_; }
  size_t persistent_bytes() const { return tail_bytes_; }
  size_t head_bytes() const { return head_bytes_; }
  size_t temp_bytes() const { return temp_bytes_; }
  size_t temp_peak_bytes() const { return temp_peak_bytes_; }
  size_t start_padding_bytes() const { return start_padding_; }
  // start padding + tail + max(head, temp peak), or the largest tail + temp
  // (or head) at any moment when the tail was larger before some bytes were
  // given back: the smallest buffer (at this start address) that would hold
  // everything allocated so far.
  size_t used_bytes() const;
  size_t usable_bytes() const { return usable_bytes_; }
  // The alignment plans are made with (buffer sizes and head offsets).
  size_t alignment() const { return alignment_; }
  // What every persistent and temp allocation is rounded to and aligned at:
  // the plan alignment, but at least what the host's pointers and size_t need
  // (8 on a 64-bit host, 4 on Cortex-M), so that the interpreter's own
  // structures are never misaligned even with a 4-byte plan alignment.
  size_t granule() const { return granule_; }

#ifdef MICROARENA_TEST_HOOKS
  // Fault injection for the host's tests. A compile definition rather than an
  // observer interface: the device build then carries no hook at all (no
  // counter, no pointer, no branch per allocation). The top-level
  // CMakeLists.txt makes it a usage requirement of microarena_core in host
  // builds with tests, since it changes this class's layout: a program that
  // links the core must be compiled with it too.
  //
  // Makes the `n`-th allocation from now on (1 = the next) fail as if the
  // arena were full; 0 turns it off. Counts persistent, temp and head.
  void FailAllocationNumber(uint32_t n) { fail_countdown_ = n; }
  // Allocations asked of this arena so far (persistent, temp and head; failed
  // ones included): FailAllocationNumber(k) for k in [1, count] fails each once.
  uint32_t allocation_count() const { return allocation_count_; }
#endif

 private:
  Status NoRoom(ArenaArea area, size_t requested, size_t available) const;
  void NotePeak();
#ifdef MICROARENA_TEST_HOOKS
  bool ShouldInjectFailure();
#else
  static constexpr bool ShouldInjectFailure() { return false; }
#endif

  uint8_t* start_ = nullptr;     // aligned start of the usable region
  size_t usable_bytes_ = 0;      // aligned length of the usable region
  size_t start_padding_ = 0;     // bytes skipped to align the start
  size_t alignment_ = 16;
  size_t granule_ = 16;
  size_t tail_bytes_ = 0;
  size_t temp_bytes_ = 0;
  size_t temp_peak_bytes_ = 0;
  size_t temp_mark_peak_bytes_ = 0;
  size_t head_bytes_ = 0;
  size_t peak_bytes_ = 0;  // largest tail + max(head, temp) after any allocation
#ifdef MICROARENA_TEST_HOOKS
  uint32_t fail_countdown_ = 0;
  uint32_t allocation_count_ = 0;
#endif
};

}  // namespace microarena
