package benchrun

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// PinAll restricts every thread of this process to one CPU. The affinity
// mask is per thread and Go runs many; new threads and the benchmark
// children inherit the mask of the thread that creates them, so setting it
// on all existing threads pins everything that follows.
func PinAll(cpu int) error {
	var set unix.CPUSet
	if cpu < 0 || cpu >= len(set)*64 {
		return fmt.Errorf("--pin %d: expected a CPU number from 0 to %d", cpu, len(set)*64-1)
	}
	set.Set(cpu)
	if err := setAll(&set); err != nil {
		return fmt.Errorf("--pin %d: %v (is CPU %d visible to this process?)", cpu, err, cpu)
	}
	return nil
}

// setAll gives every thread of this process the mask set. The runtime
// starts threads at any time, and a new thread takes its creator's mask: one
// started during a pass by a thread not yet changed keeps the old mask, and
// a benchmark or the probe could run on it. So the passes repeat until one
// changes no thread; every thread then has the new mask, and so has every
// thread any of them starts.
func setAll(set *unix.CPUSet) error {
	for {
		changed, err := setAllOnce(set)
		if err != nil || !changed {
			return err
		}
	}
}

// setAllOnce is one pass of setAll: whether it changed any thread's mask.
func setAllOnce(set *unix.CPUSet) (bool, error) {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return false, err
	}
	changed := false
	for _, t := range tasks {
		tid, err := strconv.Atoi(t.Name())
		if err != nil {
			continue
		}
		var before, after unix.CPUSet
		if err := unix.SchedGetaffinity(tid, &before); err == unix.ESRCH {
			continue
		}
		if err := unix.SchedSetaffinity(tid, set); err != nil {
			if err == unix.ESRCH {
				continue
			}
			return false, fmt.Errorf("sched_setaffinity(thread %d): %v", tid, err)
		}
		// the kernel intersects set with the cpuset: compare what it gave
		if err := unix.SchedGetaffinity(tid, &after); err == nil && after != before {
			changed = true
		}
	}
	return changed, nil
}

// WidenAll gives every thread of this process every CPU its cpuset allows
// and returns that set. A process inherits its parent's affinity: when the
// lab confines its controller (or containerd, whose runc starts a
// container's processes) to the other CPUs, benchrun would otherwise start
// with their mask, and the target's CPUs (cpus-visible, snowflake's
// GOMAXPROCS sweep) would be the controller's. The kernel intersects the
// mask asked for with the cpuset, so asking for every CPU gives the
// cpuset's own: a container's --cpuset-cpus, the whole machine on metal.
func WidenAll() (unix.CPUSet, error) {
	var all, got unix.CPUSet
	for i := 0; i < len(all)*64; i++ {
		all.Set(i)
	}
	if err := setAll(&all); err != nil {
		return got, fmt.Errorf("widening the affinity to the cpuset: %v", err)
	}
	if err := unix.SchedGetaffinity(0, &got); err != nil {
		return got, fmt.Errorf("widening the affinity: sched_getaffinity: %v", err)
	}
	return got, nil
}

// SerialCPU resolves --pin-serial against the CPUs this process may use:
// "last" is the highest of them, a number must be one of them.
func SerialCPU(spec string, allowed unix.CPUSet) (int, error) {
	if spec == "last" {
		for i := len(allowed)*64 - 1; i >= 0; i-- {
			if allowed.IsSet(i) {
				return i, nil
			}
		}
		return -1, fmt.Errorf("--pin-serial last: no CPU in this process's affinity mask")
	}
	cpu, err := strconv.Atoi(spec)
	if err != nil || cpu < 0 || cpu >= len(allowed)*64 {
		return -1, fmt.Errorf("--pin-serial %q: expected a CPU number or last", spec)
	}
	if !allowed.IsSet(cpu) {
		return -1, fmt.Errorf("--pin-serial %d: CPU %d is not in this target's cpuset (%s)", cpu, cpu, CPUList(allowed))
	}
	return cpu, nil
}

// CPUList is a kernel CPU list of set: "0-1", "0,2-3".
func CPUList(set unix.CPUSet) string {
	var parts []string
	n := len(set) * 64
	for i := 0; i < n; i++ {
		if !set.IsSet(i) {
			continue
		}
		j := i
		for j+1 < n && set.IsSet(j+1) {
			j++
		}
		if j == i {
			parts = append(parts, strconv.Itoa(i))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", i, j))
		}
		i = j
	}
	return strings.Join(parts, ",")
}

// startOn starts start() from a thread whose mask is the one CPU cpu: the
// fork happens on the calling thread (locked here), so only the child
// inherits it; the thread gets its own mask back before it is unlocked.
func startOn(cpu int, start func() error) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var saved, one unix.CPUSet
	if err := unix.SchedGetaffinity(0, &saved); err != nil {
		return fmt.Errorf("sched_getaffinity: %v", err)
	}
	one.Set(cpu)
	if err := unix.SchedSetaffinity(0, &one); err != nil {
		return fmt.Errorf("pinning to CPU %d: sched_setaffinity: %v", cpu, err)
	}
	err := start()
	if rerr := unix.SchedSetaffinity(0, &saved); rerr != nil && err == nil {
		err = fmt.Errorf("restoring the affinity after a pinned start: %v", rerr)
	}
	return err
}
