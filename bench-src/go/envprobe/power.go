package envprobe

import (
	"regexp"
)

func probeGovernor() string {
	return readOr(cpuSysfs + "/cpu0/cpufreq/scaling_governor")
}

// probeTurbo: intel_pstate exposes no_turbo (1 = off), acpi-cpufreq and
// amd-pstate expose cpufreq/boost (1 = on).
func probeTurbo() string {
	if s, err := readTrim(cpuSysfs + "/intel_pstate/no_turbo"); err == nil {
		return map[string]string{"0": "on", "1": "off"}[s] + " (intel_pstate/no_turbo=" + s + ")"
	}
	if s, err := readTrim(cpuSysfs + "/cpufreq/boost"); err == nil {
		return map[string]string{"0": "off", "1": "on"}[s] + " (cpufreq/boost=" + s + ")"
	}
	return Unknown("neither %s/intel_pstate/no_turbo nor %s/cpufreq/boost is readable", cpuSysfs, cpuSysfs)
}

var bracketed = regexp.MustCompile(`\[([a-z_]+)\]`)

// probeTHP returns the selected transparent-hugepage mode ("[madvise]").
func probeTHP() string {
	const f = "/sys/kernel/mm/transparent_hugepage/enabled"
	s, err := readTrim(f)
	if err != nil {
		return Unknown("%v", err)
	}
	if m := bracketed.FindStringSubmatch(s); m != nil {
		return m[1]
	}
	return Unknown("%s: no [selected] mode in %q", f, s)
}
