// Command benchsuite measures the suite against its performance targets
// (quick < 60 s, full < 10 min, noise <= 5 %, clock vDSO/syscall >= 5x on
// tsc, memcpy 10 MiB within 20 % of streamcopy; `make bench-suite`) and
// prints a report: quick and full wall times, run-to-run noise as benchstat
// sees it, the clock vDSO/syscall ratio, and memcpy at 10 MiB against the
// streamcopy reference.
// It reports; it does not gate: a missed target is marked MISS.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"golang.org/x/perf/benchfmt"
)

type suite struct {
	benchDir, benchstat, outDir string
	w                           io.Writer
}

func main() {
	s := suite{w: os.Stdout}
	flag.StringVar(&s.benchDir, "bench-dir", "build/bench", "built benchmark binaries")
	flag.StringVar(&s.benchstat, "benchstat", "benchstat", "benchstat binary")
	flag.StringVar(&s.outDir, "out-dir", "build/bench-suite", "where the run files are kept")
	full := flag.Bool("full", true, "also time the full profile (up to 10 minutes)")
	flag.Parse()
	if err := s.run(*full); err != nil {
		fmt.Fprintln(os.Stderr, "benchsuite:", err)
		os.Exit(1)
	}
}

func verdict(ok bool) string {
	if ok {
		return "ok"
	}
	return "MISS"
}

func (s suite) run(full bool) error {
	if err := os.MkdirAll(s.outDir, 0o755); err != nil {
		return err
	}
	runID := time.Now().UTC().Format("2006-01-02T15-04-05Z")
	q1, t1, err := s.benchrun("quick", runID+"-quick-1")
	if err != nil {
		return err
	}
	q2, t2, err := s.benchrun("quick", runID+"-quick-2")
	if err != nil {
		return err
	}
	var report []string
	add := func(format string, args ...any) { report = append(report, fmt.Sprintf(format, args...)) }
	add("quick wall time      %6.1f s, %6.1f s   (target < 60 s)   %s", t1.Seconds(), t2.Seconds(), verdict(max(t1, t2) < time.Minute))
	if full {
		_, tf, err := s.benchrun("full", runID+"-full")
		if err != nil {
			return err
		}
		add("full wall time       %6.1f s             (target < 600 s)  %s", tf.Seconds(), verdict(tf < 10*time.Minute))
	} else {
		add("full wall time       not measured (--full=false)")
	}

	sig, rows, err := s.noise(q1, q2)
	if err != nil {
		return err
	}
	pct := 100 * float64(sig) / float64(rows)
	add("noise                %6.1f %%  (%d of %d benchstat rows significant between two quick runs; target <= 5 %%)   %s", pct, sig, rows, verdict(pct <= 5))

	r1, err := readResults(q1)
	if err != nil {
		return err
	}
	cs := r1.config["clocksource"]
	vdso := median(r1.values["Clock/clock=monotonic/path=vdso"]["sec/op"])
	sys := median(r1.values["Clock/clock=monotonic/path=syscall"]["sec/op"])
	if vdso > 0 && sys > 0 {
		ratio := sys / vdso
		target := "target >= 5x on tsc"
		v := verdict(ratio >= 5)
		if cs != "tsc" {
			v = "n/a (clocksource " + cs + ")"
		}
		add("clock MONOTONIC      vdso %.1f ns, syscall %.1f ns: ratio %.1fx  (clocksource %s; %s)   %s", vdso*1e9, sys*1e9, ratio, cs, target, v)
	} else {
		add("clock MONOTONIC      no vdso/syscall results in %s", q1)
	}

	const tenMiB = "size=10485760"
	ref, err := s.streamcopy()
	if err != nil {
		return err
	}
	for _, link := range []string{"static", "dynamic"} {
		bw := median(r1.values["Memcpy/link="+link+"/tunable=default/"+tenMiB]["B/s"])
		if bw == 0 || ref == 0 {
			add("memcpy 10 MiB %-7s no result (memcpy %.3g B/s, streamcopy %.3g B/s)", link, bw, ref)
			continue
		}
		add("memcpy 10 MiB %-7s %.2f GB/s vs streamcopy %.2f GB/s: %+.0f %%  (target within 20 %%)   %s",
			link, bw/1e9, ref/1e9, 100*(bw/ref-1), verdict(bw >= 0.8*ref && bw <= 1.2*ref))
	}
	fmt.Fprintf(s.w, "\nbench-suite report (runs kept in %s)\n", s.outDir)
	for _, l := range report {
		fmt.Fprintln(s.w, "  "+l)
	}
	return nil
}

