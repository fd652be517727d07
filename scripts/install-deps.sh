#!/usr/bin/env bash
# Installs, with apt, everything the build, the tests and the benchmarks need.
# Idempotent: packages already present are skipped, and apt is asked only when one is missing.
set -euo pipefail

packages=(
  g++ cmake make pkg-config
  libeigen3-dev libxsimd-dev libtbb-dev libsimdjson-dev libfmt-dev
  libtomlplusplus-dev
  # ai00 serve: HTTP (cpp-httplib) and request bodies (nlohmann-json), docs/server.md
  libcpp-httplib-dev nlohmann-json3-dev
  catch2 libbenchmark-dev
  python3-numpy
  # bindings/go (cgo; cargo for bindings/rust comes with the machine's rustup)
  golang-go
  python3-pytest valgrind mono-devel
  # the official JSON-Schema-Test-Suite (drafts 3-7) for the schema_suite test, docs/grammar.md
  json-schema-test-suite
  clang-14 libclang-rt-14-dev
  # the aarch64 kernel tests: cross-built and run under qemu (tests/cross/aarch64_kernels.sh)
  g++-aarch64-linux-gnu qemu-user
)

# Node.js and npm for bindings/node: any install that provides both (Debian's nodejs + npm, or
# NodeSource's nodejs, which carries npm itself); only asked for when `npm` is absent.
if ! command -v npm >/dev/null 2>&1; then
  packages+=(nodejs npm)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages already installed"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
echo "install-deps: installing ${missing[*]}"
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
