#include "microarena/plan/types.h"

namespace microarena {

const char* BufferKindName(BufferKind kind) {
  switch (kind) {
    case BufferKind::kTensor: return "tensor";
    case BufferKind::kScratch: return "scratch";
  }
  return "unknown";
}

}  // namespace microarena
