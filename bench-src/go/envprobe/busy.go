package envprobe

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// userHZ is the unit of utime/stime in /proc/<pid>/stat: USER_HZ, which
// Linux fixes at 100 for user space on every architecture it runs on.
const userHZ = 100

// BusyProcess is a process that used CPU while the machine should be idle.
type BusyProcess struct {
	PID     int
	Command string
	Percent float64 // of one CPU
}

// ParseStatCPU returns the command and utime+stime ticks of one
// /proc/<pid>/stat line; the command is in parentheses and may hold spaces.
func ParseStatCPU(line string) (string, int64, bool) {
	open, close := strings.IndexByte(line, '('), strings.LastIndexByte(line, ')')
	if open < 0 || close < open {
		return "", 0, false
	}
	f := strings.Fields(line[close+1:])
	// after ")": state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime
	if len(f) < 13 {
		return "", 0, false
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	s, err2 := strconv.ParseInt(f[12], 10, 64)
	return line[open+1 : close], u + s, err1 == nil && err2 == nil
}

func cpuTicks() map[int]BusyProcess {
	out := map[int]BusyProcess{}
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, p := range stats {
		b, err := os.ReadFile(p)
		if err != nil {
			continue // the process ended meanwhile
		}
		cmd, ticks, ok := ParseStatCPU(string(b))
		if !ok {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		out[pid] = BusyProcess{PID: pid, Command: cmd, Percent: float64(ticks)}
	}
	return out
}

// Busy samples every process's CPU time over window and returns those above
// threshold percent of one CPU, busiest first (pyperf's `system check` idea:
// a benchmark round on a busy machine is a round to distrust).
func Busy(window time.Duration, threshold float64) []BusyProcess {
	before := cpuTicks()
	time.Sleep(window)
	after := cpuTicks()
	self := os.Getpid()
	var busy []BusyProcess
	for pid, a := range after {
		b, ok := before[pid]
		if !ok || pid == self || b.Command != a.Command {
			continue
		}
		pct := (a.Percent - b.Percent) / userHZ / window.Seconds() * 100
		if pct >= threshold {
			busy = append(busy, BusyProcess{pid, a.Command, pct})
		}
	}
	sort.Slice(busy, func(i, j int) bool { return busy[i].Percent > busy[j].Percent })
	return busy
}

// HygieneFields are what the lab records on the physical host before each
// round: the load average and the processes that were using CPU.
func HygieneFields(window time.Duration, threshold float64) []Field {
	load := readOr("/proc/loadavg")
	if f := strings.Fields(load); len(f) >= 3 {
		load = strings.Join(f[:3], " ")
	}
	var parts []string
	for _, p := range Busy(window, threshold) {
		parts = append(parts, fmt.Sprintf("%s[%d] %.0f%%", oneLine(p.Command), p.PID, p.Percent))
	}
	busy := strings.Join(parts, ", ")
	if busy == "" {
		busy = "none"
	}
	return []Field{
		{"loadavg", load},
		{"cpus-online", probeTopology().online},
		{"busy-threshold", fmt.Sprintf("%g%% of one CPU over %s", threshold, window)},
		{"busy-processes", busy},
	}
}
