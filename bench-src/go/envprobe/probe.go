// Package envprobe reads the environment fingerprint that explains
// benchmark differences: CPU and topology as the OS sees them, caches,
// glibc's computed thresholds, clocksource and vDSO, PMU, target kind,
// cgroup quota, power settings. Keys and meanings: docs/formats.md
// ("envprobe keys"). A value that cannot be read is "unknown (<reason>)".
package envprobe

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

// Field is one key of the fingerprint; Probe returns them in contract order.
type Field struct {
	Key, Value string
}

// Unknown formats a value that could not be read, with the reason.
func Unknown(format string, args ...any) string {
	return "unknown (" + oneLine(fmt.Sprintf(format, args...)) + ")"
}

// oneLine keeps a value on its config line: benchfmt values end at newline.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// readTrim reads a small text file (sysfs, procfs) without its newline.
func readTrim(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(b)), nil
}

// readOr returns the file's content or Unknown with the error as reason.
func readOr(path string) string {
	s, err := readTrim(path)
	if err != nil {
		return Unknown("%v", err)
	}
	if s == "" {
		return Unknown("%s is empty", path)
	}
	return oneLine(s)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// Probe reads every key. It never fails: unreadable values say why.
func Probe() []Field {
	var f []Field
	add := func(k, v string) { f = append(f, Field{k, v}) }

	host, err := os.Hostname()
	if err != nil {
		host = Unknown("%v", err)
	}
	add("host", host)
	add("kernel", readOr("/proc/sys/kernel/osrelease"))
	add("kernel-cmdline", readOr("/proc/cmdline"))

	cpu := probeCPU()
	machine, evidence := probeMachine(cpu)
	add("machine", machine)
	add("machine-evidence", evidence)
	add("cpu", cpu.model)
	add("cpu-vendor", cpu.vendor)
	add("cpu-flags", cpu.selectedFlags())
	for _, fl := range flagKeys {
		add(fl.key, cpu.flag(fl.flag))
	}
	add("hypervisor-signature", cpu.hvSignature)
	add("kvm-clock-stable-bit", kvmClockStableBit(cpu.hvSignature))
	add("domain-cpu-mode", domainCPUMode())

	topo := probeTopology()
	add("threads-per-core", topo.threadsPerCore)
	add("cores-per-socket", topo.coresPerSocket)
	add("sockets", topo.sockets)
	add("cpus-online", topo.online)
	add("cpus-visible", topo.visible)

	for _, c := range cacheLevels {
		add(c.key, sysfsCache(c.level, c.kind))
	}
	for _, c := range cacheLevels {
		add("getconf-"+c.key, getconfCache(c.getconf))
	}

	g := probeGlibc()
	add("glibc", g.version)
	add("glibc-diagnostics-source", g.source)
	add("nt-threshold", g.th.NonTemporal)
	add("rep-movsb-threshold", g.th.RepMovsb)
	add("rep-stosb-threshold", g.th.RepStosb)
	add("shared-cache-size", g.th.SharedCache)
	if t, ok := os.LookupEnv("GLIBC_TUNABLES"); ok {
		add("glibc-tunables", oneLine(t))
	} else {
		add("glibc-tunables", "none")
	}

	add("clocksource", readOr(clocksourceDir+"/current_clocksource"))
	add("clocksources-available", readOr(clocksourceDir+"/available_clocksource"))
	add("vdso", probeVDSO())
	pmu, reason := probePMU()
	add("pmu", pmu)
	add("pmu-reason", reason)

	kind, evidence := TargetKind(gatherKindEvidence(cpu))
	add("target-kind", kind)
	add("target-kind-evidence", evidence)

	cg := probeCgroup()
	add("cgroup", cg.version)
	add("cpu-quota", cg.quota)
	add("cpuset", cg.cpuset)

	add("seccomp", probeSeccomp())
	add("spec-store-bypass", probeSpecStoreBypass())
	add("governor", probeGovernor())
	add("turbo", probeTurbo())
	add("thp", probeTHP())
	return f
}

// WriteLines prints the fields as benchfmt configuration lines.
func WriteLines(w io.Writer, fields []Field) error {
	for _, f := range fields {
		if _, err := fmt.Fprintf(w, "%s: %s\n", f.Key, f.Value); err != nil {
			return err
		}
	}
	return nil
}

// WriteJSON prints the fields as one JSON object, keys in contract order.
func WriteJSON(w io.Writer, fields []Field) error {
	var b strings.Builder
	b.WriteString("{\n")
	for i, f := range fields {
		k, _ := json.Marshal(f.Key)
		v, _ := json.Marshal(f.Value)
		sep := ","
		if i == len(fields)-1 {
			sep = ""
		}
		fmt.Fprintf(&b, "  %s: %s%s\n", k, v, sep)
	}
	b.WriteString("}\n")
	_, err := io.WriteString(w, b.String())
	return err
}
