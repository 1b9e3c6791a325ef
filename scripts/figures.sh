#!/usr/bin/env bash
# The figures README.md's results quote, measured from the code and written
# between <!-- figures:NAME:begin (scripts/figures.sh) --> markers
# (scripts/figures.py does the work; its docstring says what each block holds).
#   scripts/figures.sh [--write | --check] [--only arena,instructions,solver,cortex-m,...] [BUILD_DIR]
# Without --write or --check it prints the blocks. --check exits 1, naming each
# figure whose README value differs from the measured one, with a diff.
# BUILD_DIR defaults to build/release (the release build: a sanitizer build
# executes other instructions). cortex-m reads the results scripts/cortex_m.sh
# wrote (build/cortex_m/figures.txt). Environment: MICROARENA_SHARED_DIR,
# MICROARENA_STRICT (1: a missing CLI, valgrind or shared data fails; otherwise
# the run is skipped with exit 77 and a line in MICROARENA_SKIP_LOG).
set -uo pipefail
cd "$(dirname "$0")/.."
python3 scripts/figures.py "$@"
status=$?
if [[ $status == 5 ]]; then  # something the figures need is missing (printed above)
  if [[ ${MICROARENA_STRICT:-0} == 1 ]]; then
    echo "!! figures: MICROARENA_STRICT=1: a missing part fails (MICROARENA_STRICT=0 skips instead)" >&2
    exit 1
  fi
  echo "figures: SKIPPED (MICROARENA_STRICT is not 1)"
  if [[ -n ${MICROARENA_SKIP_LOG:-} ]]; then
    echo "ReadmeFiguresTest: valgrind, the shared data or the CLI (scripts/figures.sh)" >>"$MICROARENA_SKIP_LOG"
  fi
  exit 77
fi
exit $status
