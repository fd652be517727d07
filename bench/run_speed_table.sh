#!/bin/sh
# One command for the speed table (README "Speed"): builds bench_speed_table with the `bench`
# preset, then generates random G1-shaped models (default 0.1B; pass e.g. --sizes 0.1b,0.4b) in
# $TMPDIR/ai00-bench-models and prints, for every type and 1/2 threads, decode and prefill-512
# tokens/s with their ratios to the DRAM roofline and compute peak measured in the same run.
# Extra arguments go to bench_speed_table (see the header of bench/bench_speed_table.cpp), e.g.
# decode rows only, best of 3 runs each: --prefill 0 --repeat 3 --types Q4_0,Q8_0 --sizes 0.1b.
# Models already in the directory are reused (--regen writes them again).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
cmake --preset bench >/dev/null
cmake --build --preset bench --target bench_speed_table >/dev/null
exec "$root/build/bench/bin/bench_speed_table" "$@"
