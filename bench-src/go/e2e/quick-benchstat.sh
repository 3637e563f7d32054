#!/bin/bash
# End-to-end: the built benchrun runs the quick profile over the built
# suite, and benchstat (the real one) must read the file without complaint
# and print a table with our benchmarks. Usage: quick-benchstat.sh BENCH_DIR BENCHSTAT
set -euo pipefail
bench_dir=${1:?usage: $0 BENCH_DIR BENCHSTAT}
benchstat=${2:?usage: $0 BENCH_DIR BENCHSTAT}
[ -x "$bench_dir/benchrun" ] || { echo "e2e: $bench_dir/benchrun missing (run make bench)" >&2; exit 1; }
[ -x "$benchstat" ] || { echo "e2e: benchstat $benchstat missing (run make go-tools)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
result=$work/metal.txt

"$bench_dir/benchrun" --profile quick --out "$result" --target e2e 2> "$work/progress"
tail -1 "$work/progress"

# The fingerprint is on top: every config line precedes the first result.
first_bench=$(grep -n -m1 '^Benchmark' "$result" | cut -d: -f1)
last_config=$(grep -nE '^[a-z][^ A-Z:]*:( |$)' "$result" | tail -1 | cut -d: -f1)
[ -n "$first_bench" ] || { echo "e2e: no Benchmark line in $result" >&2; exit 1; }
if [ "$last_config" -gt "$first_bench" ]; then
  echo "e2e: config line $last_config after the first Benchmark line $first_bench" >&2; exit 1
fi
for key in vmparity-format target-kind target-kind-evidence nt-threshold clocksource profile count binary-sha256 memcpy-tunables-l3-3q; do
  grep -q "^$key: " "$result" || { echo "e2e: header key $key missing in $result" >&2; exit 1; }
done
grep -q '^count: 5$' "$result" || { echo "e2e: quick profile should have count 5" >&2; exit 1; }

# benchstat must parse it silently (it reports syntax errors on stderr).
"$benchstat" "$result" > "$work/table" 2> "$work/benchstat.err" || {
  echo "e2e: benchstat failed:" >&2; cat "$work/benchstat.err" >&2; exit 1; }
if [ -s "$work/benchstat.err" ]; then
  echo "e2e: benchstat complained:" >&2; cat "$work/benchstat.err" >&2; exit 1
fi
for name in Memcpy/link=static Memcpy/link=dynamic Clock/clock=monotonic Snowflake/impl=atomic; do
  grep -q "$name" "$work/table" || { echo "e2e: benchstat table lacks $name:" >&2; head -40 "$work/table" >&2; exit 1; }
done
# A ± column proves benchstat grouped the repetitions into one sample each.
grep -q '±' "$work/table" || {
  echo "e2e: benchstat did not aggregate the 5 repetitions:" >&2; head -40 "$work/table" >&2; exit 1; }
echo "e2e: benchrun --profile quick → benchstat OK ($(grep -c '^Benchmark' "$result") result lines)"
