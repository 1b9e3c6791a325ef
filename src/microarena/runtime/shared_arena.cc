#include "microarena/runtime/shared_arena.h"

namespace microarena {

SharedArena::SharedArena(uint8_t* buffer, size_t size_bytes, size_t alignment)
    : arena_(buffer, size_bytes, alignment),
      buffer_(buffer),
      size_bytes_(size_bytes),
      requested_alignment_(alignment) {}

Status SharedArena::Reset() {
  if (attached_ != 0) {
    return Status::Error(ErrorCode::kInvalidArgument,
                         "the shared arena cannot be reset while %zu interpreter(s) still use it "
                         "(their persistent areas, %zu B, would be handed out again)",
                         attached_, arena_.persistent_bytes());
  }
  arena_ = Arena(buffer_, size_bytes_, requested_alignment_);
  return OkStatus();
}

}  // namespace microarena
