#!/usr/bin/env bash
# The C benchmarks' test (make test-bench-c): every program's --self-test,
# one --profile smoke run of each whose output must pass the lab's own strict
# check (`vmparity check --program-output`: the result format has one
# definition, in the vmparity package) and be read by benchstat without a
# complaint, the names, units and header keys the lab and the seed verdicts
# read, the tunable variant plumbing of memcpy, the instructions the seed
# programs are built around (check_disasm.py), and clear errors on bad input.
# usage: test-bench-c.sh BENCH_OUT BENCHSTAT VMPARITY WORKDIR
set -euo pipefail

usage="usage: $0 BENCH_OUT BENCHSTAT VMPARITY WORKDIR"
bench_out=${1:?$usage}
benchstat=${2:?$usage}
vmparity=${3:?$usage}
work=${4:?$usage}
progs=(memcpy-static memcpy-dynamic clock streamcopy storefwd fence align)
here=$(cd "$(dirname "$0")" && pwd)
fails=0

fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
pass() { echo "ok: $*"; }

mkdir -p "$work"

# A program's output is a result file without the fingerprint benchrun adds:
# `vmparity check --program-output` applies every rule of the format but that.
check_format() {
	local file=$1
	if "$vmparity" check --program-output "$file" >"$work/check.out" 2>"$work/check.err"; then
		pass "$file passes vmparity check"
	else
		fail "vmparity check: $(cat "$work/check.err")"
	fi
}

# benchstat must read every result line: no stderr, and each name in its table.
check_benchstat() {
	local file=$1 out err name
	out=$work/$(basename "$file" .txt).benchstat
	err=$out.err
	if ! "$benchstat" "$file" >"$out" 2>"$err" || [[ -s $err ]]; then
		fail "benchstat $file: $(cat "$err")"
		return
	fi
	while read -r name _; do
		grep -qF -- "${name#Benchmark}" "$out" || { fail "benchstat $file: row ${name#Benchmark} missing from $out"; return; }
	done < <(grep '^Benchmark' "$file")
	pass "benchstat reads $file"
}

# The checks themselves must be able to fail: a malformed file is refused.
printf 'memcpy-tsc: usable\nBenchmarkMemcpy/size=10 100 12 ns/op\nlate-key: x\n' >"$work/bad-order.txt"
printf 'BenchmarkMemcpy/size=10 100 twelve ns/op\n' >"$work/bad-value.txt"
before=$fails
check_format "$work/bad-order.txt" 2>/dev/null
check_format "$work/bad-value.txt" 2>/dev/null
check_benchstat "$work/bad-value.txt" 2>/dev/null
if [[ $((fails - before)) == 3 ]]; then
	fails=$before
	pass "the format and benchstat checks refuse malformed files"
else
	fails=$((before + 1))
	echo "FAIL: a malformed file passed the format or benchstat check" >&2
fi

for p in "${progs[@]}"; do
	bin=$bench_out/$p
	rc=0
	"$bin" --self-test >"$work/$p.selftest" 2>&1 || rc=$?
	case $rc in
	0) pass "$p --self-test ($(tail -1 "$work/$p.selftest"))" ;;
	4) pass "$p --self-test skipped: a feature is absent ($(tail -1 "$work/$p.selftest"))" ;;
	*) fail "$p --self-test exit $rc:"; grep -v '^ok' "$work/$p.selftest" >&2 || true ;;
	esac
	if "$bin" --profile smoke >"$work/$p.txt" 2>"$work/$p.err"; then
		check_format "$work/$p.txt"
		check_benchstat "$work/$p.txt"
	else
		fail "$p --profile smoke: $(cat "$work/$p.err")"
	fi
done

# Each memcpy binary says how it is linked, as the process sees it.
for link in static dynamic; do
	if grep -q "^BenchmarkMemcpy/link=$link/tunable=default/size=10 " "$work/memcpy-$link.txt"; then
		pass "memcpy-$link names its results link=$link"
	else
		fail "memcpy-$link: no BenchmarkMemcpy/link=$link/tunable=default/size=10 line"
	fi
done

# Every clock and path of docs/formats.md is there, with a verdict per clock.
before=$fails
for c in monotonic realtime monotonic-raw monotonic-coarse boottime gettimeofday time; do
	for path in vdso syscall; do
		grep -q "^BenchmarkClock/clock=$c/path=$path " "$work/clock.txt" ||
			fail "clock: no BenchmarkClock/clock=$c/path=$path line"
	done
	grep -Eq "^clock-verdict-$c: (vdso|fallback|unknown \(.+\))$" "$work/clock.txt" ||
		fail "clock: no clock-verdict-$c line"
