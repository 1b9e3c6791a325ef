// Kernel data in flash: what the kernels' Prepare computes (per-channel
// multipliers and shifts, lookup tables, folded offsets), computed ahead of
// time on the host by `microarena optimize` and stored in the model under
// microarena's own metadata entry, so that a device reads it from flash
// instead of keeping a copy in the arena's persistent area.
//
// Format, version 1 (little-endian), stored 16-byte aligned in the model:
//   u32 magic "MAKD", u32 version, u32 op count, u32 entry count,
//   u64 model fingerprint (ModelFingerprint of the model it was made for),
//   u64 payload hash (FNV-1a 64 of every byte after this 32-byte header),
//   entry count x {u32 op, u32 offset, u32 bytes, u32 alignment}, ops in
//   strictly increasing order (ops numbered over all subgraphs, one after
//   the other, as the interpreter prepares them),
//   then the data: entry i's `bytes` at `offset` from the blob's start, a
//   multiple of its alignment.
//
// Never trusted blindly: the interpreter still runs every kernel's Prepare,
// and uses an op's stored bytes in place of the RAM copy only when they are
// byte-identical to what Prepare has just computed (then it gives the RAM
// copy back). A stale, corrupted or misaligned blob costs RAM and a note
// (KernelDataUse), never a wrong output or a read out of bounds. What must
// stay in the arena stays in RAM: kernels whose eval writes their op data or
// whose Prepare hands its address to a tensor
// (KernelRegistration::op_data_in_ram), and ops whose Prepare also took
// other persistent memory after its op data.
//
// Stock TFLM ignores metadata it does not know: the file still runs there.
#pragma once

#include <cstddef>
#include <cstdint>

#include "microarena/base/span.h"
#include "microarena/model/model_view.h"

namespace microarena {

inline constexpr const char* kKernelDataMetadataName = "microarena.KernelData";
inline constexpr uint32_t kKernelDataMagic = 0x444B414Du;  // "MAKD" little-endian
inline constexpr uint32_t kKernelDataVersion = 1;
inline constexpr size_t kKernelDataHeaderBytes = 32;
inline constexpr size_t kKernelDataEntryBytes = 16;

// What became of a model's kernel data.
enum class KernelDataState : uint8_t {
  kAbsent = 0,     // the model carries none: every op's data in RAM
  kUsed = 1,       // read from the model where identical (see KernelDataUse)
  kMalformed = 2,  // bad magic, sizes, entry table or alignment of an entry
  kCorrupted = 3,  // the payload hash does not match
  kStale = 4,      // made for another model (fingerprint or op count differ)
  kVersion = 5,    // a format version this runtime does not read
  kMisaligned = 6, // the blob does not start 16-byte aligned in memory
};
// A stable, lower-case name ("stale").
const char* KernelDataStateName(KernelDataState state);

// Little-endian fields of the stored blobs, read from any address.
inline uint32_t LoadU32(const uint8_t* at) {
  uint32_t value = 0;
  __builtin_memcpy(&value, at, sizeof(value));
  return value;
}
inline uint64_t LoadU64(const uint8_t* at) {
  uint64_t value = 0;
  __builtin_memcpy(&value, at, sizeof(value));
  return value;
}

// FNV-1a 64, the hash the format uses.
uint64_t Fnv1a64(const uint8_t* bytes, size_t size, uint64_t hash = 0xCBF29CE484222325ull);

// What kernel data is bound to: every subgraph's tensors (type, shape, size,
// constant or not, quantization) and operators (code, version, tensors, the
// options' type), in order. Constant contents are not hashed (that would
// cost a pass over all weights at boot): the byte comparison at Prepare
// covers them.
uint64_t ModelFingerprint(const ModelView& model);

struct KernelDataEntry {
  uint32_t op = 0;
  uint32_t offset = 0;
  uint32_t bytes = 0;
  uint32_t alignment = 0;
};

// A validated blob: nothing is read through it before Parse accepted it.
class KernelDataView {
 public:
  KernelDataView() = default;
  // Checks everything above; state() says what was wrong.
  static KernelDataView Parse(Span<const uint8_t> blob, size_t op_count, uint64_t fingerprint);
  KernelDataState state() const { return state_; }
  bool usable() const { return state_ == KernelDataState::kUsed; }
  size_t entry_count() const { return entry_count_; }
  // Entry `i` (i < entry_count()).
  KernelDataEntry entry(size_t i) const;
  const uint8_t* data(const KernelDataEntry& entry) const { return blob_ + entry.offset; }
  // The bytes of the whole blob (the flash it costs).
  size_t blob_bytes() const { return blob_bytes_; }

 private:
  const uint8_t* blob_ = nullptr;
  size_t blob_bytes_ = 0;
  size_t entry_count_ = 0;
  KernelDataState state_ = KernelDataState::kAbsent;
};

// What the interpreter did with a model's kernel data (all zero: none).
struct KernelDataUse {
  KernelDataState state = KernelDataState::kAbsent;
  size_t ops_in_flash = 0;      // ops whose data the runtime reads from the model
  size_t flash_bytes = 0;       // their data's bytes in the model
  size_t ram_bytes_saved = 0;   // persistent bytes given back (with rounding)
  size_t ops_recomputed = 0;    // ops with an entry that did not match: kept in RAM
  size_t blob_bytes = 0;        // the whole entry in the model (flash)
};

}  // namespace microarena
