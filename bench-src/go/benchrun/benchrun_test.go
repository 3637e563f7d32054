package benchrun

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// binDir holds the real snowflake and benchrun binaries, built once.
var binDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "benchrun-test-")
	if err != nil {
		panic(err)
	}
	for _, c := range []string{"snowflake", "benchrun"} {
		cmd := exec.Command("go", "build", "-o", filepath.Join(dir, c), "../cmd/"+c)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			panic("building " + c + ": " + err.Error() + "\n" + string(out))
		}
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func mustParse(t *testing.T, args ...string) Options {
	t.Helper()
	o, err := ParseArgs(args, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func TestParseArgs(t *testing.T) {
	o := mustParse(t, "--profile", "quick", "--out", "/tmp/x.txt", "--target", "guest-nosmt")
	if o.Count != 6 || o.Pin != -1 || o.Target != "guest-nosmt" || !strings.HasPrefix(o.RunID, "20") || o.BenchDir == "" {
		t.Fatalf("defaults wrong: %+v", o)
	}
	// an intervention target of `vmparity lab verify` names the target and the change
	if o := mustParse(t, "--profile", "smoke", "--out", "x", "--target", "guest-hpet-clock+clocksource-tsc"); o.Target != "guest-hpet-clock+clocksource-tsc" {
		t.Fatalf("target with '+': %+v", o)
	}
	for _, bad := range [][]string{
		{"--out", "x"},
		{"--profile", "fast", "--out", "x"},
		{"--profile", "smoke"},
		{"--profile", "smoke", "--out", "x", "--target", "a b"},
		{"--profile", "smoke", "--out", "x", "--only", "("},
		{"--profile", "smoke", "--out", "x", "--count", "-1"},
		{"--profile", "smoke", "--out", "x", "--count", "0"},
		{"--profile", "smoke", "--out", "x", "--pin", "-3"},
		{"--profile", "smoke", "--out", "x", "extra"},
	} {
		if _, err := ParseArgs(bad, &bytes.Buffer{}); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}

func TestVariantsAndEnv(t *testing.T) {
	l3, _ := L3Bytes(map[string]string{"l3-cache": "unknown (x)", "getconf-l3-cache": "33554432"})
	if l3 != 32<<20 {
		t.Fatalf("L3 fallback to getconf: %d", l3)
	}
	vs := Variants("glibc.malloc.check=1", true, 32<<20, "", 0x4041, "")
	if vs[0].Tunables != "glibc.malloc.check=1" || vs[1].Tunables != "glibc.cpu.x86_non_temporal_threshold=0x1800000" || vs[2].Tunables != "glibc.cpu.x86_non_temporal_threshold=0x4041" {
		t.Fatalf("variants %+v", vs)
	}
	base := []string{"PATH=/bin", "GLIBC_TUNABLES=glibc.malloc.check=1", "VMPARITY_TUNABLE_VARIANT=stale"}
	env := strings.Join(Job{Variant: &vs[1]}.Env(base), " ")
	if env != "PATH=/bin VMPARITY_TUNABLE_VARIANT=l3-3q GLIBC_TUNABLES=glibc.cpu.x86_non_temporal_threshold=0x1800000" {
		t.Fatalf("l3-3q env: %s", env)
	}
	env = strings.Join(Job{Variant: &vs[0]}.Env(base), " ")
	if env != "PATH=/bin GLIBC_TUNABLES=glibc.malloc.check=1 VMPARITY_TUNABLE_VARIANT=default" {
		t.Fatalf("default env: %s", env)
	}
	none := Variants("", false, 0, "l3-cache=unknown (no sysfs)", 0, "no loader")
	if none[0].Tunables != "none" || none[1].Skip == "" || none[2].Skip == "" {
		t.Fatalf("unknown L3 must skip l3-3q, not guess: %+v", none)
	}
}

func TestHeaderAbsorb(t *testing.T) {
	h := NewHeader()
	h.SetFixed("target", "metal")
	h.Set("clocksource", "tsc")
	body, err := h.Absorb("clock", "clock-verdict-monotonic: vdso\nUnit B/s better=higher\n# a comment\nBenchmarkClock/clock=monotonic/path=vdso 100 20.5 ns/op\n\nclock-verdict-monotonic: fallback\nclocksource: hpet\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(body) != 1 {
		t.Fatalf("body %q", body)
	}
	want := "target: metal\nclocksource: hpet\nclock-verdict-monotonic: fallback\nUnit B/s better=higher\n# a comment\n"
	if got := h.String(); got != want {
		t.Fatalf("header:\n%s\nwant:\n%s", got, want)
	}
	for _, bad := range []string{
		"target: elsewhere\nBenchmarkX 1 1 ns/op\n",
		"Some Free Text\nBenchmarkX 1 1 ns/op\n",
		"BenchmarkX 1 1\n",
		"BenchmarkX lots 1 ns/op\n",
		"only-config: 1\n",
	} {
		if _, err := h.Absorb("prog", bad); err == nil || !strings.Contains(err.Error(), "prog") {
			t.Errorf("%q: err %v, want an error naming the program", bad, err)
		}
	}
}

func TestWriteAtomic(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "r.txt")
	if err := WriteAtomic(out, []byte("one\n"), false); err != nil {
		t.Fatal(err)
	}
	if err := CheckWritable(out, false); err == nil {
		t.Fatal("existing file not refused")
	}
	if err := WriteAtomic(out, []byte("two\n"), false); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("overwrite without --force: %v", err)
	}
	if b, _ := os.ReadFile(out); string(b) != "one\n" {
		t.Fatalf("refused write changed the file: %q", b)
	}
	if err := WriteAtomic(out, []byte("two\n"), true); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(out); string(b) != "two\n" {
		t.Fatalf("--force did not replace: %q", b)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("temporary files left: %v", entries)
	}
	if err := CheckWritable(filepath.Join(dir, "nodir", "r.txt"), false); err == nil {
		t.Fatal("missing directory not reported")
	}
}

// An --out that is not a regular file (/dev/null, a FIFO, a symlink) is
// refused before and at the write: rename(2) would put the result file in
// its place, and as root over /dev/null that broke every program after it.
func TestWriteAtomicRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(filepath.Join(dir, "elsewhere.txt"), link); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{fifo, link} {
		if err := CheckWritable(path, true); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("CheckWritable(%s, force): %v, want a refusal naming it not a regular file", path, err)
		}
		if err := WriteAtomic(path, []byte("r\n"), true); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("WriteAtomic(%s, force): %v, want a refusal", path, err)
		}
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode().Type() != os.ModeNamedPipe {
		t.Fatalf("the FIFO was replaced: %v %v", fi, err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode().Type() != os.ModeSymlink {
		t.Fatalf("the symlink was replaced: %v %v", fi, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Fatalf("temporary files left: %v", entries)
	}
}

func TestPlanJobs(t *testing.T) {
	vs := Variants("", false, 32<<20, "", 0x4041, "")
	all := func(string) bool { return true }
	var notes []string
	note := func(s string) { notes = append(notes, s) }
	// binDir has snowflake but no memcpy: a core program is missing.
	if _, err := PlanJobs(binDir, vs, all, note); err == nil || !strings.Contains(err.Error(), "core benchmark memcpy-static") {
		t.Fatalf("missing core program: %v", err)
	}
	jobs, err := PlanJobs(binDir, vs, func(n string) bool { return n == "snowflake" || n == "fence" }, note)
	if err != nil || len(jobs) != 1 || jobs[0].Name != "snowflake" {
		t.Fatalf("jobs %+v err %v", jobs, err)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "optional benchmark fence") {
		t.Fatalf("notes %q", notes)
	}
}

// TestRunWritesResultFile runs the real snowflake binary through Run twice
// (interleaved count 2) and checks the file is benchfmt with every config
// line before the first Benchmark line.
func TestRunWritesResultFile(t *testing.T) {
	out := filepath.Join(t.TempDir(), "metal.txt")
	o := mustParse(t, "--profile", "smoke", "--count", "2", "--out", out, "--only", "^snowflake$", "--bench-dir", binDir, "--target", "metal", "--run-id", "2026-11-22T10-15-03Z-3f2a")
	var progress bytes.Buffer
	if err := Run(context.Background(), o, &bytes.Buffer{}, &progress); err != nil {
		t.Fatalf("%v\n%s", err, progress.String())
	}
	if !strings.Contains(progress.String(), "[2/2] rep 2/2 snowflake") {
		t.Fatalf("progress: %s", progress.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if lines[0] != "vmparity-format: 1" || lines[1] != "run-id: 2026-11-22T10-15-03Z-3f2a" || lines[2] != "target: metal" {
		t.Fatalf("header starts %q", lines[:3])
	}
	inBody, results := false, 0
	keys := map[string]bool{}
	for _, l := range lines {
		if strings.HasPrefix(l, "Benchmark") {
			inBody = true
			results++
			continue
		}
		if inBody {
			t.Fatalf("non-result line %q after the first Benchmark line", l)
		}
		if k, _, ok := strings.Cut(l, ":"); ok && !strings.HasPrefix(l, "#") {
			keys[k] = true
		}
	}
	for _, k := range []string{"target-kind", "target-kind-evidence", "nt-threshold", "profile", "count", "pinned-cpu", "binary-sha256", "memcpy-tunables-min", "snowflake-floor-ns"} {
		if !keys[k] {
			t.Errorf("header key %s missing", k)
		}
	}
	// Two repetitions of 3 designs × at least one GOMAXPROCS step.
	if results < 6 || results%2 != 0 {
		t.Fatalf("%d result lines, want two equal repetitions of at least 3", results)
	}
	// A second run must not replace the file without --force.
	o.RunID = "second"
	if err := Run(context.Background(), o, &bytes.Buffer{}, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "refusing to overwrite") {
		t.Fatalf("second run: %v", err)
	}
	if b2, _ := os.ReadFile(out); !bytes.Equal(b, b2) {
		t.Fatal("refused run changed the file")
	}
}

func TestFailureNamesBenchmarkAndWritesNothing(t *testing.T) {
	for _, tc := range []struct{ dir, want string }{
		{"testdata/failing", "benchmark snowflake failed (repetition 1 of 1)"},
		{"testdata/malformed", "benchmark snowflake: snowflake output line 1"},
	} {
		dir := t.TempDir()
		out := filepath.Join(dir, "r.txt")
		var stderr bytes.Buffer
		code := Main([]string{"--profile", "smoke", "--out", out, "--only", "^snowflake$", "--bench-dir", tc.dir}, &bytes.Buffer{}, &stderr)
		if code != 1 || !strings.Contains(stderr.String(), tc.want) {
			t.Fatalf("%s: exit %d, stderr:\n%s\nwant %q", tc.dir, code, stderr.String(), tc.want)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Fatalf("%s: files left behind: %v", tc.dir, entries)
		}
	}
}

// lockedBuffer is a bytes.Buffer that one goroutine may write while
// another reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestKilledRunLeavesNoFile kills the real benchrun binary mid-run.
func TestKilledRunLeavesNoFile(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		dir := t.TempDir()
		out := filepath.Join(dir, "r.txt")
		cmd := exec.Command(filepath.Join(binDir, "benchrun"), "--profile", "smoke", "--out", out, "--only", "^snowflake$", "--bench-dir", "testdata/slow")
		// exec copies the child's stderr into this buffer from its own
		// goroutine while the loop below polls it, so both go through a lock.
		var stderr lockedBuffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(10 * time.Second); !strings.Contains(stderr.String(), "rep 1/1 snowflake"); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				t.Fatalf("benchrun never started the benchmark: %s", stderr.String())
			}
		}
		cmd.Process.Signal(sig)
		err := cmd.Wait()
		if err == nil {
			t.Fatalf("%v: benchrun exited 0", sig)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Fatalf("%v: files left: %v", sig, entries)
		}
		if sig == syscall.SIGTERM && !strings.Contains(stderr.String(), "benchmark snowflake failed") {
			t.Fatalf("SIGTERM: stderr does not name the benchmark:\n%s", stderr.String())
		}
	}
}

// TestPinReachesChildren runs the real benchrun with --pin 0: snowflake,
// its child, must then see exactly one CPU and sweep only procs=1.
func TestPinReachesChildren(t *testing.T) {
	out := filepath.Join(t.TempDir(), "pinned.txt")
	cmd := exec.Command(filepath.Join(binDir, "benchrun"), "--profile", "smoke", "--out", out, "--only", "^snowflake$", "--bench-dir", binDir, "--pin", "0")
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, msg)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "Benchmark") {
			names = append(names, strings.Fields(l)[0])
		}
	}
	if len(names) != 3 || !strings.Contains(string(b), "\npinned-cpu: 0\n") {
		t.Fatalf("pinned run should give 3 procs=1 results and pinned-cpu: 0, got %v", names)
	}
	for _, n := range names {
		if !strings.HasSuffix(n, "/procs=1-1") {
			t.Fatalf("%s ran on more than the pinned CPU", n)
		}
	}
	if err := exec.Command(filepath.Join(binDir, "benchrun"), "--profile", "smoke", "--out", out+"2", "--only", "^snowflake$", "--bench-dir", binDir, "--pin", "4096").Run(); err == nil {
		t.Fatal("--pin to a CPU that does not exist succeeded")
	}
}

