#include "tools/microarena/cli_util.h"

#include <cstdio>

#include "tools/microarena/commands.h"

namespace microarena::cli {

int PrintError(const Status& status) {
  std::fprintf(stderr, "error: %s\n", status.message());
  return kExitError;
}

}  // namespace microarena::cli
