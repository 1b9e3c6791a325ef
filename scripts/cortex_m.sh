#!/usr/bin/env bash
# The Cortex-M4 target: cross-compiles the firmware of examples/cortex_m (-Os,
# Cortex-M4F) for the demo model and, when the shared data is present,
# kws_ref_model; runs each under QEMU (mps2-an386, semihosting); checks that
# its outputs equal `microarena run --seed 1` on the host byte for byte; and
# prints the flash/RAM split from arm-none-eabi-size and the link map.
#   scripts/cortex_m.sh        (uses build/release's CLI, building it if missing)
# Environment: MICROARENA_HOST_CLI (a host CLI), MICROARENA_SHARED_DIR,
# MICROARENA_QEMU_TIMEOUT (seconds per run, default 300).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

host_cli=${MICROARENA_HOST_CLI:-build/release/tools/microarena/microarena}
if [[ ! -x $host_cli ]]; then
  echo "cortex_m: building the host CLI ($host_cli)"
  cmake --preset release >/dev/null
  cmake --build --preset release -j "$(nproc 2>/dev/null || echo 2)" --target microarena
fi
host_cli=$(realpath "$host_cli")

build=build/cortex_m
mkdir -p "$build/models"
"$host_cli" demo-model -o "$build/models/demo.tflite" >/dev/null
declare -A model_paths=([demo]=$root/$build/models/demo.tflite)
shared=${MICROARENA_SHARED_DIR:-../shared}
if [[ -f $shared/models/kws_ref_model.tflite ]]; then
  model_paths[kws_ref_model]=$(realpath "$shared/models/kws_ref_model.tflite")
else
  echo "cortex_m: SKIPPED kws_ref_model: no shared data at $shared (set MICROARENA_SHARED_DIR)"
fi
names=(demo)
[[ -n ${model_paths[kws_ref_model]:-} ]] && names+=(kws_ref_model)
models=""
for name in "${names[@]}"; do models+="${models:+;}$name=${model_paths[$name]}"; done

echo "== cortex_m: cross-compile (arm-none-eabi-gcc, Cortex-M4F, -Os)"
cmake -S examples/cortex_m -B "$build" -DCMAKE_TOOLCHAIN_FILE="$root/cmake/arm-none-eabi.cmake" \
  -DCMAKE_BUILD_TYPE=MinSizeRel -DMICROARENA_HOST_CLI="$host_cli" -DMICROARENA_FIRMWARE_MODELS="$models" \
  ${MICROARENA_CORTEX_M_CMAKE_ARGS:-} >/dev/null
cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)"

status=0
for name in "${names[@]}"; do
  echo "== cortex_m: $name under qemu-system-arm -M mps2-an386"
  elf=$build/firmware_$name.elf
  log=$build/$name.qemu.txt
  if ! timeout "${MICROARENA_QEMU_TIMEOUT:-300}" qemu-system-arm -M mps2-an386 -kernel "$elf" \
      -semihosting-config enable=on,target=native -nographic -monitor none -serial none >"$log" 2>&1; then
    echo "!! $name: the firmware failed or timed out:" >&2
    cat "$log" >&2
    status=1
    continue
  fi
  grep -E "^(model|arena|stack|ram):" "$log" | sed 's/^/   device: /'
  host_dir=$build/host_$name
  mkdir -p "$host_dir"
  rm -f "$host_dir"/output_*.bin
  "$host_cli" run "${model_paths[$name]}" --seed 1 --output-dir "$host_dir" >"$host_dir/run.txt"
  expected=$build/$name.expected.txt
  : >"$expected"
  count=$(ls "$host_dir"/output_*.bin | wc -l)
  for ((i = 0; i < count; ++i)); do
    echo "output $i: $(od -An -v -tx1 "$host_dir/output_$i.bin" | tr -d ' \n')" >>"$expected"
  done
  # RAM against TFLM on the same board: its minimum arena for the model
  # (golden/tflm_arena_cortex_m4.csv) plus its Invoke stack at -Os (640 B for
  # kws, measured the same way); microarena's arena + peak stack must be lower.
  tflm_arena=$(awk -F, -v m="${model_paths[$name]##*/}" '$1 ".tflite" == m {print $2}'     "$shared/golden/tflm_arena_cortex_m4.csv" 2>/dev/null | head -1)
  ram=$(sed -n 's/^ram: .* = \([0-9]*\)$/\1/p' "$log")
  if [[ -n $tflm_arena && $name == kws_ref_model ]]; then
    tflm_ram=$((tflm_arena + 640))
    if [[ -z $ram || $ram -ge $tflm_ram ]]; then
      echo "!! $name: arena + peak stack ${ram:-?} B is not below TFLM's $tflm_ram B" >&2
      status=1
    else
      echo "   $name: arena + peak stack $ram B, TFLM $tflm_ram B ($(awk -v a="$ram" -v b="$tflm_ram" 'BEGIN {printf "%.3f", a / b}') x)"
    fi
  fi
  if diff <(grep "^output " "$log") "$expected" >/dev/null && grep -q "^ok$" "$log"; then
    echo "   $name: $count output(s), $(cat "$host_dir"/output_*.bin | wc -c) bytes, identical to the host run"
  else
    echo "!! $name: device outputs differ from the host run:" >&2
    diff <(grep "^output " "$log") "$expected" | head -10 >&2 || true
    status=1
  fi
done

echo "== cortex_m: firmware size (arm-none-eabi-size; split from the link map)"
for name in "${names[@]}"; do
  arm-none-eabi-size "$build/firmware_$name.elf"
  python3 examples/cortex_m/size_report.py "$build/firmware_$name.elf" "$build/firmware_$name.map" "$root"
done
exit $status
