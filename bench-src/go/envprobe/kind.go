package envprobe

import (
	"fmt"
	"os"
	"strings"
)

// Kinds are the target kinds of docs/formats.md.
var Kinds = []string{"metal", "kvm-guest", "tcg-guest", "container"}

// KindEvidence is what the target-kind decision is based on; gathered by
// gatherKindEvidence, decided by the pure TargetKind (unit-tested).
type KindEvidence struct {
	Override      string   // VMPARITY_TARGET_KIND, "" when unset
	Container     []string // every container marker found
	HaveCPUID     bool
	HypervisorBit bool
	HypervisorSig string // leaf 0x40000000 signature
	DMI           string // "sys_vendor=… product_name=…" or ""
}

// TargetKind decides metal / kvm-guest / tcg-guest / container and says why.
// A container is reported as such even inside a VM (the container is the
// target); the VM evidence is kept in the explanation.
func TargetKind(e KindEvidence) (kind, evidence string) {
	kind, evidence = detectKind(e)
	if e.Override == "" {
		return kind, evidence
	}
	for _, k := range Kinds {
		if e.Override == k {
			return k, fmt.Sprintf("VMPARITY_TARGET_KIND=%s overrides detection (detected %s: %s)", k, kind, evidence)
		}
	}
	return Unknown("VMPARITY_TARGET_KIND=%q is not one of %s", e.Override, strings.Join(Kinds, ", ")), evidence
}

func detectKind(e KindEvidence) (string, string) {
	var vm string
	switch {
	case !e.HaveCPUID:
		vm = "no CPUID on this architecture"
	case e.HypervisorBit:
		vm = fmt.Sprintf("cpuid hypervisor bit set, leaf 0x40000000 signature %q", e.HypervisorSig)
	default:
		vm = "cpuid hypervisor bit clear"
	}
	if e.DMI != "" {
		vm += "; DMI " + e.DMI
	}
	if len(e.Container) > 0 {
		return "container", strings.Join(e.Container, "; ") + "; host: " + vm
	}
	if e.HypervisorBit {
		switch e.HypervisorSig {
		case "KVMKVMKVM":
			return "kvm-guest", vm
		case "TCGTCGTCGTCG":
			return "tcg-guest", vm
		}
		// QEMU firmware with a hypervisor that does not sign as KVM is QEMU
		// emulating (older QEMU leaves leaf 0x40000000 empty under TCG).
		if strings.Contains(e.DMI, "QEMU") {
			return "tcg-guest", vm + "; QEMU firmware without the KVM signature means emulation"
		}
		return Unknown("hypervisor %q is neither KVM nor QEMU TCG", e.HypervisorSig), vm
	}
	// QEMU without KVM may hide the hypervisor bit; the firmware still says
	// QEMU, and without KVM it can only be emulation.
	if strings.Contains(e.DMI, "QEMU") {
		return "tcg-guest", vm + "; QEMU firmware without a hypervisor bit means emulation"
	}
	if !e.HaveCPUID {
		return Unknown("no CPUID and no container markers: cannot tell metal from a guest"), vm
	}
	return "metal", vm
}

// containerMarkers are files a container runtime leaves behind, and cgroup
// path fragments of container runtimes.
var containerFiles = []string{"/.dockerenv", "/run/.containerenv"}
var containerCgroupWords = []string{"docker", "containerd", "kubepods", "libpod", "lxc", "crio"}

func gatherKindEvidence(cpu cpuInfo) KindEvidence {
	e := KindEvidence{
		Override:      os.Getenv("VMPARITY_TARGET_KIND"),
		HaveCPUID:     haveCPUID,
		HypervisorBit: cpu.hvBit,
		HypervisorSig: cpu.hvSignature,
	}
	for _, f := range containerFiles {
		if _, err := os.Stat(f); err == nil {
			e.Container = append(e.Container, f+" exists")
		}
	}
	if b, err := os.ReadFile("/proc/1/cgroup"); err == nil {
		for _, w := range containerCgroupWords {
			if strings.Contains(string(b), w) {
				e.Container = append(e.Container, "/proc/1/cgroup mentions "+w)
				break
			}
		}
	}
	if v := os.Getenv("container"); v != "" { // set by systemd-nspawn, podman, lxc
		e.Container = append(e.Container, "env container="+v)
	}
	var dmi []string
	for _, f := range []string{"sys_vendor", "product_name"} {
		if s, err := readTrim("/sys/class/dmi/id/" + f); err == nil && s != "" {
			dmi = append(dmi, f+"="+oneLine(s))
		}
	}
	e.DMI = strings.Join(dmi, " ")
	return e
}
