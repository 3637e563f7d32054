package envprobe

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"regexp"
	"strings"
)

// MachineEnv is how the lab hands the physical machine's identity to the
// targets it runs (containers and guests): their own hostnames change every
// run and a guest's /etc/machine-id is its image's, so only the host knows.
const MachineEnv = "VMPARITY_MACHINE"

// machineSources are read on the machine itself: what stays with the
// hardware and its installation. A source that cannot be read (the DMI UUID
// needs root, a container has no /etc/machine-id of its host) is left out
// and named in the evidence; the rest still identify the machine.
var machineSources = []struct{ name, path string }{
	{"machine-id", "/etc/machine-id"},
	{"product-uuid", "/sys/class/dmi/id/product_uuid"},
}

// machineValue is what a lab may pass: letters, digits, '-', '_', '.', ':'.
var machineValue = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,128}$`)

// Machine returns the `machine` key (a stable identity of the physical
// machine) and `machine-evidence` (what it was made from). From
// VMPARITY_MACHINE when set (checked: one short token), else the first 16
// hex digits of SHA-256 over the sources read here plus the hardware the CPU
// presents (hardwareOf: its model name, family/model/stepping and L3 size) and
// microcode (a microcode update is the same machine: it is in the evidence,
// not in the identity, so that a firmware update does not start a new series).
//
// Why the hardware and not the model name alone: a cloud VM keeps its
// /etc/machine-id when it is stopped and started on another host, and a
// hypervisor may show every CPU as "Intel(R) Xeon(R) Processor". One such VM
// went on 2026-11-27 from a host with a 480 MiB L3 and a 2.6 GHz TSC to one
// with 300 MiB and 2.1 GHz under the same identity, and 1644 rows of its
// history stepped at once while "this machine's usual" mixed the two hosts.
func Machine(env string, read func(string) (string, error), hardware, microcode string) (string, string) {
	if env != "" {
		if !machineValue.MatchString(env) {
			return Unknown("%s=%q is not one token of letters, digits and ._:-", MachineEnv, env), "set by the caller, refused"
		}
		return env, MachineEnv + " set by the lab (the host that runs this target)"
	}
	var parts, used, missing []string
	for _, s := range machineSources {
		v, err := read(s.path)
		if err != nil || v == "" {
			missing = append(missing, s.name)
			continue
		}
		parts = append(parts, s.name+"="+v)
		used = append(used, s.name)
	}
	if len(used) == 0 {
		return Unknown("neither %s readable", strings.Join(namesOf(), " nor ")), "cpu " + hardware
	}
	parts = append(parts, "cpu="+hardware)
	sum := sha256.Sum256([]byte(strings.Join(parts, "\n")))
	evidence := fmt.Sprintf("sha256 of %s, cpu %s", strings.Join(used, ", "), hardware)
	if len(missing) > 0 {
		evidence += " (unreadable: " + strings.Join(missing, ", ") + ")"
	}
	if microcode != "" {
		evidence += "; microcode " + microcode
	}
	return hex.EncodeToString(sum[:])[:16], evidence
}

func namesOf() []string {
	out := make([]string, len(machineSources))
	for i, s := range machineSources {
		out[i] = s.name
	}
	return out
}

// hardwareOf is what the CPU presents that stays with the machine: its model
// name, family/model/stepping (the model name may be a hypervisor's generic
// one) and the size of its last-level cache in bytes (sysfs).
func hardwareOf(cpu cpuInfo, l3 string) string {
	out := cpu.model
	if cpu.family != "" || cpu.number != "" || cpu.stepping != "" {
		out += fmt.Sprintf("; family %s model %s stepping %s", cpu.family, cpu.number, cpu.stepping)
	}
	return out + "; l3 " + l3
}

// machineOn is Machine on this system, env the caller's VMPARITY_MACHINE ("" for its own).
func machineOn(env string, cpu cpuInfo) (string, string) {
	return Machine(env, readTrim, hardwareOf(cpu, sysfsCache("3", "Unified")), cpu.microcode)
}

// probeMachine is Machine on this system, as its targets are told it.
func probeMachine(cpu cpuInfo) (string, string) {
	return machineOn(os.Getenv(MachineEnv), cpu)
}

// ProbeMachine is this machine's own identity (VMPARITY_MACHINE ignored: it
// is what the lab reads on a host to pass to that host's targets).
func ProbeMachine() (string, string) {
	return machineOn("", probeCPU())
}
