#!/usr/bin/env bash
# Instructions per Invoke on a Cortex-M4F (QEMU mps2-an386, -icount shift=0:
# the board's timer counts instructions; the firmware of examples/cortex_m
# reads it around Invoke), per MLPerf Tiny model, built three ways in this
# run:
#   -Os and -O2 with the fast int8 kernels (kernels/optimized/), and
#   -O2 with the reference loops (-DMICROARENA_REFERENCE_INT8_KERNELS=ON,
#   TFLM's reference arithmetic): the baseline measured in the same run.
# Every run's outputs must equal TFLM's goldens byte for byte.
# Printed next to TFLM's own figures on the same board and firmware setup at
# -O2, with its reference kernels and with Arm's CMSIS-NN kernels; those two
# builds are not in ../shared, so their figures are constants
# (bench/tflm_cortex_m4_instructions.sh, shared with scripts/cortex_m.sh).
#   bench/cortex_m_invoke.sh            (uses build/release's CLI, building it if missing)
# Environment: MICROARENA_HOST_CLI, MICROARENA_SHARED_DIR,
# MICROARENA_BENCH_MODELS (space-separated: only these), MICROARENA_BENCH_BUILDS
# (space-separated, of os o2 o2_reference: only these builds).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
shared=$(realpath "${MICROARENA_SHARED_DIR:-../shared}")
models=(${MICROARENA_BENCH_MODELS:-kws_ref_model vww_96_int8 pretrainedResnet_quant ad01_int8})
source bench/tflm_cortex_m4_instructions.sh  # tflm_reference_instructions, cmsis_instructions

for tool in arm-none-eabi-g++ qemu-system-arm; do
  command -v "$tool" >/dev/null || { echo "$tool is not installed (scripts/deps.sh installs it)" >&2; exit 1; }
done
[[ -d $shared/models ]] || { echo "shared models not found at $shared (set MICROARENA_SHARED_DIR)" >&2; exit 1; }
host_cli=${MICROARENA_HOST_CLI:-build/release/tools/microarena/microarena}
if [[ ! -x $host_cli ]]; then
  scripts/configure.sh release
  cmake --build --preset release -j "$(nproc 2>/dev/null || echo 2)" --target microarena
fi
host_cli=$(realpath "$host_cli")
firmware_models=""
for name in "${models[@]}"; do firmware_models+="${firmware_models:+;}$name=$shared/models/$name.tflite"; done

declare -A count
status=0
builds=${MICROARENA_BENCH_BUILDS:-os o2 o2_reference}
for config in os:MinSizeRel:OFF o2:Release:OFF o2_reference:Release:ON; do
  IFS=: read -r label build_type reference <<<"$config"
  [[ " $builds " == *" $label "* ]] || continue
  build=build/bench_cortex_m_$label
  echo "== $label: cross-compile ($build_type, reference int8 kernels $reference)" >&2
  cmake -S examples/cortex_m -B "$build" -DCMAKE_TOOLCHAIN_FILE="$root/cmake/arm-none-eabi.cmake" \
    -DCMAKE_BUILD_TYPE="$build_type" -DMICROARENA_HOST_CLI="$host_cli" -DMICROARENA_FIRMWARE_MODELS="$firmware_models" \
    -DMICROARENA_FIRMWARE_PLAN_ON_DEVICE="" -DMICROARENA_REFERENCE_INT8_KERNELS="$reference" >/dev/null
  cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)" >/dev/null
  for name in "${models[@]}"; do
    log=$build/$name.qemu.txt
    if ! timeout 600 qemu-system-arm -M mps2-an386 -icount shift=0 -kernel "$build/firmware_$name.elf" \
        -semihosting-config enable=on,target=native -nographic -monitor none -serial none >"$log" 2>&1; then
      echo "!! $label $name: the firmware failed or timed out ($log)" >&2
      status=1
      continue
    fi
    golden=$shared/golden/$name/seed1/output_0.bin
    if [[ "$(sed -n 's/^output 0: //p' "$log")" != "$(od -An -v -tx1 "$golden" | tr -d ' \n')" ]]; then
      echo "!! $label $name: output 0 differs from TFLM's golden $golden" >&2
      status=1
    fi
    count[$label.$name]=$(sed -n 's/^instructions: invoke \([0-9]*\) .*/\1/p' "$log")
  done
done

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == 0) print "-"; else printf "%.3f", a / b }'; }
printf '%-24s %12s %12s %12s %12s %12s %9s %9s %9s\n' model "-Os" "-O2" "-O2 ref" "TFLM ref" "CMSIS-NN" \
  "ref/O2" "O2/CMSIS" "Os/CMSIS"
for name in "${models[@]}"; do
  os=${count[os.$name]:-}
  o2=${count[o2.$name]:-}
  ref=${count[o2_reference.$name]:-}
  printf '%-24s %12s %12s %12s %12s %12s %9s %9s %9s\n' "$name" "${os:--}" "${o2:--}" "${ref:--}" \
    "${tflm_reference_instructions[$name]:--}" "${cmsis_instructions[$name]:--}" "$(ratio "$ref" "$o2")" \
    "$(ratio "$o2" "${cmsis_instructions[$name]:-0}")" "$(ratio "$os" "${cmsis_instructions[$name]:-0}")"
done
exit $status
