package main

import (
	"strings"
	"testing"
)

// A benchstat comparison table as benchstat prints it for two quick runs.
const table = `                                         │    a.txt     │                b.txt                 │
                                         │    sec/op    │    sec/op     vs base                │
Clock/clock=monotonic/path=vdso            30.93n ± ∞ ¹   31.02n ± ∞ ¹        ~ (p=0.690 n=5)
Clock/clock=monotonic/path=syscall         331.1n ± ∞ ¹   352.9n ± ∞ ¹   +6.58% (p=0.008 n=5)
Snowflake/impl=atomic/procs=2-2            263.1n ± ∞ ¹   262.0n ± ∞ ¹        ~ (p=0.421 n=5)
geomean                                    95.20n         97.10n         +2.00%
`

func TestCountSignificant(t *testing.T) {
	sig, rows := countSignificant(table)
	if sig != 1 || rows != 3 {
		t.Fatalf("sig %d rows %d, want 1 of 3", sig, rows)
	}
}

func TestParseResultsAndMedian(t *testing.T) {
	r, err := parseResults("x", strings.NewReader("clocksource: tsc\nUnit B/s better=higher\n"+
		"BenchmarkMemcpy/link=static/tunable=default/size=10485760 10 1e6 ns/op 1.0e10 B/s\n"+
		"BenchmarkMemcpy/link=static/tunable=default/size=10485760 10 3e6 ns/op 3.0e10 B/s\n"+
		"BenchmarkMemcpy/link=static/tunable=default/size=10485760 10 2e6 ns/op 2.0e10 B/s\n"))
	if err != nil {
		t.Fatal(err)
	}
	v := r.values["Memcpy/link=static/tunable=default/size=10485760"]
	if r.config["clocksource"] != "tsc" || median(v["B/s"]) != 2e10 || median(v["sec/op"]) != 2e-3 {
		t.Fatalf("config %v values %v", r.config, v)
	}
	if _, err := parseResults("bad", strings.NewReader("BenchmarkX 1 1\n")); err == nil {
		t.Fatal("syntax error not reported")
	}
}
