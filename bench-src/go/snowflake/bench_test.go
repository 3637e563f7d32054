package snowflake

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestProcsSteps(t *testing.T) {
	for visible, want := range map[int][]int{1: {1}, 2: {1, 2}, 4: {1, 2, 4}, 6: {1, 2, 4, 6}, 48: {1, 2, 4, 8, 16, 32, 48}} {
		if got := ProcsSteps(visible); !slices.Equal(got, want) {
			t.Errorf("ProcsSteps(%d) = %v, want %v", visible, got, want)
		}
	}
}

// TestRunOutputFormat runs the smoke profile for real and checks every line
// against the contract in docs/formats.md.
func TestRunOutputFormat(t *testing.T) {
	var buf bytes.Buffer
	if err := Run(&buf, "smoke", 2); err != nil {
		t.Fatal(err)
	}
	bench := regexp.MustCompile(`^BenchmarkSnowflake/impl=(ticker|twitter|atomic)/procs=([0-9]+)-([0-9]+)\t[1-9][0-9]*\t[0-9]+\.[0-9] ns/op$`)
	var names []string
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		switch {
		case strings.HasPrefix(line, "Benchmark"):
			m := bench.FindStringSubmatch(line)
			if m == nil || m[2] != m[3] {
				t.Fatalf("bad result line %q", line)
			}
			names = append(names, m[1]+"/"+m[2])
		case line == "snowflake-floor-ns: 244", line == "snowflake-benchtime: 10ms",
			line == "snowflake-wait: "+WaitNote, strings.HasPrefix(line, "# "):
		default:
			t.Fatalf("unexpected line %q", line)
		}
	}
	want := []string{"ticker/1", "ticker/2", "twitter/1", "twitter/2", "atomic/1", "atomic/2"}
	if !slices.Equal(names, want) {
		t.Fatalf("benchmarks %v, want %v", names, want)
	}
	if !strings.Contains(buf.String(), "snowflake-floor-ns: 244\n") {
		t.Fatal("floor line missing")
	}
	if err := Run(&buf, "bogus", 1); err == nil {
		t.Fatal("unknown profile accepted")
	}
}
