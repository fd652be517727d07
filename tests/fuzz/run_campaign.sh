#!/usr/bin/env bash
# A long fuzz campaign (tests/fuzz/README.md "Campaigns"): runs each TARGET for RUNS executions
# (not a time limit), one after another, at the lowest CPU priority, from a scratch corpus plus
# the seed corpus, and appends one line per target to the summary file: executions, coverage
# (cov, ft), corpus size, seconds, peak RSS and the result (ok, or crash/leak/timeout/oom/...).
# The binary is copied before it runs, so rebuilding build/fuzz during a campaign is safe.
# Does not build: run `cmake --preset fuzz && cmake --build --preset fuzz` first.
#
# usage: run_campaign.sh RUNS TARGET...
#        run_campaign.sh --record TARGET SECONDS EXIT_STATUS   (summarise <dir>/TARGET.log of a
#                                                             run whose driver was stopped)
# environment: AI00_CAMPAIGN_FORK    worker processes per target (-fork; 1, the default, is none)
#              AI00_CAMPAIGN_DIR     logs, scratch corpora, artifacts, summary (/work/fuzzlogs)
#              AI00_CAMPAIGN_MAXLEN  -max_len for every target (else per target, see below)
#              AI00_CAMPAIGN_RSS_MB  -rss_limit_mb for every target (else per target, see below)
#              AI00_CAMPAIGN_BIN     folder of the fuzz_<target> binaries (<repo>/build/fuzz/bin)
#
# -max_len is 8192 (the CI job uses 65536): campaign inputs stay small and fast, and every
# format's structure fits in 8 KB; except `state`, whose real input (the tiny model's .state
# file, 99,497 bytes) needs 131072 — libFuzzer truncates longer seeds to -max_len, and a
# truncated State never loads. kbnf and json_schema add -entropic_scale_per_exec_time=1: a few
# inputs whose automata approach the DFA budget take 1-2 s each under ASan (36% of a corpus's
# replay time from 1% of its inputs), so cheaper inputs get scheduled more often. c_abi runs
# with -entropic=0: its 30,000+ features made the entropic schedule's bookkeeping
# (UpdateFeatureFrequency) 42% of its time; 40 s from one grown corpus, the other core busy:
# 14,702 executions with the default schedule, 23,945 with -entropic=0, cov 12,235 vs 12,447.
# format_parser too: UpdateFeatureFrequency was 21% of its time (perf, 6,000 runs from its
# 1,910-input corpus).
set -uo pipefail

repo="$(cd "$(dirname "$0")/../.." && pwd)"
out="${AI00_CAMPAIGN_DIR:-/work/fuzzlogs}"
bindir="${AI00_CAMPAIGN_BIN:-$repo/build/fuzz/bin}"
summary="$out/summary.txt"

# max_len of a target: 8192, 131072 for state, 2048 for format_parser, or AI00_CAMPAIGN_MAXLEN.
# format_parser's cost per execution grows with the input (two parses fed 1-16 bytes at a time):
# at 8192 its inputs grew to 5-6 KB and it ran 480-720 executions/s, 10 M in 4-6 hours. 2048
# bytes still hold 8 of the parser's 256-byte slices and several complete calls and thinking
# blocks of every format.
max_len_of() {
  local m=8192
  [ "$1" = state ] && m=131072
  [ "$1" = format_parser ] && m=2048
  echo "${AI00_CAMPAIGN_MAXLEN:-$m}"
}

# -rss_limit_mb of a target: 2048, 4096 for kbnf, or AI00_CAMPAIGN_RSS_MB. A kbnf campaign's
# process grew to 2 GB over 9.3 M executions (2.36 GB after 3.5 M in a second run) while a
# release replay of its whole corpus under massif keeps a flat heap: the growth is the
# sanitizer's bookkeeping (stack depot of every distinct allocation stack of the recursive
# compiler, quarantine), not the library. -malloc_limit_mb=2048 still fails any input that
# allocates 2 GB at once.
rss_limit_of() {
  local m=2048
  [ "$1" = kbnf ] && m=4096
  echo "${AI00_CAMPAIGN_RSS_MB:-$m}"
}

# ASan options of a campaign (unless ASAN_OPTIONS is set): a smaller quarantine (64 MB, default
# 256) and 16 frames per allocation stack (default 30) bound that bookkeeping; use-after-free
# within the last 64 MB of frees and every other check stay as they are.
campaign_asan=quarantine_size_mb=64:malloc_context_size=16

