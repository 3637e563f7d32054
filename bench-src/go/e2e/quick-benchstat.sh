#!/bin/bash
# End-to-end: the built benchrun runs the quick profile over the built
# suite; the file must pass the lab's own strict check (`vmparity check`:
# every fingerprint key, one configuration, known units), and benchstat (the
# real one) must read it without complaint and print a table with our
# benchmarks. Usage: quick-benchstat.sh BENCH_DIR BENCHSTAT VMPARITY
set -euo pipefail
usage="usage: $0 BENCH_DIR BENCHSTAT VMPARITY"
bench_dir=${1:?$usage}
benchstat=${2:?$usage}
vmparity=${3:?$usage}
[ -x "$bench_dir/benchrun" ] || { echo "e2e: $bench_dir/benchrun missing (run make bench)" >&2; exit 1; }
[ -x "$benchstat" ] || { echo "e2e: benchstat $benchstat missing (run make go-tools)" >&2; exit 1; }
[ -x "$vmparity" ] || { echo "e2e: vmparity $vmparity missing (run make venv)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
result=$work/metal.txt

"$bench_dir/benchrun" --profile quick --out "$result" --target e2e 2> "$work/progress"
tail -1 "$work/progress"

"$vmparity" check "$result" >/dev/null 2> "$work/check.err" || {
  echo "e2e: vmparity check refused $result:" >&2; cat "$work/check.err" >&2; exit 1; }
# benchrun's own keys, beyond the fingerprint every lab file carries
for key in target-kind-evidence profile count binary-sha256 memcpy-tunables-l3-3q; do
  grep -q "^$key: " "$result" || { echo "e2e: header key $key missing in $result" >&2; exit 1; }
done
grep -q '^count: 6$' "$result" || { echo "e2e: quick profile should have count 6" >&2; exit 1; }

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
echo "e2e: benchrun --profile quick → vmparity check and benchstat OK ($(grep -c '^Benchmark' "$result") result lines)"
