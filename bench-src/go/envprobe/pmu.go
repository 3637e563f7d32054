package envprobe

import (
	"encoding/binary"
	"fmt"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// probePMU opens real hardware counters (cycles, instructions) for this
// process, runs a little work and reads them back. Guests and containers
// often lack a virtual PMU or forbid perf_event_open; the reason says which.
func probePMU() (usable, reason string) {
	var problems []string
	for _, c := range []struct {
		name   string
		config uint64
	}{{"cycles", unix.PERF_COUNT_HW_CPU_CYCLES}, {"instructions", unix.PERF_COUNT_HW_INSTRUCTIONS}} {
		if err := countOne(c.config); err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", c.name, err))
		}
	}
	if len(problems) == 0 {
		return "yes", "cycles and instructions counted"
	}
	return "no", strings.Join(problems, "; ")
}

func countOne(config uint64) error {
	attr := unix.PerfEventAttr{
		Type:   unix.PERF_TYPE_HARDWARE,
		Size:   uint32(unsafe.Sizeof(unix.PerfEventAttr{})),
		Config: config,
		// Only user space: works under perf_event_paranoid=2.
		Bits: unix.PerfBitDisabled | unix.PerfBitExcludeKernel | unix.PerfBitExcludeHv,
	}
	fd, err := unix.PerfEventOpen(&attr, 0, -1, -1, unix.PERF_FLAG_FD_CLOEXEC)
	if err != nil {
		return fmt.Errorf("perf_event_open: %s (%v)", unix.ErrnoName(err.(unix.Errno)), err)
	}
	defer unix.Close(fd)
	if err := unix.IoctlSetInt(fd, unix.PERF_EVENT_IOC_ENABLE, 0); err != nil {
		return fmt.Errorf("enable: %v", err)
	}
	x := 1
	for i := 0; i < 100000; i++ {
		x = x*31 + i
	}
	unix.IoctlSetInt(fd, unix.PERF_EVENT_IOC_DISABLE, 0)
	buf := make([]byte, 8)
	if n, err := unix.Read(fd, buf); err != nil || n != 8 {
		return fmt.Errorf("read: %v (%d bytes)", err, n)
	}
	if binary.NativeEndian.Uint64(buf) == 0 && x != 0 {
		return fmt.Errorf("counter opened but counted 0 events")
	}
	return nil
}
