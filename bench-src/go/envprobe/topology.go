package envprobe

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

const cpuSysfs = "/sys/devices/system/cpu"

type topology struct {
	threadsPerCore, coresPerSocket, sockets, online, visible string
}

// parseCPUList expands a kernel CPU list ("0-3,8,10-11") into CPU numbers.
func parseCPUList(s string) ([]int, error) {
	var cpus []int
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return nil, fmt.Errorf("bad CPU list %q: %v", s, err)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return nil, fmt.Errorf("bad CPU range %q in %q", part, s)
			}
		}
		for c := a; c <= b; c++ {
			cpus = append(cpus, c)
		}
	}
	return cpus, nil
}

// probeTopology counts threads, cores and packages the way the OS sees them
// (which is what glibc's cache/threshold computation sees in a guest).
func probeTopology() topology {
	t := topology{}
	var visible unix.CPUSet
	if err := unix.SchedGetaffinity(0, &visible); err != nil {
		t.visible = Unknown("sched_getaffinity: %v", err)
	} else {
		t.visible = strconv.Itoa(visible.Count())
	}
	onlineList, err := readTrim(cpuSysfs + "/online")
	var online []int
	if err == nil {
		online, err = parseCPUList(onlineList)
	}
	if err != nil {
		reason := Unknown("%v", err)
		t.online, t.threadsPerCore, t.coresPerSocket, t.sockets = reason, reason, reason, reason
		return t
	}
	t.online = strconv.Itoa(len(online))

	packages := map[string]bool{}
	cores := map[string]bool{}
	maxThreads := 0
	for _, c := range online {
		dir := filepath.Join(cpuSysfs, fmt.Sprintf("cpu%d", c), "topology")
		pkg, err1 := readTrim(dir + "/physical_package_id")
		core, err2 := readTrim(dir + "/core_id")
		sib, err3 := readTrim(dir + "/thread_siblings_list")
		if err := firstErr(err1, err2, err3); err != nil {
			reason := Unknown("%v", err)
			t.threadsPerCore, t.coresPerSocket, t.sockets = reason, reason, reason
			return t
		}
		sibs, err := parseCPUList(sib)
		if err != nil {
			reason := Unknown("%s: %v", dir, err)
			t.threadsPerCore, t.coresPerSocket, t.sockets = reason, reason, reason
			return t
		}
		packages[pkg] = true
		cores[pkg+"/"+core] = true
		maxThreads = max(maxThreads, len(sibs))
	}
	t.threadsPerCore = strconv.Itoa(maxThreads)
	t.sockets = strconv.Itoa(len(packages))
	t.coresPerSocket = strconv.Itoa(len(cores) / len(packages))
	return t
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}
