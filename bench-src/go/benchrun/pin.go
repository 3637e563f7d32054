package benchrun

import (
	"fmt"
	"os"
	"strconv"

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
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return fmt.Errorf("--pin %d: %v", cpu, err)
	}
	for _, t := range tasks {
		tid, err := strconv.Atoi(t.Name())
		if err != nil {
			continue
		}
		if err := unix.SchedSetaffinity(tid, &set); err != nil && err != unix.ESRCH {
			return fmt.Errorf("--pin %d: sched_setaffinity(thread %d): %v (is CPU %d visible to this process?)", cpu, tid, err, cpu)
		}
	}
	return nil
}
