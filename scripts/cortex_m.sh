#!/usr/bin/env bash
# The Cortex-M4 target: cross-compiles the firmware of examples/cortex_m (-Os,
# Cortex-M4F) for the demo model and every model of the shared data; runs
# each under QEMU (mps2-an386, semihosting, -icount shift=0 so the board's
# timer counts instructions) and checks, per model:
#  - its outputs equal `microarena run --seed 1` on the host byte for byte,
#    and the golden outputs where the shared data has them;
#  - the arena header's kTensorArenaSize is the device's minimum (the
#    firmware finds that the used size works and one alignment step less
#    fails);
#  - vww_96_int8 runs once more tiled (vww_96_int8_tiled: optimize --overlap
#    --tile, plan --tile --header, main.cc with MICROARENA_FIRMWARE_TILED):
#    outputs equal the host's run of that file and TFLM's goldens, arena at
#    most 0.33 x TFLM's on the board and 33,200 B;
#  - the arena is at most 0.75 x TFLM's minimum arena on the same board
#    (golden/tflm_arena_cortex_m4.csv), 0.42 x and 43,400 B on vww_96_int8,
#    0.58 x and 13,900 B on kws_ref_model, and the temp peak is within the
#    head (the firmware embeds the optimized model: nothing planned at boot);
#  - arena + peak stack is at most 0.85 x (TFLM's minimum arena on the same
#    board (golden/tflm_arena_cortex_m4.csv) + TFLM's peak stack, 640 B in
#    Invoke on kws);
#  - the peak stack and the runtime's static RAM are at most what `plan
#    --target cortex-m` adds to the arena for the device's RAM (the figures
#    of runtime/target_layout.h);
#  - no object of the runtime or the kernels calls a printf-family function
#    (the link map's cross references);
#  - for kws_ref_model, TFLM's figures on the same board at -Os: the stack of
#    each phase at most TFLM's (LoadModel 176 B, AllocateTensors 580 B,
#    Invoke 640 B); the flash of runtime + kernels built with the reference
#    int8 kernels (-DMICROARENA_REFERENCE_INT8_KERNELS=ON, the lean choice) at
#    most TFLM's core + reference kernels (40,746 B), and the fast kernels at
#    most 30 KB;
#  - the fast int8 and 16x8 kernels equal the reference kernels on the
#    device on random cases of every op (kernel_check.elf, at -Os and at -O2);
#  - speed: the MLPerf models built at -O2 too (build/cortex_m_o2), outputs
#    identical to the host's, instructions per Invoke at most TFLM + CMSIS-NN's
#    at -O2 and at most 1.3 x theirs at -Os.
# Prints arena, stack per phase, RAM, instructions per Invoke, and the
# flash/RAM split from arm-none-eabi-size and the link map; writes them to
# build/cortex_m/figures.txt ("<model> <figure> <value>" lines, TFLM's as
# model "tflm", the -O2 counts as "instructions_o2"), and when kws_ref_model
# ran, holds README.md's kws and speed figures to them (scripts/figures.sh
# --check --only cortex-m,cortex-m-speed).
#   scripts/cortex_m.sh        (uses build/release's CLI, building it if missing)
# Environment: MICROARENA_HOST_CLI (a host CLI), MICROARENA_SHARED_DIR,
# MICROARENA_QEMU_TIMEOUT (seconds per run, default 300),
# MICROARENA_CORTEX_M_MODELS (space-separated shared model names: only these),
# MICROARENA_STRICT (1, as scripts/test.sh sets it: a missing cross compiler,
# QEMU or shared data fails the stage; otherwise the stage, or the shared
# models, are skipped with a message saying what is missing).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

# TFLM on the same board at -Os with reference kernels, kws_ref_model's six ops
# only, measured as the firmware measures ours: stack per phase (LoadModel,
# AllocateTensors, Invoke) and flash of its core and of the six kernels.
tflm_stack_load=176 tflm_stack_alloc=580 tflm_stack_invoke=640
tflm_flash_runtime=18539 tflm_flash_kernels=22207
# TFLM with Arm's CMSIS-NN kernels (cmsis_instructions) and with its
# reference kernels (for the README's table), instructions per Invoke at
# -O2: the speed to match. The fast int8 kernels must need at most these at
# -O2 and at most 1.3 x at -Os, and kws's kernels at most 30 KB of flash at
# -Os (CMSIS-NN adds 42 KB).
source bench/tflm_cortex_m4_instructions.sh
fast_kernels_flash_limit=30720

