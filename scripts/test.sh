#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test: the release build and
# the AddressSanitizer + UndefinedBehaviorSanitizer build.
#   scripts/test.sh            both builds
#   MICROARENA_TEST_PRESETS="release" scripts/test.sh   only the named presets
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/deps.sh

jobs=$(nproc 2>/dev/null || echo 2)
presets=${MICROARENA_TEST_PRESETS:-"release asan"}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

for preset in $presets; do
  echo "== $preset: configure and build"
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset" -j "$jobs"
  echo "== $preset: tests"
  ctest --preset "$preset" -j "$jobs"
done
echo "== all tests passed ($presets)"
