package envprobe

import (
	"bufio"
	"fmt"
	"strings"
)

// ParseSeccomp reads the Seccomp and Seccomp_filters lines of
// /proc/self/status: "filter (N filters)", "strict" or "disabled". A
// container runtime's default profile puts a BPF filter in front of every
// system call, which the syscall path of a benchmark pays and the vDSO
// path does not.
func ParseSeccomp(status string) string {
	mode, filters := "", ""
	sc := bufio.NewScanner(strings.NewReader(status))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		switch strings.TrimSpace(k) {
		case "Seccomp":
			mode = strings.TrimSpace(v)
		case "Seccomp_filters":
			filters = strings.TrimSpace(v)
		}
	}
	switch mode {
	case "0":
		return "disabled"
	case "1":
		return "strict"
	case "2":
		if filters == "" {
			return "filter"
		}
		return fmt.Sprintf("filter (%s filters)", filters)
	case "":
		return Unknown("no Seccomp line in /proc/self/status")
	}
	return Unknown("Seccomp mode %q", mode)
}

func probeSeccomp() string {
	s, err := readTrim("/proc/self/status")
	if err != nil {
		return Unknown("%v", err)
	}
	return ParseSeccomp(s)
}