// TestPinSerial: --pin-serial last runs a serial program on the last CPU and
// snowflake on every CPU, even when benchrun starts with a narrower mask
// (the lab's confined controller, containerd), which it must not hand down.
func TestPinSerial(t *testing.T) {
	var all unix.CPUSet
	if err := unix.SchedGetaffinity(0, &all); err != nil || all.Count() < 2 {
		t.Skip("needs at least two CPUs in this process's mask")
	}
	last, _ := SerialCPU("last", all)
	first := -1
	for i := 0; i < len(all)*64; i++ {
		if all.IsSet(i) {
			first = i
			break
		}
	}
	dir := t.TempDir()
	if err := os.Symlink(filepath.Join(binDir, "snowflake"), filepath.Join(dir, "snowflake")); err != nil {
		t.Fatal(err)
	}
	// a serial program that says where it may run
	fake := "#!/bin/sh\necho \"storefwd-allowed: $(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)\"\n" +
		"echo 'BenchmarkStorefwd/size=28/form=overlap 1 7.5 ns/entry'\n"
	if err := os.WriteFile(filepath.Join(dir, "storefwd"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "serial.txt")
	cmd := exec.Command(filepath.Join(binDir, "benchrun"), "--profile", "smoke", "--out", out, "--only", "^(snowflake|storefwd)$", "--bench-dir", dir, "--pin-serial", "last")
	var msg bytes.Buffer
	cmd.Stdout, cmd.Stderr = &msg, &msg
	// started on the first CPU only, as a confined parent would
	if err := startOn(first, cmd.Start); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v\n%s", err, msg.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	lastS, n := strconv.Itoa(last), strconv.Itoa(all.Count())
	for _, want := range []string{"\npinned-cpu: " + lastS + "\n", "\nstorefwd-allowed: " + lastS + "\n",
		"\ncpus-visible: " + n + "\n", "procs=" + n + "-" + n, "\npinned-programs: serial (snowflake, a GOMAXPROCS sweep, on CPUs " + CPUList(all) + ")\n"} {
		if !strings.Contains(s, want) {
			t.Errorf("missing %q in\n%s", want, s)
		}
	}
	// --widen: no pinning, every program on the cpuset's CPUs
	cmd = exec.Command(filepath.Join(binDir, "benchrun"), "--profile", "smoke", "--out", out+"w", "--only", "^(snowflake|storefwd)$", "--bench-dir", dir, "--widen")
	cmd.Stdout, cmd.Stderr = &msg, &msg
	if err := startOn(first, cmd.Start); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v\n%s", err, msg.String())
	}
	if b, err = os.ReadFile(out + "w"); err != nil {
		t.Fatal(err)
	}
	s = string(b)
	for _, want := range []string{"\npinned-cpu: none\n", "\nstorefwd-allowed: " + CPUList(all) + "\n", "\ncpus-visible: " + n + "\n",
		"procs=" + n + "-" + n, "\npinned-programs: none (every program on CPUs " + CPUList(all) + ", the target's cpuset)\n"} {
		if !strings.Contains(s, want) {
			t.Errorf("--widen: missing %q in\n%s", want, s)
		}
	}
	// a CPU outside the cpuset, and --pin beside --pin-serial, are refused
	if err := exec.Command(filepath.Join(binDir, "benchrun"), "--profile", "smoke", "--out", out+"2", "--only", "^snowflake$", "--bench-dir", binDir, "--pin-serial", "1023").Run(); err == nil {
		t.Error("--pin-serial to a CPU outside the cpuset succeeded")
	}
	for _, bad := range [][]string{
		{"--profile", "smoke", "--out", "x", "--pin-serial", "first"},
		{"--profile", "smoke", "--out", "x", "--pin-serial", "-1"},
		{"--profile", "smoke", "--out", "x", "--pin-serial", "last", "--pin", "0"},
		{"--profile", "smoke", "--out", "x", "--pin-serial", "last", "--widen"},
		{"--profile", "smoke", "--out", "x", "--widen", "--pin", "1"},
	} {
		if _, err := ParseArgs(bad, &bytes.Buffer{}); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}

func TestCPUList(t *testing.T) {
	var s unix.CPUSet
	for _, c := range []int{0, 2, 3, 4, 7} {
		s.Set(c)
	}
	if got := CPUList(s); got != "0,2-4,7" {
		t.Fatalf("CPUList = %q", got)
	}
}

func TestFastestLines(t *testing.T) {
	kept, err := FastestLines(nil, []string{"BenchmarkA 10 5.0 ns/op 2.0 clocks/op", "BenchmarkB 10 7.0 ns/op"})
	if err != nil {
		t.Fatal(err)
	}
	kept, err = FastestLines(kept, []string{"BenchmarkA 20 4.5 ns/op 9.0 clocks/op", "BenchmarkB 20 8.0 ns/op", "BenchmarkC 5 1 ns/op"})
	if err != nil {
		t.Fatal(err)
	}
	// A's second part was faster: its whole line (count and other units) stays; B's first
	want := []string{"BenchmarkA 20 4.5 ns/op 9.0 clocks/op", "BenchmarkB 10 7.0 ns/op", "BenchmarkC 5 1 ns/op"}
	if strings.Join(kept, "|") != strings.Join(want, "|") {
		t.Fatalf("kept %q, want %q", kept, want)
	}
	if _, err := FastestLines(kept, []string{"BenchmarkA 20 x ns/op"}); err == nil {
		t.Fatal("a first value that is not a number was accepted")
	}
}

func TestPartLinesPoolTheReferenceRatio(t *testing.T) {
	var p PartLines
	parts := [][]string{
		{"BenchmarkM/size=16 10 5.0 ns/op 2.0 B/s 1.30 refcopies/op", "BenchmarkM/size=1 10 1 ns/op"},
		{"BenchmarkM/size=16 10 4.0 ns/op 2.5 B/s 0.90 refcopies/op", "BenchmarkM/size=1 10 2 ns/op"},
		{"BenchmarkM/size=16 10 6.0 ns/op 1.6 B/s 1.05 refcopies/op", "BenchmarkM/size=1 10 3 ns/op"},
	}
	for _, part := range parts {
		if err := p.Add(part); err != nil {
			t.Fatal(err)
		}
	}
	// the fastest part's line (4.0 ns), its ratio the median of the three parts' (1.05)
	want := []string{"BenchmarkM/size=16 10 4.0 ns/op 2.5 B/s 1.05 refcopies/op", "BenchmarkM/size=1 10 1 ns/op"}
	if got := p.Lines(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("merged %q, want %q", got, want)
	}
	var one PartLines
	if err := one.Add(parts[0]); err != nil {
		t.Fatal(err)
	}
	if got := one.Lines(); strings.Join(got, "|") != strings.Join(parts[0], "|") {
		t.Fatalf("one part merged into %q, want it unchanged", got)
	}
	if err := one.Add([]string{"BenchmarkM/size=16 10 4.0 ns/op x refcopies/op"}); err == nil {
		t.Fatal("a ratio that is not a number was accepted")
	}
}

// --parts: a program that takes --share runs once per part with --share N,
// the parts in turn across the jobs, and each row keeps its fastest part; a
// program that does not take it runs once, without --share, the first such
// program in part 1, the next in part 2, and so on.
func TestPartsKeepTheFastestPart(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "calls.log")
	// clock: 9 ns the first time, 7 ns the second; storefwd and align take
	// --share too; snowflake does not
	clock := "#!/bin/sh\necho \"clock $*\" >> " + log + "\nn=$(grep -c '^clock' " + log + ")\n" +
		"if [ \"$n\" = 1 ]; then v=9.0; else v=7.0; fi\necho \"BenchmarkClock/clock=monotonic/path=vdso 100 $v ns/op 30 clocks/op\"\n"
	storefwd := "#!/bin/sh\necho \"storefwd $*\" >> " + log + "\necho 'BenchmarkStorefwd/size=28/form=overlap 1 7.5 ns/entry'\n"
	snowflake := "#!/bin/sh\necho \"snowflake $*\" >> " + log + "\necho 'BenchmarkSnowflake/impl=atomic/procs=1-1 1 244.0 ns/op'\n"
	align := "#!/bin/sh\necho \"align $*\" >> " + log + "\necho 'BenchmarkAlign/pad=0 1 3.5 ns/iter'\n"
	for name, body := range map[string]string{"clock": clock, "storefwd": storefwd, "snowflake": snowflake, "align": align} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), "parts.txt")
	o := mustParse(t, "--profile", "quick", "--count", "1", "--parts", "2", "--out", out, "--only", "^(clock|snowflake|storefwd|align)$", "--bench-dir", dir)
	var progress bytes.Buffer
	if err := Run(context.Background(), o, &bytes.Buffer{}, &progress); err != nil {
		t.Fatalf("%v\n%s", err, progress.String())
	}
	calls, _ := os.ReadFile(log)
	if got := string(calls); got != "clock --profile quick --share 2\nsnowflake --profile quick\nstorefwd --profile quick --share 2\n"+
		"align --profile quick --share 2\nclock --profile quick --share 2\nstorefwd --profile quick --share 2\nalign --profile quick --share 2\n" {
		t.Fatalf("calls in this order, want each part of clock, storefwd and align, and snowflake in part 1:\n%s", got)
	}
	b, _ := os.ReadFile(out)
	s := string(b)
	for _, want := range []string{"\nparts: 2 (each repetition in 2 parts: memcpy, clock, storefwd, fence and align ran once per part", "\nBenchmarkClock/clock=monotonic/path=vdso 100 7.0 ns/op 30 clocks/op\n" +
		"BenchmarkSnowflake/impl=atomic/procs=1-1 1 244.0 ns/op\nBenchmarkStorefwd/size=28/form=overlap 1 7.5 ns/entry\nBenchmarkAlign/pad=0 1 3.5 ns/iter\n"} {
		if !strings.Contains(s, want) {
			t.Errorf("missing %q in\n%s", want, s)
		}
	}
	if strings.Count(s, "\nBenchmarkClock") != 1 || !strings.Contains(progress.String(), "rep 1/1 clock part 2/2") {
		t.Errorf("one clock line and a progress line per part wanted:\n%s\n%s", s, progress.String())
	}
	for _, bad := range []string{"0", "17", "x"} {
		if _, err := ParseArgs([]string{"--profile", "smoke", "--out", "x", "--parts", bad}, &bytes.Buffer{}); err == nil {
			t.Errorf("--parts %s accepted", bad)
		}
	}
	if o := mustParse(t, "--profile", "smoke", "--out", "x"); o.Parts != 1 {
		t.Errorf("default parts %d, want 1", o.Parts)
	}
}

