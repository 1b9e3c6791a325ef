#!/usr/bin/env bash
# PackageConsumerTest: the build installed under a prefix, then used by a
# project of its own (examples/consumer) through find_package(microarena),
# and by a plain compiler call through pkg-config. Both programs must load
# the demo model, run it and report the same arena as `microarena run`.
#   tests/package/consumer_test.sh SOURCE_DIR BUILD_DIR CXX
set -euo pipefail
source_dir=$1
build_dir=$2
cxx=$3
work=$build_dir/package_test
rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix

cmake --install "$build_dir" --prefix "$prefix" >"$work/install.log"
for need in lib/cmake/microarena/microarena-config.cmake lib/pkgconfig/microarena.pc lib/libmicroarena_base.a \
  include/microarena/runtime/interpreter.h include/microarena/schema/tflite_schema_generated.h bin/microarena; do
  [[ -e $prefix/$need ]] || { echo "not installed: $need" >&2; exit 1; }
done
if find "$prefix/include" -name '*test*' | grep -q .; then
  echo "test helpers were installed: $(find "$prefix/include" -name '*test*' | head -3)" >&2
  exit 1
fi

model=$work/demo.tflite
"$prefix/bin/microarena" demo-model -o "$model" >/dev/null
expected=$("$prefix/bin/microarena" run "$model" --json --output-dir "$work" |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["arena_used_bytes"])')

# find_package(microarena) from a project of its own.
cmake -S "$source_dir/examples/consumer" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_EXE_LINKER_FLAGS="${MICROARENA_LINK_FLAGS:-}" >"$work/consumer_configure.log"
cmake --build "$work/consumer" >"$work/consumer_build.log"
got=$("$work/consumer/arena_check" "$model")
[[ $got == "arena_used_bytes=$expected" ]] || {
  echo "find_package consumer: '$got', microarena run: $expected" >&2
  exit 1
}

# pkg-config, no CMake.
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
# shellcheck disable=SC2046
"$cxx" -std=c++17 "$source_dir/examples/consumer/main.cc" $(pkg-config --cflags --libs microarena) \
  ${MICROARENA_LINK_FLAGS:-} -o "$work/arena_check_pc"
got=$("$work/arena_check_pc" "$model")
[[ $got == "arena_used_bytes=$expected" ]] || {
  echo "pkg-config consumer: '$got', microarena run: $expected" >&2
  exit 1
}
echo "installed package: find_package and pkg-config consumers report arena_used_bytes=$expected, as microarena run"