// benchrun runs one profile into a fresh file and returns its path and time.
func (s suite) benchrun(profile, name string) (string, time.Duration, error) {
	out := filepath.Join(s.outDir, name+".txt")
	cmd := exec.Command(filepath.Join(s.benchDir, "benchrun"), "--profile", profile, "--out", out, "--run-id", name, "--target", "bench-suite")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	fmt.Fprintf(os.Stderr, "benchsuite: benchrun --profile %s --out %s\n", profile, out)
	t0 := time.Now()
	if err := cmd.Run(); err != nil {
		return "", 0, fmt.Errorf("benchrun --profile %s: %v", profile, err)
	}
	return out, time.Since(t0), nil
}

// noise counts the rows benchstat marks significant (a delta, not "~")
// between two runs of the same binaries on the same machine. -table ""
// keeps benchstat from splitting tables on keys that legitimately differ
// between runs (run-id, measured TSC GHz).
func (s suite) noise(a, b string) (sig, rows int, err error) {
	out, err := exec.Command(s.benchstat, "-table", "", a, b).Output()
	if err != nil {
		return 0, 0, fmt.Errorf("%s %s %s: %v", s.benchstat, a, b, err)
	}
	sig, rows = countSignificant(string(out))
	if rows == 0 {
		return 0, 0, fmt.Errorf("benchstat printed no comparison rows for %s vs %s", a, b)
	}
	return sig, rows, nil
}

// countSignificant reads benchstat's comparison table: every row with a
// "(p=… n=…)" note is a comparison; "~" before it means not significant.
func countSignificant(table string) (sig, rows int) {
	for _, line := range strings.Split(table, "\n") {
		i := strings.Index(line, "(p=")
		if i < 0 || strings.HasPrefix(line, "geomean") {
			continue
		}
		rows++
		if !strings.HasSuffix(strings.TrimSpace(line[:i]), "~") {
			sig++
		}
	}
	return sig, rows
}

// streamcopy runs the reference copy five times and returns the median
// bandwidth at 10 MiB, the size the memcpy target is about.
func (s suite) streamcopy() (float64, error) {
	var vals []float64
	for range 5 {
		out, err := exec.Command(filepath.Join(s.benchDir, "streamcopy"), "--profile", "quick").Output()
		if err != nil {
			return 0, fmt.Errorf("streamcopy --profile quick: %v", err)
		}
		r, err := parseResults("streamcopy", strings.NewReader(string(out)))
		if err != nil {
			return 0, err
		}
		vals = append(vals, r.values["StreamCopy/size=10485760"]["B/s"]...)
	}
	if len(vals) == 0 {
		return 0, fmt.Errorf("streamcopy printed no BenchmarkStreamCopy/size=10485760 B/s result")
	}
	return median(vals), nil
}

type results struct {
	config map[string]string
	values map[string]map[string][]float64 // name (without "Benchmark") → unit → values
}

func readResults(path string) (results, error) {
	f, err := os.Open(path)
	if err != nil {
		return results{}, err
	}
	defer f.Close()
	return parseResults(path, f)
}

// parseResults uses benchstat's own parser; a syntax error is an error here.
func parseResults(name string, r io.Reader) (results, error) {
	res := results{config: map[string]string{}, values: map[string]map[string][]float64{}}
	rd := benchfmt.NewReader(r, name)
	for rd.Scan() {
		switch rec := rd.Result().(type) {
		case *benchfmt.SyntaxError:
			return res, fmt.Errorf("%v", rec)
		case *benchfmt.Result:
			for _, c := range rec.Config {
				res.config[c.Key] = string(c.Value)
			}
			n := string(rec.Name.Full())
			if res.values[n] == nil {
				res.values[n] = map[string][]float64{}
			}
			for _, v := range rec.Values {
				unit, val := v.Unit, v.Value
				if unit == "ns/op" { // benchfmt keeps ns/op; report in sec/op like benchstat
					unit, val = "sec/op", val/1e9
				}
				res.values[n][unit] = append(res.values[n][unit], val)
			}
		}
	}
	return res, rd.Err()
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
