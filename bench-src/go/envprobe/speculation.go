package envprobe

import (
	"bufio"
	"strings"
)

// ParseSpecStoreBypass reads the Speculation_Store_Bypass line of
// /proc/self/status: "thread vulnerable", "thread mitigated", "thread force
// mitigated", "globally mitigated", "not vulnerable", … The benchmarks
// inherit it from benchrun. With store bypass disabled a load may not run
// ahead of an older store whose address is not known yet, which slows code
// that stores and reloads (storefwd's fresh form about 2x on an EPYC); Linux
// before 5.16 disables it for every process under a seccomp filter, that is
// for every container (spec_store_bypass_disable=seccomp was the default).
func ParseSpecStoreBypass(status string) string {
	sc := bufio.NewScanner(strings.NewReader(status))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == "Speculation_Store_Bypass" {
			if v = oneLine(v); v != "" {
				return v
			}
			return Unknown("empty Speculation_Store_Bypass line in /proc/self/status")
		}
	}
	return Unknown("no Speculation_Store_Bypass line in /proc/self/status (kernel before 4.17)")
}

func probeSpecStoreBypass() string {
	s, err := readTrim("/proc/self/status")
	if err != nil {
		return Unknown("%v", err)
	}
	return ParseSpecStoreBypass(s)
}
