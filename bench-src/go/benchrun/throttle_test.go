package benchrun

import (
	"errors"
	"strings"
	"testing"
	"time"

	"vmparity/bench/envprobe"
)

// A cpu.stat that advances by the next step on every read.
func steps(reads ...envprobe.Throttle) func() (envprobe.Throttle, error) {
	var now envprobe.Throttle
	i := 0
	return func() (envprobe.Throttle, error) {
		if i < len(reads) {
			now.Periods += reads[i].Periods
			now.Throttled += reads[i].Throttled
			now.ThrottledNs += reads[i].ThrottledNs
		}
		i++
		return now, nil
	}
}

func TestJobThrottleBlamesTheJobsThatWereThrottled(t *testing.T) {
	// reads: before/after memcpy, before/after snowflake, before/after memcpy again
	tr := newJobThrottle(steps(
		envprobe.Throttle{}, envprobe.Throttle{Periods: 5},
		envprobe.Throttle{Periods: 1}, envprobe.Throttle{Periods: 8, Throttled: 6, ThrottledNs: 31e6},
		envprobe.Throttle{}, envprobe.Throttle{Periods: 4, Throttled: 1, ThrottledNs: 2e6},
	))
	clock := time.Unix(0, 0)
	tr.now = func() time.Time { clock = clock.Add(500 * time.Millisecond); return clock } // each job: 500 ms
	for _, job := range []string{"memcpy-static/tunable=min", "snowflake", "memcpy-static/tunable=min"} {
		if err := tr.measure(job, func() error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	// the period between the jobs (benchrun's own) counts for nobody; jobs in the order they first ran
	want := "memcpy-static/tunable=min 1 of 9 (2 ms of 1000 ms); snowflake 6 of 8 (31 ms of 500 ms)"
	if got := tr.String(); got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestJobThrottleNoneAndUnknown(t *testing.T) {
	tr := newJobThrottle(steps(envprobe.Throttle{}, envprobe.Throttle{Periods: 3}))
	if err := tr.measure("clock", func() error { return nil }); err != nil || tr.String() != "none" {
		t.Fatalf("got %q, %v; want none", tr.String(), err)
	}
	failed := newJobThrottle(func() (envprobe.Throttle, error) { return envprobe.Throttle{}, errors.New("no cpu.stat") })
	ran := false
	if err := failed.measure("clock", func() error { ran = true; return nil }); err != nil || !ran {
		t.Fatalf("the job must run and succeed when cpu.stat cannot be read: ran=%v err=%v", ran, err)
	}
	if got := failed.String(); !strings.HasPrefix(got, "unknown (") || !strings.Contains(got, "no cpu.stat") {
		t.Fatalf("got %q; want unknown (the reason)", got)
	}
	boom := errors.New("boom")
	if err := tr.measure("fence", func() error { return boom }); err != boom {
		t.Fatalf("the job's own error must come back, got %v", err)
	}
}
