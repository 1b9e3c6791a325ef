#include "microarena/kernels/kernel.h"

#include <cstdarg>
#include <cstdio>

namespace microarena {

Status PrepareContext::Error(ErrorCode code, const char* format, ...) const {
  va_list args;
  va_start(args, format);
  Status status = Status::ErrorV(code, format, args);
  va_end(args);
#ifdef MICROARENA_STATUS_TEXT_ONLY
  return status.Prefix(op().name());  // no numbers without printf (base/status.h)
#else
  char where[96];
  if (subgraph().index() != 0) {
    FormatText(where, sizeof(where), "subgraph %d, op %d (%s)", subgraph().index(), op().index(), op().name());
  } else {
    FormatText(where, sizeof(where), "op %d (%s)", op().index(), op().name());
  }
  return status.Prefix(where);
#endif
}

}  // namespace microarena
