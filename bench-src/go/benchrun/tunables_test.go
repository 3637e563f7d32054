package benchrun

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"vmparity/bench/envprobe"
)

// glibc236 answers --list-tunables as glibc 2.36 does: a threshold is applied
// only when strictly above the minimum, otherwise the computed default stays.
func glibc236(def uint64, ignore map[string]bool) TunableReader {
	return func(t *string) (string, error) {
		v := def
		if t != nil && !ignore[*t] {
			if _, val, ok := strings.Cut(*t, ntTunable+"="); ok {
				var n uint64
				fmt.Sscan(val, &n)
				if n > 0x4040 {
					v = n
				}
			}
		}
		return fmt.Sprintf("glibc.malloc.check: 0 (min: 0, max: 3)\n%s: %#x (min: 0x4040, max: 0xfffffffffffffff)\n", ntTunable, v), nil
	}
}

func TestSmallestAcceptedIsAboveTheMinimum(t *testing.T) {
	v, err := SmallestAccepted(glibc236(0xc000000, nil))
	if err != nil || v != 0x4041 {
		t.Fatalf("smallest accepted: %#x, %v (glibc 2.36 ignores its printed minimum 0x4040)", v, err)
	}
}

func TestVerifyVariantsRecordsAndRejects(t *testing.T) {
	vs := Variants("", false, 32<<20, "", 0x4041, "")
	if err := VerifyVariants(vs, glibc236(0xc000000, nil)); err != nil {
		t.Fatal(err)
	}
	if vs[0].Applied != "0xc000000" || vs[1].Applied != "0x1800000" || vs[2].Applied != "0x4041" {
		t.Fatalf("applied thresholds: %q %q %q", vs[0].Applied, vs[1].Applied, vs[2].Applied)
	}
	vs = Variants("", false, 32<<20, "", 0x4041, "")
	err := VerifyVariants(vs, glibc236(0xc000000, map[string]bool{vs[1].Tunables: true}))
	if err == nil || !strings.Contains(err.Error(), "memcpy variant l3-3q: glibc ignored GLIBC_TUNABLES=glibc.cpu.x86_non_temporal_threshold=0x1800000") {
		t.Fatalf("an ignored tunable must fail naming its variant: %v", err)
	}
}

// On this machine's own glibc: the value `min` uses is applied for real.
func TestSmallestAcceptedWithTheRealLoader(t *testing.T) {
	out, err := envprobe.ListTunables(nil)
	if _, ok := envprobe.ParseTunable(out, ntTunable); err != nil || !ok {
		t.Skipf("no ld.so --list-tunables with %s here: %v", ntTunable, err)
	}
	v, err := SmallestAccepted(envprobe.ListTunables)
	if err != nil {
		t.Fatal(err)
	}
	s := fmt.Sprintf("%s=%#x", ntTunable, v)
	out, _ = envprobe.ListTunables(&s)
	got, _ := envprobe.ParseTunable(out, ntTunable)
	if got.Value != v {
		t.Fatalf("GLIBC_TUNABLES=%s: glibc applies %#x", s, got.Value)
	}
	if os.Getenv("GLIBC_TUNABLES") == "" && v == got.Min {
		t.Logf("this glibc accepts its printed minimum %#x", v)
	}
}

// --out - hands the whole result to stdout once, for the lab's rounds.
func TestRunToStdout(t *testing.T) {
	o := mustParse(t, "--profile", "smoke", "--out", "-", "--only", "^snowflake$", "--bench-dir", binDir, "--target", "metal", "--run-id", "r1")
	var stdout, progress bytes.Buffer
	if err := Run(context.Background(), o, &stdout, &progress); err != nil {
		t.Fatalf("%v\n%s", err, progress.String())
	}
	text := stdout.String()
	if !strings.HasPrefix(text, "vmparity-format: 1\nrun-id: r1\ntarget: metal\n") || !strings.Contains(text, "\nBenchmarkSnowflake/") {
		t.Fatalf("stdout:\n%s", text)
	}
	if strings.Contains(progress.String(), "BenchmarkSnowflake") {
		t.Fatal("results leaked into the progress stream")
	}
}

func TestOnlyMatchingNothingIsUsage(t *testing.T) {
	var stderr bytes.Buffer
	if code := Main([]string{"--profile", "smoke", "--out", "-", "--only", "^nomatch$", "--bench-dir", binDir}, &bytes.Buffer{}, &stderr); code != 2 {
		t.Fatalf("exit %d, want 2: %s", code, stderr.String())
	}
}

func TestMetaLinesReachTheHeaderAndCannotOverrideProbes(t *testing.T) {
	o := mustParse(t, "--profile", "smoke", "--out", "-", "--only", "^snowflake$", "--bench-dir", binDir,
		"--meta", "commit=0123abc", "--meta", "branch=main")
	var stdout bytes.Buffer
	if err := Run(context.Background(), o, &stdout, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout.String(), "\ncommit: 0123abc\nbranch: main\n") {
		t.Fatalf("meta lines missing:\n%s", stdout.String())
	}
	o = mustParse(t, "--profile", "smoke", "--out", "-", "--only", "^snowflake$", "--bench-dir", binDir, "--meta", "clocksource=tsc")
	if err := Run(context.Background(), o, &bytes.Buffer{}, &bytes.Buffer{}); err == nil {
		t.Fatal("--meta must not override a probed key")
	}
	if _, err := ParseArgs([]string{"--profile", "smoke", "--out", "-", "--meta", "Bad Key=1"}, &bytes.Buffer{}); err == nil {
		t.Fatal("a bad --meta key was accepted")
	}
}
