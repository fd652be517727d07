#!/bin/sh
# Fails unless the ai00 CLI is a plain client of libai00 (docs/layers.md): it must need
# libai00.so at run time and define none of the engine's code itself: no ai00::internal
# symbol, no ai00_* C function, no simdjson (the engine's JSON parser).
set -eu
bin="$1"
if ! readelf -d "$bin" | grep NEEDED | grep -q 'libai00\.so'; then
  echo "$bin does not depend on libai00.so:"; readelf -d "$bin" | grep NEEDED; exit 1
fi
defined=$(nm -C --defined-only "$bin")
bad=$(printf '%s\n' "$defined" | grep -E 'ai00::internal|simdjson::| ai00_[a-z0-9_]+$' || true)
if [ -n "$bad" ]; then
  echo "engine internals defined in $bin:"; printf '%s\n' "$bad" | head -20; exit 1
fi
echo "$bin needs libai00.so and defines no engine symbol"
