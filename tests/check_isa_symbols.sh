#!/bin/sh
# docs/model.md "Kernels and ISAs" (the ODR trap): an inline or template function emitted as a weak
# symbol by two ISA objects built with different -m flags is merged by the linker, which may keep
# the AVX-512 copy for every caller. Fails if any weak symbol is defined in two of the given
# kernel objects (one per ISA, passed by ctest as $<TARGET_OBJECTS:ai00_kernels_<isa>>).
# DW.ref.__gxx_personality_v0 is the shared pointer to the C++ EH personality routine: data
# that is the same in every object, so it is not a kernel clash.
set -eu
if [ "$#" -lt 2 ]; then
  echo "usage: $0 <isa object> <isa object> ..." >&2
  exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
i=0
for obj in "$@"; do
  i=$((i + 1))
  # Weak defined symbols: W/V (weak), u (GNU unique); nm -C prints "addr type name".
  nm -C --defined-only "$obj" | awk '$2 ~ /^[WVu]$/ { $1 = ""; $2 = ""; sub(/^  /, ""); print }' |
    grep -v '^DW\.ref\.__gxx_personality_v0$' | sort -u > "$tmp/$i.syms" || true
  echo "$obj" > "$tmp/$i.name"
done
status=0
a=1
while [ "$a" -le "$i" ]; do
  b=$((a + 1))
  while [ "$b" -le "$i" ]; do
    common=$(comm -12 "$tmp/$a.syms" "$tmp/$b.syms")
    if [ -n "$common" ]; then
      echo "weak symbols defined in both $(cat "$tmp/$a.name") and $(cat "$tmp/$b.name"):"
      echo "$common" | sed 's/^/  /'
      status=1
    fi
    b=$((b + 1))
  done
  a=$((a + 1))
done
[ "$status" -eq 0 ] && echo "no weak symbol shared between $i ISA objects"
exit "$status"
