package benchrun

import (
	"fmt"
	"strings"

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
	err   error // the first failure to read cpu.stat: the whole record is unknown
}

func newJobThrottle(read func() (envprobe.Throttle, error)) *jobThrottle {
	return &jobThrottle{read: read, by: map[string]envprobe.Throttle{}}
}

// measure runs fn and adds the throttling between its start and end to job.
func (t *jobThrottle) measure(job string, fn func() error) error {
	before, err := t.read()
	runErr := fn()
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
		}
	}
	if err != nil && t.err == nil {
		t.err = err
	}
	return runErr
}

// String is the cpu-throttled-jobs header value (docs/formats.md): the jobs
// the kernel throttled, "<job> <throttled> of <periods> (<ms> ms)" joined by
// "; " in the order they first ran, or "none".
func (t *jobThrottle) String() string {
	if t.err != nil {
		return envprobe.Unknown("%v", t.err)
	}
	var parts []string
	for _, job := range t.order {
		if d := t.by[job]; d.Throttled > 0 {
			parts = append(parts, fmt.Sprintf("%s %d of %d (%d ms)", job, d.Throttled, d.Periods, d.ThrottledNs/1e6))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, "; ")
}
