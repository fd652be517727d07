#!/usr/bin/env bash
# The bounded CI fuzz job: builds the `fuzz` preset (clang-14, libFuzzer + ASan + UBSan) in
# <source>/build/fuzz and runs each target for SECONDS from its seed corpus; new inputs go to a
# scratch folder. Fails on any crash, leak, timeout or sanitizer report (the reproducer is left
# in build/fuzz/artifacts/<target>/ for adding to tests/fuzz/corpus/<target>/).
# usage: run_fuzzers.sh SOURCE_DIR SECONDS [TARGET...]
set -euo pipefail
src="$1"; seconds="$2"; shift 2
cd "$src"
cmake --preset fuzz >/dev/null
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(weights pickle state vocab tokenizer kbnf json_schema message_json format_parser c_abi)
fi
cmake --build --preset fuzz --target "${targets[@]/#/fuzz_}"
status=0
for t in "${targets[@]}"; do
  scratch="build/fuzz/scratch/$t"; artifacts="build/fuzz/artifacts/$t"
  rm -rf "$scratch"; mkdir -p "$scratch" "$artifacts"
  dict=(); [ -f "tests/fuzz/dict/$t.dict" ] && dict=(-dict="tests/fuzz/dict/$t.dict")
  # The state seed (the tiny model's .state, 99,497 bytes) must fit whole: libFuzzer truncates
  # inputs to -max_len, and a truncated State never loads.
  maxlen=65536; [ "$t" = state ] && maxlen=131072
  if ! build/fuzz/bin/fuzz_"$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -max_len="$maxlen" -print_final_stats=1 "${dict[@]}" -artifact_prefix="$artifacts/" \
      "$scratch" "tests/fuzz/corpus/$t" > "build/fuzz/$t.log" 2>&1; then
    echo "fuzz_$t: FAILED (see build/fuzz/$t.log, reproducer in $artifacts/)"
    tail -40 "build/fuzz/$t.log"
    status=1
  else
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "build/fuzz/$t.log" | grep -o '[0-9]*$')
    cov=$(grep -o 'cov: [0-9]*' "build/fuzz/$t.log" | tail -1)
    echo "fuzz_$t: ${runs:-?} executions, ${cov:-cov: ?}, no crash"
  fi
done
exit $status
