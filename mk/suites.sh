#!/usr/bin/env bash
# Runs make targets as test suites, in lanes: the suites of one lane one after
# another, the lanes side by side (this machine has 2 cores; suites that wait
# on guests leave CPU for the others). Every line a suite prints is streamed
# with its name in front and kept in LOG_DIR/<suite>.log. A failed suite does
# not stop the others: the run ends with one line per suite and its time, then
# "suites: N passed, N failed", and exits 1 when any failed.
#
# usage: suites.sh NAME LOG_DIR BEFORE ALL LANE...
#   NAME     what is run, for the table's title ("make check", "make test")
#   BEFORE   targets made first, alone, in one make (what the lanes share:
#            the venv, the binaries, the image), so two lanes never build it
#   ALL      every suite that must run: each must be in exactly one LANE, so
#            a suite added to CHECK_TARGETS or TEST_TARGETS cannot be left out
#   LANE     the suites of one lane, space-separated, in order
set -uo pipefail

usage="usage: $0 NAME LOG_DIR BEFORE ALL LANE..."
name=${1:?$usage}
log_dir=${2:?$usage}
before=${3?$usage}
all=${4:?$usage}
shift 4
[[ $# -ge 1 ]] || { echo "$usage" >&2; exit 2; }
make=${MAKE:-make}
lanes=("$@")

# Every suite in exactly one lane: a suite missing from the lanes would pass unrun.
declare -A lane_of=()
for i in "${!lanes[@]}"; do
	for suite in ${lanes[$i]}; do
		[[ -z ${lane_of[$suite]:-} ]] || { echo "$name: suite $suite is in two lanes" >&2; exit 2; }
		lane_of[$suite]=$((i + 1))
	done
done
for suite in $all; do
	[[ -n ${lane_of[$suite]:-} ]] || { echo "$name: suite $suite is in no lane (mk/suites.mk)" >&2; exit 2; }
done
for suite in "${!lane_of[@]}"; do
	[[ " $all " == *" $suite "* ]] || { echo "$name: lane suite $suite is not a suite" >&2; exit 2; }
done

rm -rf "$log_dir" && mkdir -p "$log_dir"
start=$(date +%s)

# run_suite SUITE LABEL TARGET...: make TARGET... with each line prefixed; writes LOG_DIR/SUITE.result
run_suite() {
	local suite=$1 label=$2 t rc
	shift 2
	t=$(date +%s)
	{ "$make" --no-print-directory "$@" 2>&1; echo $? > "$log_dir/$suite.rc"; } \
		| tee "$log_dir/$suite.log" | sed -u "s/^/$label| /"
	rc=$(cat "$log_dir/$suite.rc")
	echo "$(( $(date +%s) - t )) $rc" > "$log_dir/$suite.result"
	echo "$label| ==> $suite: $([[ $rc == 0 ]] && echo ok || echo "FAILED (exit $rc)") in $(( $(date +%s) - t ))s"
}

if [[ -n $before ]]; then
	echo "==> $name: first, alone: $before"
	run_suite before before $before
fi
if [[ $(cut -d' ' -f2 "$log_dir/before.result" 2>/dev/null || echo 0) != 0 ]]; then
	echo "$name: '$before' failed; no suite was run" >&2
else
	echo "==> $name: ${#lanes[@]} lane(s) side by side: $(printf '[%s] ' "${lanes[@]}")"
	for lane in "${lanes[@]}"; do
		( for suite in $lane; do run_suite "$suite" "$suite" "$suite"; done ) &
	done
	wait
fi

passed=0 failed=0
echo
echo "$name: per-suite times (logs in $log_dir)"
printf '  %-22s %5s %8s  %s\n' suite lane seconds result
row() {  # row SUITE LANE
	local secs rc result
	if [[ -f $log_dir/$1.result ]]; then
		read -r secs rc < "$log_dir/$1.result"
		if [[ $rc == 0 ]]; then result=ok; else result="FAILED (exit $rc)"; fi
	else
		secs=- result="not run"
	fi
	printf '  %-22s %5s %8s  %s\n' "$1" "$2" "$secs" "$result"
	[[ $result == ok ]]
}
[[ -z $before ]] || row before - || failed=$((failed + 1))
for i in "${!lanes[@]}"; do
	for suite in ${lanes[$i]}; do
		if row "$suite" $((i + 1)); then passed=$((passed + 1)); else failed=$((failed + 1)); fi
	done
done
printf '  %-22s %5s %8s\n' "total (wall)" "" "$(( $(date +%s) - start ))"
# Why each failed suite failed, here at the end: a CI page or a terminal that
# keeps only the last lines would otherwise show the table and not the cause.
# A suite whose log names no failure of its own (make's "***" line aside:
# killed, or a script that stopped early) shows its last lines instead.
for suite in before ${lanes[*]}; do
	[[ -f $log_dir/$suite.result && $(cut -d' ' -f2 "$log_dir/$suite.result") != 0 ]] || continue
	echo
	echo "$suite failed (all of its output is in $log_dir/$suite.log):"
	# (a Go test's own message is an indented "name_test.go:N:" line under its FAIL)
	why=$(grep -E 'FAIL|Error|ERROR|error:|not ok|Traceback|^\s+[[:alnum:]_]+_test\.go:[0-9]+:' "$log_dir/$suite.log" |
		grep -v '^make\(\[[0-9]*\]\)\?: \*\*\*')
	[[ -n $why ]] || why=$(tail -n 10 "$log_dir/$suite.log")
	tail -n 20 <<<"$why" | sed 's/^/  /'
done
echo "suites: $passed passed, $failed failed"
[[ $failed == 0 ]]