# Stops on what is missing: an error in strict mode, else a skip ($2: 1 to end
# the stage, 0 to go on without the shared models).
missing() {
  if [[ ${MICROARENA_STRICT:-0} == 1 ]]; then
    echo "!! cortex_m: missing $1 (MICROARENA_STRICT=1: a missing part fails; MICROARENA_STRICT=0 skips instead)" >&2
    exit 1
  fi
  echo "cortex_m: SKIPPED ${3:-the stage}: missing $1 (MICROARENA_STRICT is not 1)"
  if [[ $2 == 1 ]]; then exit 0; fi
}
tools=()
for tool in arm-none-eabi-gcc arm-none-eabi-g++ arm-none-eabi-size qemu-system-arm; do
  command -v "$tool" >/dev/null || tools+=("$tool")
done
if [[ ${#tools[@]} -gt 0 ]]; then
  missing "${tools[*]} (Debian: gcc-arm-none-eabi, qemu-system-arm; scripts/deps.sh installs them)" 1
fi

host_cli=${MICROARENA_HOST_CLI:-build/release/tools/microarena/microarena}
if [[ ! -x $host_cli ]]; then
  echo "cortex_m: building the host CLI ($host_cli)"
  scripts/configure.sh release
  cmake --build --preset release -j "$(nproc 2>/dev/null || echo 2)" --target microarena
fi
host_cli=$(realpath "$host_cli")

build=build/cortex_m
mkdir -p "$build/models"
"$host_cli" demo-model -o "$build/models/demo.tflite" >/dev/null
declare -A model_paths=([demo]=$root/$build/models/demo.tflite)
names=(demo)
shared=${MICROARENA_SHARED_DIR:-../shared}
if [[ -d $shared/models ]]; then
  shared=$(realpath "$shared")
  for path in "$shared"/models/*.tflite; do
    name=$(basename "$path" .tflite)
    if [[ -n ${MICROARENA_CORTEX_M_MODELS:-} && " $MICROARENA_CORTEX_M_MODELS " != *" $name "* ]]; then continue; fi
    model_paths[$name]=$path
    names+=("$name")
  done
else
  missing "the shared models: no $shared/models (set MICROARENA_SHARED_DIR)" 0 "the shared models (kws_ref_model and the rest)"
fi
# vww_96_int8 once more, run tiled (`optimize --overlap --tile`; main.cc
# with MICROARENA_FIRMWARE_TILED): its first convolutions band by band.
tiled_names=""
if [[ -n ${model_paths[vww_96_int8]:-} ]]; then
  model_paths[vww_96_int8_tiled]=${model_paths[vww_96_int8]}
  names+=(vww_96_int8_tiled)
  tiled_names=vww_96_int8_tiled
fi
models=""
for name in "${names[@]}"; do models+="${models:+;}$name=${model_paths[$name]}"; done

echo "== cortex_m: cross-compile (arm-none-eabi-gcc, Cortex-M4F, -Os)"
cmake -S examples/cortex_m -B "$build" -DCMAKE_TOOLCHAIN_FILE="$root/cmake/arm-none-eabi.cmake" \
  -DCMAKE_BUILD_TYPE=MinSizeRel -DMICROARENA_HOST_CLI="$host_cli" -DMICROARENA_FIRMWARE_MODELS="$models" \
  -DMICROARENA_FIRMWARE_TILED="$tiled_names" ${MICROARENA_CORTEX_M_CMAKE_ARGS:-} >/dev/null
cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)"

# The stack and static RAM `plan --target cortex-m` counts for the device.
read -r stack_bound static_bound < <("$host_cli" plan "$build/models/demo.tflite" --target cortex-m --json |
  python3 -c 'import json, sys; d = json.load(sys.stdin)["device_ram"]; print(d["stack_bytes"], d["static_bytes"])')

# Runs one firmware under QEMU into a log; false when it fails or times out.
run_firmware() {
  timeout "${MICROARENA_QEMU_TIMEOUT:-300}" qemu-system-arm -M mps2-an386 -icount shift=0 -kernel "$1" \
    -semihosting-config enable=on,target=native -nographic -monitor none -serial none >"$2" 2>&1
}

# The fast int8 kernels against the reference kernels, on the device.
kernel_check() {
  local log=$1/kernel_check.qemu.txt
  if run_firmware "$1/kernel_check.elf" "$log" && grep -q "^ok$" "$log"; then
    echo "   kernel check ($2): $(sed -n 's/^kernel check: //p' "$log")"
  else
    echo "!! the fast int8 kernels differ from the reference kernels on the device ($2):" >&2
    cat "$log" >&2
    status=1
  fi
}

status=0
summary=$build/summary.txt
results=$build/figures.txt
# Whether every model ran (docs/cortex_m.md's per-model table needs it).
all_models=0
[[ -z ${MICROARENA_CORTEX_M_MODELS:-} && -d $shared/models ]] && all_models=1
echo "run all_models $all_models" >"$results"
printf 'tflm %s %s\n' load $tflm_stack_load alloc $tflm_stack_alloc invoke $tflm_stack_invoke \
  runtime $tflm_flash_runtime kernels $tflm_flash_kernels >>"$results"
printf '%-24s %8s %8s %8s %6s %6s %6s %8s %8s %6s %12s %7s %7s\n' model header minimum persist load alloc invoke ram tflm_ram \
  ratio instructions runtime kernels >"$summary"
for name in "${names[@]}"; do
  echo "== cortex_m: $name under qemu-system-arm -M mps2-an386"
  elf=$build/firmware_$name.elf
  log=$build/$name.qemu.txt
  if ! run_firmware "$elf" "$log"; then
    echo "!! $name: the firmware failed or timed out:" >&2
    cat "$log" >&2
    status=1
    continue
  fi
  grep -E "^(model|arena|minimum|stack|ram|instructions):" "$log" | sed 's/^/   device: /'
  # A tiled firmware's shared-data names (golden outputs, TFLM's arena) are its model's.
  base=$name
  [[ " $tiled_names " == *" $name "* ]] && base=${name%_tiled}
  host_dir=$build/host_$name
  mkdir -p "$host_dir"
  rm -f "$host_dir"/output_*.bin
  if [[ $name == "$base" ]]; then
    "$host_cli" run "${model_paths[$name]}" --seed 1 --output-dir "$host_dir" >"$host_dir/run.txt"
  else
    # The host runs the file the firmware embeds, with the tiling it carries.
    "$host_cli" run "$build/generated_$name/model.tflite" --overlap --seed 1 --output-dir "$host_dir" \
      >"$host_dir/run.txt"
    if ! grep -q "^  tiled " "$host_dir/run.txt"; then
      echo "!! $name: the host did not run $build/generated_$name/model.tflite tiled:" >&2
      cat "$host_dir/run.txt" >&2
      status=1
    fi
  fi
  expected=$build/$name.expected.txt
  : >"$expected"
  count=$(ls "$host_dir"/output_*.bin | wc -l)
  for ((i = 0; i < count; ++i)); do
    echo "output $i: $(od -An -v -tx1 "$host_dir/output_$i.bin" | tr -d ' \n')" >>"$expected"
  done
  if diff <(grep "^output " "$log") "$expected" >/dev/null && grep -q "^ok$" "$log"; then
    echo "   $name: $count output(s), $(cat "$host_dir"/output_*.bin | wc -c) bytes, identical to the host run"
  else
    echo "!! $name: device outputs differ from the host run:" >&2
    diff <(grep "^output " "$log") "$expected" | head -10 >&2 || true
    status=1
  fi
  golden=$shared/golden/$base/seed1
  if [[ -d $golden ]]; then
    for ((i = 0; i < count; ++i)); do
      if ! cmp -s "$host_dir/output_$i.bin" "$golden/output_$i.bin"; then
        echo "!! $name: output $i differs from TFLM's golden $golden/output_$i.bin" >&2
        status=1
      fi
    done
    echo "   $name: outputs identical to TFLM's goldens"
  fi

  # The header's arena must be the device's minimum, to the byte.
  header=$(sed -n 's/^arena: size \([0-9]*\) .*/\1/p' "$log")
  minimum=$(sed -n 's/^minimum: \([0-9]*\) works.*/\1/p' "$log")
  persistent=$(sed -n 's/^arena: .* persistent \([0-9]*\) .*/\1/p' "$log")
  read -r load alloc invoke < <(sed -n 's/^stack: load_model \([0-9]*\) allocate_tensors \([0-9]*\) invoke \([0-9]*\)$/\1 \2 \3/p' "$log")
  ram=$(sed -n 's/^ram: .* = \([0-9]*\)$/\1/p' "$log")
  instructions=$(sed -n 's/^instructions: invoke \([0-9]*\) .*/\1/p' "$log")
  per_tick=$(sed -n 's/^instructions: .* x \([0-9.]*\) per tick.*/\1/p' "$log")
  if [[ -z $minimum || $header != "$minimum" ]]; then
    echo "!! $name: the header reserves ${header:-?} B but the device's minimum arena is ${minimum:-?} B" >&2
    status=1
  else
    echo "   $name: header arena $header B = the device's minimum"
  fi
  # The timer must count instructions: 40 per tick at 25 MHz with -icount shift=0.
  if [[ -z $per_tick ]] || ! awk -v f="$per_tick" 'BEGIN {exit !(f > 39.9 && f < 40.1)}'; then
    echo "!! $name: the timer counted ${per_tick:-?} instructions per tick on a known loop (expected 40)" >&2
    status=1
  fi
  # The arena against TFLM's minimum on the same board, with every technique
  # the firmware uses (the optimized model: exact overlap plan stored whole,
  # kernel data in flash): at most 0.75 x on every model, 0.42 x and
  # 43,400 B on vww_96_int8, 0.58 x and 13,900 B on kws_ref_model; and
  # nothing planned at boot, so the temp peak stays within the head.
  temp_peak=$(sed -n 's/^arena: .* head \([0-9]*\) temp_peak \([0-9]*\)$/\2/p' "$log")
  head_bytes=$(sed -n 's/^arena: .* head \([0-9]*\) temp_peak \([0-9]*\)$/\1/p' "$log")
  if [[ $name != demo ]] && [[ -z $temp_peak || -z $head_bytes || $temp_peak -gt $head_bytes ]]; then
    echo "!! $name: temp peak ${temp_peak:-?} B is above the head ${head_bytes:-?} B: something was planned at boot" >&2
    status=1
  fi
  device_arena=$(awk -F, -v m="$base" '$1 == m {print $2}' "$shared/golden/tflm_arena_cortex_m4.csv" 2>/dev/null | head -1)
  if [[ -n $device_arena && -n $minimum ]]; then
    limit_percent=75 limit_bytes=
    [[ $name == vww_96_int8 ]] && limit_percent=42 limit_bytes=43400
    # Tiled, its first four ops' maps never exist whole: at most a third of TFLM's.
    [[ $name == vww_96_int8_tiled ]] && limit_percent=33 limit_bytes=33200
    [[ $name == kws_ref_model ]] && limit_percent=58 limit_bytes=13900
    if ((100 * minimum > limit_percent * device_arena)) || [[ -n $limit_bytes && $minimum -gt ${limit_bytes:-0} ]]; then
      echo "!! $name: arena $minimum B is more than 0.$limit_percent x TFLM's $device_arena B on this board" \
        "${limit_bytes:+or more than $limit_bytes B}" >&2
      status=1
    else
      echo "   $name: arena $minimum B, $(awk -v a="$minimum" -v b="$device_arena" 'BEGIN {printf "%.3f", a / b}') x" \
        "TFLM's $device_arena B on this board (limit 0.$limit_percent x${limit_bytes:+, $limit_bytes B})"
    fi
  fi
  # RAM against TFLM on the same board: its minimum arena for the model plus
  # its Invoke stack at -Os (measured on kws).
  tflm_arena=$(awk -F, -v m="$base" '$1 == m {print $2}' "$shared/golden/tflm_arena_cortex_m4.csv" 2>/dev/null | head -1)
  tflm_ram=- ratio=-
  if [[ -n $tflm_arena ]]; then
    tflm_ram=$((tflm_arena + tflm_stack_invoke))
    ratio=$(awk -v a="$ram" -v b="$tflm_ram" 'BEGIN {printf "%.3f", a / b}')
    # ram <= 0.85 x tflm_ram, in integers: 100 ram <= 85 tflm_ram.
    if [[ -z $ram || $((100 * ram)) -gt $((85 * tflm_ram)) ]]; then
      echo "!! $name: arena + peak stack ${ram:-?} B is more than 0.85 x TFLM's $tflm_ram B (${ratio} x)" >&2
      status=1
    else
      echo "   $name: arena + peak stack $ram B, TFLM $tflm_ram B (${ratio} x)"
    fi
  fi
  # Flash of the runtime and the kernels (the link map's split).
  sizes=$(python3 examples/cortex_m/size_report.py "$build/firmware_$name.elf" "$build/firmware_$name.map" "$root")
  runtime_flash=$(awk '$1 == "runtime" {print $2}' <<<"$sizes")
  kernels_flash=$(awk '$1 == "kernels" {print $2}' <<<"$sizes")
  runtime_ram=$(awk '$1 == "runtime" {print $3}' <<<"$sizes")
  # A split that found no object of the core would pass every check below.
  if ! ((${runtime_flash:-0} > 0 && ${kernels_flash:-0} > 0 && ${runtime_ram:-0} > 0)); then
    echo "!! $name: the link map's split found no runtime or kernel object:" >&2
    echo "$sizes" >&2
    status=1
  fi
  # The runtime and kernels call no printf (MICROARENA_STATUS_TEXT_ONLY).
  printf_callers=$(sed -n 's/^  printf family called by the runtime and kernels: //p' <<<"$sizes")
  if [[ $printf_callers != none ]]; then
    echo "!! $name: the runtime and kernels call printf-family functions: ${printf_callers:-(no cross reference table)}" >&2
    status=1
  fi
  peak_stack=$((load > alloc ? load : alloc))
  peak_stack=$((invoke > peak_stack ? invoke : peak_stack))
  model_stack_bound=$stack_bound
  if [[ $name != "$base" ]]; then
    # A tiled run's walk goes deeper: plan counts it for the file with its tiling.
    if ! model_stack_bound=$("$host_cli" plan "$build/generated_$name/model.tflite" --target cortex-m --overlap \
      --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["device_ram"]["stack_bytes"])'); then
      echo "!! $name: plan --target cortex-m failed on $build/generated_$name/model.tflite" >&2
      status=1
      model_stack_bound=0
    fi
  fi
  if ((peak_stack > model_stack_bound || runtime_ram > static_bound)); then
    echo "!! $name: peak stack $peak_stack B and runtime static RAM $runtime_ram B; plan counts $model_stack_bound" \
      "and $static_bound B (runtime/target_layout.h)" >&2
    status=1
  fi
  if [[ $name == kws_ref_model ]]; then
    # The fast kernels' flash (TFLM's reference kernels are compared with the
    # reference build's, below).
    if ((kernels_flash > fast_kernels_flash_limit)); then
      echo "!! $name: the fast kernels take $kernels_flash B of flash, more than $fast_kernels_flash_limit B" >&2
      status=1
    else
      echo "   $name: kernels flash $kernels_flash B (fast int8 kernels; at most $fast_kernels_flash_limit B)"
    fi
    tflm_stacks="$tflm_stack_load / $tflm_stack_alloc / $tflm_stack_invoke"
    if ((load > tflm_stack_load || alloc > tflm_stack_alloc || invoke > tflm_stack_invoke)); then
      echo "!! $name: stack $load / $alloc / $invoke B exceeds TFLM's $tflm_stacks B in some phase" >&2
      status=1
    else
      echo "   $name: stack per phase $load / $alloc / $invoke B, TFLM $tflm_stacks B"
    fi
    [[ -n $tflm_arena ]] && echo "tflm arena $tflm_arena" >>"$results"
  fi
  for figure in header minimum persistent load alloc invoke ram tflm_ram instructions; do
    echo "$name $figure ${!figure:--}" >>"$results"
  done
  echo "$name runtime ${runtime_flash:--}" >>"$results"
  echo "$name kernels ${kernels_flash:--}" >>"$results"
  awk -v n="$name" 'NF == 3 && $1 ~ /^(runtime|kernels|model|tensor_arena|startup\+libc)$/ {
    print n, "flash_" $1, $2; print n, "ram_" $1, $3 }' <<<"$sizes" >>"$results"
  printf '%-24s %8s %8s %8s %6s %6s %6s %8s %8s %6s %12s %7s %7s\n' "$name" "$header" "$minimum" "$persistent" "$load" \
    "$alloc" "$invoke" "$ram" "$tflm_ram" "$ratio" "$instructions" "$runtime_flash" "$kernels_flash" >>"$summary"
done

# TFLM's stack and flash figures are for kws: a run with the shared models
# must include it.
if [[ -n ${model_paths[kws_ref_model]:-} ]]; then
  :
elif [[ ${#names[@]} -gt 1 && -z ${MICROARENA_CORTEX_M_MODELS:-} ]]; then
  echo "!! kws_ref_model is missing from the shared models: no stack or flash comparison with TFLM" >&2
  status=1
fi

echo "== cortex_m: per model (bytes; stack per phase; ram = arena + peak stack; tflm_ram = TFLM's arena + $tflm_stack_invoke;"
echo "   runtime, kernels: flash; demo verifies and plans on the device, the others use a precomputed plan)"
cat "$summary"

echo "== cortex_m: the fast int8 and 16x8 kernels against the reference kernels on the device (kernel_check.elf)"
kernel_check "$build" -Os

# Speed at -O2, and the lean build: only with kws (TFLM's and CMSIS-NN's
# figures are for the MLPerf models).
if [[ -n ${model_paths[kws_ref_model]:-} ]]; then
  speed_models=""
  for name in kws_ref_model vww_96_int8 pretrainedResnet_quant ad01_int8; do
    [[ -n ${model_paths[$name]:-} ]] && speed_models+="${speed_models:+;}$name=${model_paths[$name]}"
  done
  o2=build/cortex_m_o2
  echo "== cortex_m: -O2 build of the MLPerf models ($o2)"
  cmake -S examples/cortex_m -B "$o2" -DCMAKE_TOOLCHAIN_FILE="$root/cmake/arm-none-eabi.cmake" \
    -DCMAKE_BUILD_TYPE=Release -DMICROARENA_HOST_CLI="$host_cli" -DMICROARENA_FIRMWARE_MODELS="$speed_models" \
    -DMICROARENA_FIRMWARE_PLAN_ON_DEVICE="" ${MICROARENA_CORTEX_M_CMAKE_ARGS:-} >/dev/null
  cmake --build "$o2" -j "$(nproc 2>/dev/null || echo 2)" >/dev/null
  kernel_check "$o2" -O2
  for entry in ${speed_models//;/ }; do
    name=${entry%%=*}
    log=$o2/$name.qemu.txt
    if ! run_firmware "$o2/firmware_$name.elf" "$log" || ! grep -q "^ok$" "$log" ||
        ! diff <(grep "^output " "$log") "$build/$name.expected.txt" >/dev/null; then
      echo "!! $name at -O2: the firmware failed or its outputs differ from the host run ($log)" >&2
      status=1
      continue
    fi
    o2_count=$(sed -n 's/^instructions: invoke \([0-9]*\) .*/\1/p' "$log")
    os_count=$(awk -v n="$name" '$1 == n && $2 == "instructions" {print $3}' "$results")
    target=${cmsis_instructions[$name]}
    if [[ ! $o2_count =~ ^[0-9]+$ || ! $os_count =~ ^[0-9]+$ ]]; then
      echo "!! $name: no instruction count at -Os (${os_count:-none}) or at -O2 (${o2_count:-none})" >&2
      status=1
      continue
    fi
    printf '%s %s %s\n' "$name" instructions_o2 "$o2_count" "$name" cmsis_o2 "$target" \
      "$name" tflm_reference_o2 "${tflm_reference_instructions[$name]}" >>"$results"
    if ((o2_count > target || os_count * 10 > target * 13)); then
      echo "!! $name: $os_count instructions per Invoke at -Os and $o2_count at -O2; TFLM + CMSIS-NN needs" \
        "$target at -O2 (the limits: that at -O2, 1.3 x at -Os)" >&2
      status=1
    else
      echo "   $name: instructions per Invoke $os_count at -Os, $o2_count at -O2; TFLM + CMSIS-NN $target at -O2"
    fi
  done

  reference=build/cortex_m_reference
  echo "== cortex_m: kws_ref_model with the reference int8 kernels, -Os ($reference)"
  cmake -S examples/cortex_m -B "$reference" -DCMAKE_TOOLCHAIN_FILE="$root/cmake/arm-none-eabi.cmake" \
    -DCMAKE_BUILD_TYPE=MinSizeRel -DMICROARENA_HOST_CLI="$host_cli" \
    -DMICROARENA_FIRMWARE_MODELS="kws_ref_model=${model_paths[kws_ref_model]}" -DMICROARENA_FIRMWARE_PLAN_ON_DEVICE="" \
    -DMICROARENA_REFERENCE_INT8_KERNELS=ON ${MICROARENA_CORTEX_M_CMAKE_ARGS:-} >/dev/null
  cmake --build "$reference" -j "$(nproc 2>/dev/null || echo 2)" --target firmware_kws_ref_model >/dev/null
  log=$reference/kws_ref_model.qemu.txt
  sizes=$(python3 examples/cortex_m/size_report.py "$reference/firmware_kws_ref_model.elf" \
    "$reference/firmware_kws_ref_model.map" "$root")
  runtime_flash=$(awk '$1 == "runtime" {print $2}' <<<"$sizes")
  kernels_flash=$(awk '$1 == "kernels" {print $2}' <<<"$sizes")
  core=$((${runtime_flash:-0} + ${kernels_flash:-0}))
  tflm_core=$((tflm_flash_runtime + tflm_flash_kernels))
  if ! ((${runtime_flash:-0} > 0 && ${kernels_flash:-0} > 0)); then
    echo "!! kws_ref_model with the reference int8 kernels: no flash figures from the link map" >&2
    status=1
  elif ! run_firmware "$reference/firmware_kws_ref_model.elf" "$log" ||
      ! diff <(grep "^output " "$log") "$build/kws_ref_model.expected.txt" >/dev/null; then
    echo "!! kws_ref_model with the reference int8 kernels: the firmware failed or its outputs differ ($log)" >&2
    status=1
  elif ((core > tflm_core)); then
    echo "!! kws_ref_model with the reference int8 kernels: runtime + kernels flash $core B is more than TFLM's" \
      "$tflm_core B" >&2
    status=1
  else
    echo "   kws_ref_model with the reference int8 kernels: runtime + kernels flash $core B, TFLM $tflm_core B;" \
      "$(sed -n 's/^instructions: invoke \([0-9]*\) .*/\1/p' "$log") instructions per Invoke"
  fi
  echo "kws_ref_model kernels_reference ${kernels_flash:--}" >>"$results"
  echo "kws_ref_model runtime_reference ${runtime_flash:--}" >>"$results"
fi

echo "== cortex_m: firmware size (arm-none-eabi-size; split from the link map)"
for name in "${names[@]}"; do
  arm-none-eabi-size "$build/firmware_$name.elf"
  python3 examples/cortex_m/size_report.py "$build/firmware_$name.elf" "$build/firmware_$name.map" "$root"
done

# The installed package for the target: examples/consumer, a project of its
# own, finds it with find_package(microarena) and links for the Cortex-M4.
echo "== cortex_m: the installed package (cmake --install) used by examples/consumer, cross-compiled"
package=$build/package
rm -rf "$package" "$build/consumer"
cmake --install "$build" --prefix "$package/prefix" >/dev/null
cmake -S examples/consumer -B "$build/consumer" -DCMAKE_TOOLCHAIN_FILE="$root/cmake/arm-none-eabi.cmake" \
  -DCMAKE_BUILD_TYPE=MinSizeRel -DCMAKE_PREFIX_PATH="$root/$package/prefix" \
  -DMICROARENA_FLATBUFFERS_INCLUDE_DIR="$root/$build/flatbuffers_include" \
  "-DCMAKE_EXE_LINKER_FLAGS=--specs=nano.specs --specs=nosys.specs" >"$package/consumer_configure.log"
cmake --build "$build/consumer" >"$package/consumer_build.log"
if ! arm-none-eabi-readelf -h "$build/consumer/arena_check" | grep -q "Machine: *ARM"; then
  echo "!! examples/consumer did not link for the Cortex-M against the installed package" >&2
  status=1
else
  echo "   examples/consumer: $(arm-none-eabi-size "$build/consumer/arena_check" | tail -1 | awk '{print $1 + $2}') B of" \
    "flash, linked against $package/prefix (microarena::core)"
fi

# README.md and docs/cortex_m.md quote these figures: they must be what this run measured.
if [[ -n ${model_paths[kws_ref_model]:-} ]]; then
  echo "== cortex_m: the figures README.md and docs/cortex_m.md quote against this run ($results)"
  blocks=cortex-m,cortex-m-sizes
  # The per-model table of docs/cortex_m.md and the speed table: only a run
  # of every model measures them.
  ((all_models)) && blocks+=,cortex-m-models,cortex-m-speed
  if ! scripts/figures.sh --check --only "$blocks" --cortex-m-results "$results"; then
    echo "!! the Cortex-M figures of README.md or docs/cortex_m.md differ from this run (above: figure, documented" \
      "value, measured value); scripts/figures.sh --write --only $blocks rewrites them from $results" >&2
    status=1
  fi
fi
exit $status