done
grep -q '^BenchmarkClock/clock=rdtsc/path=insn ' "$work/clock.txt" || fail "clock: no rdtsc floor line"
grep -Eq '^clock-vdso-mapped: (yes|no)$' "$work/clock.txt" || fail "clock: no clock-vdso-mapped line"
[[ $fails != "$before" ]] || pass "clock reports every clock, path and verdict"

# clocks/... are ns x the core clock measured beside each measurement
# (common/coreclock.h): every program that reports them says the range of
# clocks it saw, and each clock row's clocks/op over ns/op lies in it.
for p in clock storefwd fence align memcpy-static memcpy-dynamic; do
	grep -Eq '^core-clock: [0-9.]+-[0-9.]+ GHz \(dependent add chain' "$work/$p.txt" &&
		grep -Eq '^Unit clocks/(op|entry|iter) better=lower$' "$work/$p.txt" &&
		pass "$p: a core-clock line ($(sed -n 's/^core-clock: \([^ ]* GHz\).*/\1/p' "$work/$p.txt")) and its clocks unit declared" ||
		fail "$p: no core-clock line, or its clocks unit not declared lower-is-better"
done
range=$(sed -n 's/^core-clock: \([0-9.]*\)-\([0-9.]*\) GHz.*/\1 \2/p' "$work/clock.txt")
awk -v range="$range" 'BEGIN { split(range, r, " ") }
	/^BenchmarkClock/ { n++; ghz = $5 / $3; if ($4 != "ns/op" || $6 != "clocks/op" || ghz < r[1] * 0.999 || ghz > r[2] * 1.001) bad++ }
	END { exit !(n > 0 && bad == 0) }' "$work/clock.txt" &&
	pass "clock: every row's clocks/op is its ns/op at a clock within $range GHz" ||
	fail "clock: a row's clocks/op is not its ns/op at a clock within '$range' GHz: see $work/clock.txt"

