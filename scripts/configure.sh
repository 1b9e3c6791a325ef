#!/usr/bin/env bash
# Configures one CMake preset into build/<preset> (cmake --preset NAME, extra
# arguments passed on). The presets build with Ninja, which schedules every
# object of every target on the free cores (make waits for a target's
# libraries before compiling its objects). CMake keeps a build folder's
# generator: where another one configured the folder, its cache
# (CMakeCache.txt, CMakeFiles/) is removed first, saying so; whatever else
# the folder holds (a fuzz corpus, say) stays.
#   scripts/configure.sh release
set -euo pipefail
cd "$(dirname "$0")/.."
[[ $# -ge 1 ]] || { echo "usage: scripts/configure.sh PRESET [cmake arguments...]" >&2; exit 2; }
command -v ninja >/dev/null ||
  { echo "configure: ninja is missing (the presets' generator; scripts/deps.sh installs it: Debian ninja-build)" >&2; exit 1; }
preset=$1
shift
cache=build/$preset/CMakeCache.txt
if [[ -f $cache ]] && ! grep -qx 'CMAKE_GENERATOR:INTERNAL=Ninja' "$cache"; then
  echo "configure: build/$preset was configured with another generator; configuring it afresh with Ninja"
  rm -rf "$cache" "build/$preset/CMakeFiles"
fi
exec cmake --preset "$preset" "$@" >/dev/null
