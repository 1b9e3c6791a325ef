#!/usr/bin/env bash
# Installs the Debian packages microarena needs to build and test; idempotent:
# packages already present are not touched, and apt is not called at all when
# nothing is missing. Run as root (or with sudo available).
set -euo pipefail

packages=(
  build-essential cmake ninja-build g++ git python3   # ninja: the presets' generator
  libflatbuffers-dev flatbuffers-compiler   # model schema (flatc at build time)
  libcli11-dev nlohmann-json3-dev libfmt-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  chromium                                  # headless check of the HTML plan report
  clang libclang-rt-14-dev                  # libFuzzer targets (scripts/fuzz.sh)
  gcc-arm-none-eabi libnewlib-arm-none-eabi libstdc++-arm-none-eabi-newlib  # Cortex-M4 firmware
  qemu-system-arm                           # runs the firmware (mps2-an386)
  pkgconf                                   # the installed package's microarena.pc (tests/package)
  valgrind                                  # instructions per Invoke (bench/callgrind_invoke.sh, scripts/figures.sh)
  pybind11-dev python3-dev python3-numpy python3-matplotlib python3-pytest  # the Python module (python/)
  python3-venv python3-setuptools python3-pip                              # pip install . (README "Python")
)
if [[ "${MICROARENA_DEPS_EXTRA:-}" != "" ]]; then
  read -r -a extra <<<"$MICROARENA_DEPS_EXTRA"
  packages+=("${extra[@]}")
fi

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "deps: all ${#packages[@]} packages present"
  exit 0
fi

echo "deps: installing ${missing[*]}"
sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "deps: not root and no sudo; install: ${missing[*]}" >&2; exit 1; }
  sudo_cmd=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