# The seed programs: exactly these benchmark names, every one with exactly
# the units its header says are available (counts may be 0, times may not).
expect_names() {
	local file=$1 got want
	shift
	got=$(awk '/^Benchmark/ {print $1}' "$file" | sort)
	want=$(printf '%s\n' "$@" | sort)
	[[ $got == "$want" ]] && pass "$file has exactly the seed's benchmark names" ||
		fail "$file: benchmark names $(echo $got) != $(echo $want)"
}
expect_units() {
	local file=$1 want line name units bad=0 i
	shift
	want=$(printf '%s\n' "$@" | sort | tr '\n' ' ')
	while read -r -a line; do
		name=${line[0]} units=()
		for ((i = 2; i < ${#line[@]}; i += 2)); do
			units+=("${line[i + 1]}")
			[[ ${line[i + 1]} == store-fwd-blocks/entry ]] && continue
			awk -v v="${line[i]}" 'BEGIN { exit !(v > 0) }' || { fail "$name: ${line[i]} ${line[i + 1]} is not positive"; bad=1; }
		done
		[[ $(printf '%s\n' "${units[@]}" | sort | tr '\n' ' ') == "$want" ]] ||
			{ fail "$name: units ${units[*]}, expected $want"; bad=1; }
	done < <(grep '^Benchmark' "$file")
	[[ $bad == 1 ]] || pass "$file: every result has the units $want"
}
header() { sed -n "s/^$2: //p" "$1"; }

f=$work/storefwd.txt
expect_names "$f" BenchmarkStorefwd/size={28,32}/form={overlap,fresh}
units=(ns/entry clocks/entry flushes/op)
[[ $(header "$f" storefwd-pmu) == unavailable* ]] || units+=(store-fwd-blocks/entry)
expect_units "$f" "${units[@]}"
awk '/^BenchmarkStorefwd/ {for (i = 3; i < NF; i += 2) if ($(i + 1) == "flushes/op") f = $i}
	/^BenchmarkStorefwd\/size=28/ && f != 171 {bad = 1} /^BenchmarkStorefwd\/size=32/ && f != 196 {bad = 1}
	END {exit bad}' "$f" && pass "storefwd: 171 / 196 flushes per op, as in the seed" ||
	fail "storefwd: flushes per op differ from the seed's 171 / 196"
# The file is a ring that fits in a core's own L2 with the buffer (buffer.h says why).
ring=$(header "$f" storefwd-file-bytes)
[[ $ring =~ ^[0-9]+$ ]] && ((ring >= 16384 && ring <= 524288)) &&
	pass "storefwd: the file is a ${ring}-byte ring" ||
	fail "storefwd: storefwd-file-bytes '$ring', expected a ring of 16 KiB to 512 KiB"
# Where the kernels' memory is must not follow the process: an environment
# 3000 bytes larger moves the stack, and TMPDIR names no directory at all.
big_env=$(head -c 3000 /dev/zero | tr '\0' x)
if env -i PAD="$big_env" TMPDIR=/nonexistent "$bench_out/storefwd" --profile smoke \
	>"$work/storefwd-env.txt" 2>"$work/storefwd-env.err"; then
	[[ $(header "$f" storefwd-file) == memfd && -n $(header "$f" storefwd-page-offsets) &&
		$(header "$work/storefwd-env.txt" storefwd-page-offsets) == "$(header "$f" storefwd-page-offsets)" ]] &&
		pass "storefwd: a memfd and the same page offsets ($(header "$f" storefwd-page-offsets)) whatever the environment" ||
		fail "storefwd: file $(header "$f" storefwd-file), page offsets '$(header "$f" storefwd-page-offsets)' vs '$(header "$work/storefwd-env.txt" storefwd-page-offsets)' with a larger environment"
else
	fail "storefwd with a larger environment and TMPDIR=/nonexistent: $(cat "$work/storefwd-env.err")"
fi

f=$work/fence.txt
expect_names "$f" BenchmarkFence/work={llc,tlb,div}/barrier={none,lock,mfence}
units=(ns/iter clocks/iter)
[[ $(header "$f" fence-tsc) != usable* ]] || units+=(cycles/iter)
expect_units "$f" "${units[@]}"
for w in llc tlb div; do
	for b in lock mfence; do
		grep -Eq "^fence-overhead-$w-$b: -?[0-9.]+%$" "$f" || fail "fence: no fence-overhead-$w-$b line"
	done
done

f=$work/align.txt
expect_names "$f" BenchmarkAlign/pad={0,1,2,4,8,16,24,32,40,48,56,60,62}
units=(ns/iter clocks/iter)
insn_source=$(header "$f" align-insn-source)
[[ -z $insn_source || $insn_source == unavailable* ]] || units+=(insns/iter)
[[ $(header "$f" align-cycles-source) != perf ]] || units+=(cycles/iter)
expect_units "$f" "${units[@]}"
if [[ $insn_source == perf || $insn_source == callgrind ]]; then
	awk '/^BenchmarkAlign/ {for (i = 3; i < NF; i += 2) if ($(i + 1) == "insns/iter") {
		v = $i; lo = (n++ == 0 || v < lo) ? v : lo; hi = v > hi ? v : hi } }
		END {exit !(n > 0 && hi - lo < 0.01 * hi)}' "$f" &&
		pass "align: equal instructions per pad" || fail "align: instructions per pad differ: see $f"
fi

# The instructions each seed effect needs are still in the built code.
if python3 "$here/check_disasm.py" "$bench_out" >"$work/disasm.out" 2>&1; then
	pass "check_disasm.py: $(tail -1 "$work/disasm.out")"
else
	fail "check_disasm.py:"; grep -v '^ok' "$work/disasm.out" >&2 || true
fi

# benchrun's variant plumbing: the name and the header follow the environment.
tun=glibc.cpu.x86_non_temporal_threshold=0x4040
if VMPARITY_TUNABLE_VARIANT=min GLIBC_TUNABLES=$tun "$bench_out/memcpy-dynamic" --profile smoke \
	>"$work/memcpy-min.txt" 2>"$work/memcpy-min.err"; then
	grep -qx "glibc-tunables-seen-min: $tun" "$work/memcpy-min.txt" &&
		grep -q '^BenchmarkMemcpy/link=dynamic/tunable=min/size=1024 ' "$work/memcpy-min.txt" &&
		pass "memcpy records GLIBC_TUNABLES and the tunable variant" ||
		fail "memcpy with VMPARITY_TUNABLE_VARIANT=min: see $work/memcpy-min.txt"
else
	fail "memcpy with VMPARITY_TUNABLE_VARIANT=min: $(cat "$work/memcpy-min.err")"
fi

# Bad input: exit 2 and a message naming what was wrong.
expect_error() {
	local what=$1 needle=$2 rc=0
	shift 2
	"$@" >"$work/bad.out" 2>"$work/bad.err" || rc=$?
	if [[ $rc == 2 ]] && grep -qF -- "$needle" "$work/bad.err" && [[ ! -s $work/bad.out ]]; then
		pass "$what is refused: $(head -1 "$work/bad.err")"
	else
		fail "$what: exit $rc, stderr '$(cat "$work/bad.err")'"
	fi
}
for p in "${progs[@]}"; do
	expect_error "$p --profile bogus" "'bogus'" "$bench_out/$p" --profile bogus
	expect_error "$p without arguments" "exactly one of" "$bench_out/$p"
done
expect_error "a malformed VMPARITY_TUNABLE_VARIANT" VMPARITY_TUNABLE_VARIANT \
	env VMPARITY_TUNABLE_VARIANT='No Good' "$bench_out/memcpy-static" --profile smoke
# --share: memcpy, clock, storefwd, fence and align take a part of their time
# (benchrun --parts), 1 to 16 parts; the programs that do not take it refuse
# it rather than ignore it.
expect_error "memcpy --share 0" "from 1 to 16" "$bench_out/memcpy-static" --profile smoke --share 0
expect_error "clock --share 17" "from 1 to 16" "$bench_out/clock" --profile smoke --share 17
expect_error "storefwd --share x" "from 1 to 16" "$bench_out/storefwd" --profile smoke --share x
expect_error "fence --share 17" "from 1 to 16" "$bench_out/fence" --profile smoke --share 17
expect_error "streamcopy --share 2" "unknown argument '--share'" "$bench_out/streamcopy" --profile smoke --share 2
# Every row of each in a third of its time: clock's probes, storefwd's four
# cases, fence's nine, align's thirteen offsets.
for spec in clock:BenchmarkClock/:2 storefwd:BenchmarkStorefwd/:4 fence:BenchmarkFence/:9 align:BenchmarkAlign/:13; do
	IFS=: read -r prog prefix rows <<<"$spec"
	if "$bench_out/$prog" --profile smoke --share 3 >"$work/$prog-share.txt" 2>"$work/$prog-share.err" &&
		[[ $(grep -c "^$prefix" "$work/$prog-share.txt") -ge $rows ]]; then
		pass "$prog --share 3 measures every row in a third of its time"
	else
		fail "$prog --share 3: $(cat "$work/$prog-share.err")"
	fi
done
# --min-size: memcpy measures only its sizes of at least BYTES (the lab's
# rounds added for the large copies); a size beyond the profile's largest, or
# not a number, is refused, and no other program takes it.
expect_error "memcpy --min-size beyond the largest size" "largest size is" \
	"$bench_out/memcpy-static" --profile smoke --min-size 99999999999
expect_error "memcpy --min-size -5" "whole number of bytes" "$bench_out/memcpy-dynamic" --profile smoke --min-size -5
expect_error "clock --min-size 1024" "unknown argument '--min-size'" "$bench_out/clock" --profile smoke --min-size 1024
if "$bench_out/memcpy-static" --profile smoke --min-size 1024 >"$work/min-size.txt" 2>"$work/min-size.err" &&
	sizes=$(grep -o '^BenchmarkMemcpy/[^ ]*size=[0-9]*' "$work/min-size.txt" | sed 's/.*size=//' | sort -n | tr '\n' ' ') &&
	[[ $sizes == "1024 10240 1048576 " ]] && grep -q '^memcpy-min-size: 1024 ' "$work/min-size.txt"; then
	pass "memcpy --min-size 1024 measures smoke's 1 KiB, 10 KiB and 1 MiB copies only, and says so"
else
	fail "memcpy --min-size 1024: sizes '${sizes:-}', $(cat "$work/min-size.err")"
fi

# The same sources give the same bytes in any checkout (bench_c_link maps the
# checkout's path out): an A/B run's BASE worktree of HEAD's commit must build
# HEAD's binaries, so that its manifests differ only where the code does.
# Built again from a copy at another path; BENCH_OUT given, so that the copy
# never writes into this build's directory whatever this make was given.
root=$(cd "$here/../.." && pwd)
elsewhere=$work/another/checkout
rm -rf "$work/another" && mkdir -p "$elsewhere"
cp -r "$root/Makefile" "$root/mk" "$root/bench-src" "$elsewhere/"
if make -s -C "$elsewhere" BENCH_OUT="$elsewhere/build/bench" bench-c >"$work/rebuild.out" 2>&1; then
	differ=()
	for p in "${progs[@]}"; do
		cmp -s "$bench_out/$p" "$elsewhere/build/bench/$p" || differ+=("$p")
	done
	if [[ ${#differ[@]} -eq 0 ]]; then
		pass "the C benchmarks built in another checkout are byte-identical (${progs[*]})"
	else
		fail "built in another checkout, these differ from $bench_out: ${differ[*]}"
	fi
else
	fail "building the C benchmarks in another checkout: $(tail -3 "$work/rebuild.out")"
fi

if [[ $fails -gt 0 ]]; then
	echo "test-bench-c: $fails failed" >&2
	exit 1
fi
echo "test-bench-c: all passed"
