#!/bin/sh
# Fails if libai00 exports any dynamic symbol that is not ai00_* (docs/layers.md "The hourglass").
set -eu
lib="$1"
bad=$(nm -D --defined-only "$lib" | awk '{print $NF}' | grep -v '^ai00_' | grep -v '^_init$' | grep -v '^_fini$' || true)
count=$(nm -D --defined-only "$lib" | awk '{print $NF}' | grep -c '^ai00_' || true)
if [ -n "$bad" ]; then
  echo "non-ai00 symbols exported by $lib:"; echo "$bad" | head -20; exit 1
fi
if [ "$count" -eq 0 ]; then echo "no ai00_ symbol exported by $lib"; exit 1; fi
echo "$count ai00_* symbols, nothing else"