// The jobs that take no --share are dealt out over the parts in turn, the
// sharing ones run in every part.
func TestRunsInDealsTheJobsThatDoNotShare(t *testing.T) {
	jobs := []Job{{Name: "a", Shares: true}, {Name: "b"}, {Name: "c"}, {Name: "d", Shares: true}, {Name: "e"}}
	for part, want := range map[int]string{1: "abde", 2: "acd"} {
		got := ""
		for i, j := range jobs {
			if runsIn(jobs, i, part, 2) {
				got += j.Name
			}
		}
		if got != want {
			t.Errorf("part %d of 2 runs %q, want %q", part, got, want)
		}
	}
	for _, j := range jobs {
		if want := map[bool]int{true: 3, false: 1}[j.Shares]; partsOf(j, 3) != want {
			t.Errorf("%s runs in %d of 3 parts, want %d", j.Name, partsOf(j, 3), want)
		}
	}
}

// --memcpy-min-size reaches the sized programs (memcpy) as --min-size, and
// no other program; a negative size is refused.
func TestMemcpyMinSizeReachesOnlyTheSizedPrograms(t *testing.T) {
	dir := t.TempDir()
	echo := filepath.Join(dir, "echo-args")
	if err := os.WriteFile(echo, []byte("#!/bin/sh\necho \"$*\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	o := mustParse(t, "--profile", "quick", "--out", "x", "--memcpy-min-size", "4194304")
	for _, c := range []struct {
		job  Job
		want string
	}{
		{Job{Name: "memcpy-static/tunable=default", Path: echo, Shares: true, Sized: true}, "--profile quick --share 3 --min-size 4194304\n"},
		{Job{Name: "clock", Path: echo, Shares: true}, "--profile quick --share 3\n"},
	} {
		got, err := runJob(context.Background(), c.job, o.Profile, -1, 3, o.MemcpyMinSize)
		if err != nil || got != c.want {
			t.Errorf("%s: got %q (%v), want %q", c.job.Name, got, err, c.want)
		}
	}
	if got, _ := runJob(context.Background(), Job{Name: "memcpy-dynamic/tunable=min", Path: echo, Sized: true}, "quick", -1, 1, 0); got != "--profile quick\n" {
		t.Errorf("without --memcpy-min-size: got %q", got)
	}
	if _, err := ParseArgs([]string{"--profile", "smoke", "--out", "x", "--memcpy-min-size", "-1"}, &bytes.Buffer{}); err == nil {
		t.Error("--memcpy-min-size -1 accepted")
	}
	sized := 0
	for _, p := range Programs {
		if p.Sized && !strings.HasPrefix(p.Name, "memcpy-") {
			t.Errorf("%s takes --min-size: only memcpy measures sizes", p.Name)
		}
		if p.Sized {
			sized++
		}
	}
	if sized != 2 {
		t.Errorf("%d sized programs, want memcpy-static and memcpy-dynamic", sized)
	}
}

// --share N | PROG=N: the programs that take --share run with 1/N of their
// time in each repetition (all of them, or PROG), and with --parts each part
// with 1/(N×parts); the others keep their whole time; the header names each
// share; a share the programs cannot take, or a program that takes none, is
// refused.
func TestShareCutsTheTimeOfTheSharingPrograms(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "calls.log")
	clock := "#!/bin/sh\necho \"clock $*\" >> " + log + "\necho 'BenchmarkClock/clock=monotonic/path=vdso 100 7.0 ns/op'\n"
	snowflake := "#!/bin/sh\necho \"snowflake $*\" >> " + log + "\necho 'BenchmarkSnowflake/impl=atomic/procs=1-1 1 244.0 ns/op'\n"
	fence := "#!/bin/sh\necho \"fence $*\" >> " + log + "\necho 'BenchmarkFence/work=div/barrier=none 100 8.7 ns/iter'\n"
	for name, body := range map[string]string{"clock": clock, "snowflake": snowflake, "fence": fence} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		args          []string
		calls, header string
	}{
		{[]string{"--share", "2"}, "clock --profile quick --share 2\nsnowflake --profile quick\nfence --profile quick --share 2\n",
			"memcpy=2, clock=2, storefwd=2, fence=2, align=2 (each of these ran with 1/N of its profile's time in each repetition)"},
		{[]string{"--share", "2", "--share", "fence=1", "--parts", "2"},
			"clock --profile quick --share 4\nsnowflake --profile quick\nfence --profile quick --share 2\n" +
				"clock --profile quick --share 4\nfence --profile quick --share 2\n",
			"memcpy=2, clock=2, storefwd=2, align=2 (each of these ran with 1/N of its profile's time in each repetition; fence with the whole of it)"},
		{[]string{"--share", "clock=3"}, "clock --profile quick --share 3\nsnowflake --profile quick\nfence --profile quick\n",
			"clock=3 (each of these ran with 1/N of its profile's time in each repetition; memcpy, storefwd, fence and align with the whole of it)"},
	} {
		os.Remove(log)
		out := filepath.Join(t.TempDir(), "share.txt")
		o := mustParse(t, append([]string{"--profile", "quick", "--count", "1", "--out", out, "--only", "^(clock|snowflake|fence)$", "--bench-dir", dir}, c.args...)...)
		if err := Run(context.Background(), o, &bytes.Buffer{}, &bytes.Buffer{}); err != nil {
			t.Fatal(err)
		}
		if calls, _ := os.ReadFile(log); string(calls) != c.calls {
			t.Errorf("%v: calls\n%s\nwant\n%s", c.args, calls, c.calls)
		}
		if b, _ := os.ReadFile(out); !strings.Contains(string(b), "\nshare: "+c.header+"\n") {
			t.Errorf("%v: no share header %q in\n%s", c.args, c.header, b)
		}
	}
	for _, bad := range [][]string{{"--share", "0"}, {"--share", "17"}, {"--share", "9", "--parts", "2"}, {"--share", "x"},
		{"--share", "snowflake=2"}, {"--share", "bogus=2"}, {"--share", "fence=0"}} {
		if _, err := ParseArgs(append([]string{"--profile", "smoke", "--out", "x"}, bad...), &bytes.Buffer{}); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
	out := filepath.Join(t.TempDir(), "whole.txt")
	o := mustParse(t, "--profile", "quick", "--count", "1", "--out", out, "--only", "^clock$", "--bench-dir", dir)
	if err := Run(context.Background(), o, &bytes.Buffer{}, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(out); strings.Contains(string(b), "\nshare:") || o.ShareOf("clock") != 1 {
		t.Errorf("without --share every program has its whole time and no share header:\n%s", b)
	}
}