# record TARGET SECONDS EXIT_STATUS: appends the summary line of $out/TARGET.log.
record() {
  local t="$1" seconds="$2" rc="$3" log="$out/$1.log" execs rss last cov ft corp result
  if [ ! -f "$summary" ]; then
    printf '%-14s %10s %7s %8s %7s %9s %8s %7s %-8s %s\n' target executions cov ft corpus \
      corpus_sz seconds rss_mb result "commit max_len started" > "$summary"
  fi
  execs=$(grep -ao 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$')
  # -fork: the parent prints the total as "INFO: fuzzed for N iterations", no peak RSS, and
  # "#N: cov: .. ft: .. corp: K" lines (no corpus bytes) after each job.
  [ -z "$execs" ] && execs=$(grep -ao 'fuzzed for [0-9]* iterations' "$log" | grep -o '[0-9]*')
  rss=$(grep -ao 'stat::peak_rss_mb: *[0-9]*' "$log" | grep -o '[0-9]*$')
  last=$(grep -aE '^#[0-9]+' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' <<< "$last" | grep -o '[0-9]*')
  ft=$(grep -o 'ft: [0-9]*' <<< "$last" | grep -o '[0-9]*')
  corp=$(grep -oE 'corp: [0-9]+(/[0-9]+[bKM]*)?' <<< "$last" | sed 's/corp: //')
  [[ "$corp" == */* ]] || corp="$corp/?"
  if [ "$rc" -eq 0 ]; then result=ok
  elif grep -aq 'ERROR: libFuzzer: timeout' "$log"; then result=timeout
  elif grep -aq 'ERROR: libFuzzer: out-of-memory' "$log"; then result=oom
  elif grep -aq 'ERROR: LeakSanitizer' "$log"; then result=leak
  elif grep -aq 'runtime error:' "$log"; then result=ubsan
  elif grep -aq 'ERROR: AddressSanitizer' "$log"; then result=asan
  elif grep -aq 'ERROR: libFuzzer: deadly signal' "$log"; then result=crash
  else result="exit$rc"
  fi
  local started
  started=$(date -u -d "@$(($(stat -c %Y "$log") - seconds))" +%FT%TZ 2>/dev/null)
  printf '%-14s %10s %7s %8s %7s %9s %8s %7s %-8s %s\n' "$t" "${execs:-?}" "${cov:-?}" \
    "${ft:-?}" "${corp%%/*}" "${corp#*/}" "$seconds" "${rss:-?}" "$result" \
    "$commit $(max_len_of "$t") ${started:-?}" >> "$summary"
  echo "$t: $result, ${execs:-?} executions, cov ${cov:-?}, ft ${ft:-?}, ${seconds}s ($log)"
  [ "$result" = ok ]
}

# campaign TARGET RUNS: one libFuzzer run, then its summary line.
campaign() {
  local t="$1" runs="$2" bin="$out/bin/fuzz_$1" log="$out/$1.log"
  local scratch="$out/scratch/$1" artifacts="$out/artifacts/$1" maxlen t0 rc
  if [ ! -x "$bindir/fuzz_$t" ]; then
    echo "$t: no binary $bindir/fuzz_$t" >&2
    return 1
  fi
  mkdir -p "$out/bin" "$scratch" "$artifacts"
  cp "$bindir/fuzz_$t" "$bin.tmp" && mv "$bin.tmp" "$bin"
  local dict=() extra=()
  [ -f "$repo/tests/fuzz/dict/$t.dict" ] && dict=(-dict="$repo/tests/fuzz/dict/$t.dict")
  maxlen=$(max_len_of "$t")
  local asan="$campaign_asan"
  case "$t" in
    kbnf | json_schema) extra=(-entropic_scale_per_exec_time=1) ;;
    c_abi) # its harness already sets malloc_context_size=0 (__asan_default_options)
      asan=quarantine_size_mb=64
      extra=(-entropic=0) ;;
    format_parser) extra=(-entropic=0) ;;
  esac
  # AI00_CAMPAIGN_FORK=N (N > 1): N worker processes (-fork) share the corpus and the -runs
  # total, for a target too slow for one core (c_abi); crashes, timeouts and out-of-memory
  # still end the campaign (fork mode ignores the last two unless told).
  local fork="${AI00_CAMPAIGN_FORK:-1}"
  [ "$fork" -gt 1 ] && extra+=(-fork="$fork" -ignore_crashes=0 -ignore_timeouts=0 -ignore_ooms=0)
  t0=$(date +%s)
  ASAN_OPTIONS="${ASAN_OPTIONS:-$asan}" \
    nice -n 19 "$bin" -runs="$runs" -timeout=30 -rss_limit_mb="$(rss_limit_of "$t")" \
    -malloc_limit_mb=2048 -max_len="$maxlen" \
    -print_final_stats=1 "${dict[@]}" "${extra[@]}" -artifact_prefix="$artifacts/" \
    "$scratch" "$repo/tests/fuzz/corpus/$t" > "$log" 2>&1
  rc=$?
  record "$t" $(($(date +%s) - t0)) "$rc"
}

main() {
  commit="$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo ?)"
  if [ -n "$(git -C "$repo" status --porcelain -- src include tests/fuzz CMakeLists.txt 2>/dev/null)" ]; then
    commit="$commit+dirty"
  fi
  mkdir -p "$out"
  if [ "${1:-}" = --record ] && [ $# -eq 4 ]; then
    record "$2" "$3" "$4"
    return
  fi
  if [ $# -lt 2 ]; then
    echo "usage: $0 RUNS TARGET... | --record TARGET SECONDS EXIT_STATUS" >&2
    return 2
  fi
  local runs="$1" status=0
  shift
  for t in "$@"; do
    campaign "$t" "$runs" || status=1
  done
  return $status
}

# One line: bash has read it whole before main runs, so editing this file mid-campaign is safe.
main "$@"; exit $?
