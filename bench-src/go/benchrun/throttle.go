package benchrun

import (
	"fmt"
	"strings"
	"time"

	"vmparity/bench/envprobe"
)

// jobThrottle sums the CFS throttling seen while each job ran, so that a
// rule can blame the quota for the rows of the jobs it stopped (a Go
// program's GOMAXPROCS workers under a quota of fewer CPUs) and not for
// every row of a run in which something was throttled once.
type jobThrottle struct {
	read  func() (envprobe.Throttle, error) // the cgroup's cpu.stat (envprobe.ReadThrottle)
	order []string
	by    map[string]envprobe.Throttle
	wall  map[string]time.Duration // how long each job ran: the share of it the quota stopped
	err   error                    // the first failure to read cpu.stat: the whole record is unknown
	now   func() time.Time         // time.Now; a test's own clock
}

func newJobThrottle(read func() (envprobe.Throttle, error)) *jobThrottle {
	return &jobThrottle{read: read, by: map[string]envprobe.Throttle{}, wall: map[string]time.Duration{}, now: time.Now}
}

// measure runs fn and adds the throttling between its start and end to job.
func (t *jobThrottle) measure(job string, fn func() error) error {
	before, err := t.read()
	t0 := t.now()
	runErr := fn()
	ran := t.now().Sub(t0)
	if err == nil {
		var after envprobe.Throttle
		if after, err = t.read(); err == nil {
			d := after.Since(before)
			sum, seen := t.by[job]
			if !seen {
				t.order = append(t.order, job)
			}
			sum.Periods += d.Periods
			sum.Throttled += d.Throttled
			sum.ThrottledNs += d.ThrottledNs
			t.by[job] = sum
			t.wall[job] += ran
		}
	}
	if err != nil && t.err == nil {
		t.err = err
	}
	return runErr
}

// String is the cpu-throttled-jobs header value (docs/formats.md): the jobs
// the kernel throttled, "<job> <throttled> of <periods> (<ms> ms of <wall> ms)"
// joined by "; " in the order they first ran, or "none". The wall time says
// how much of the job the stops were: 7 ms of 2,300 cannot make a row 2 %
// slower, 700 ms can.
func (t *jobThrottle) String() string {
	if t.err != nil {
		return envprobe.Unknown("%v", t.err)
	}
	var parts []string
	for _, job := range t.order {
		if d := t.by[job]; d.Throttled > 0 {
			parts = append(parts, fmt.Sprintf("%s %d of %d (%d ms of %d ms)", job, d.Throttled, d.Periods,
				d.ThrottledNs/1e6, t.wall[job].Milliseconds()))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, "; ")
}
