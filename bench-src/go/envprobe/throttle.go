package envprobe

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Throttle is the CFS bandwidth counters of this process's cpu cgroup: how
// many enforcement periods there were, in how many the quota ran out, and
// for how long the group was stopped. Read before and after a benchmark, the
// difference says whether the CPU quota, not the code, set its speed.
type Throttle struct {
	Periods, Throttled, ThrottledNs int64
}

// ParseCPUStat reads cpu.stat: cgroup v1 gives throttled_time in ns, v2
// throttled_usec.
func ParseCPUStat(text string) (Throttle, bool) {
	var t Throttle
	seen := 0
	for _, line := range strings.Split(text, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), " ")
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil {
			continue
		}
		switch k {
		case "nr_periods":
			t.Periods, seen = n, seen+1
		case "nr_throttled":
			t.Throttled, seen = n, seen+1
		case "throttled_time":
			t.ThrottledNs, seen = n, seen+1
		case "throttled_usec":
			t.ThrottledNs, seen = n*1000, seen+1
		}
	}
	return t, seen == 3
}

// ReadThrottle reads this process's cpu.stat, or says why it cannot.
func ReadThrottle() (Throttle, error) {
	mi, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return Throttle{}, err
	}
	pc, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return Throttle{}, err
	}
	dir, _, ok := controllerDir(ParseMountinfo(string(mi)), ParseProcCgroup(string(pc)), "cpu")
	if !ok {
		return Throttle{}, fmt.Errorf("no cpu cgroup for this process")
	}
	b, err := os.ReadFile(filepath.Join(dir, "cpu.stat"))
	if err != nil {
		return Throttle{}, err
	}
	t, ok := ParseCPUStat(string(b))
	if !ok {
		return t, fmt.Errorf("%s has no nr_periods/nr_throttled/throttled_* lines", filepath.Join(dir, "cpu.stat"))
	}
	return t, nil
}

// Since is the change from an earlier reading.
func (t Throttle) Since(before Throttle) Throttle {
	return Throttle{t.Periods - before.Periods, t.Throttled - before.Throttled, t.ThrottledNs - before.ThrottledNs}
}
