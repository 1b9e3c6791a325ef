#!/usr/bin/env bash
# Configures one CMake preset into build/<preset> (cmake --preset NAME, extra
# arguments passed on). The presets build with Ninja, which schedules every
# object of every target on the free cores (make waits for a target's
# libraries before compiling its objects). CMake cannot switch a build folder
# to another generator in place: a folder configured with another one is
# emptied first, saying so.
#   scripts/configure.sh release
set -euo pipefail
cd "$(dirname "$0")/.."
[[ $# -ge 1 ]] || { echo "usage: scripts/configure.sh PRESET [cmake arguments...]" >&2; exit 2; }
preset=$1
shift
cache=build/$preset/CMakeCache.txt
if [[ -f $cache ]] && ! grep -qx 'CMAKE_GENERATOR:INTERNAL=Ninja' "$cache"; then
  echo "configure: build/$preset was configured with another generator; configuring it afresh with Ninja"
  rm -rf "build/$preset"
fi
exec cmake --preset "$preset" "$@" >/dev/null
