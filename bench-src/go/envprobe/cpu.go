package envprobe

import (
	"bufio"
	"encoding/binary"
	"os"
	"strings"
)

// flagKeys are the /proc/cpuinfo flags that explain the seeds' differences
// (SMT topology, topoext, hypervisor, invariant TSC, nested virt), each also
// reported as its own yes/no key.
var flagKeys = []struct{ key, flag string }{
	{"ht", "ht"}, {"topoext", "topoext"}, {"hypervisor", "hypervisor"},
	{"constant-tsc", "constant_tsc"}, {"nonstop-tsc", "nonstop_tsc"},
	{"vmx", "vmx"}, {"svm", "svm"},
}

// extraFlags are listed in cpu-flags when present (copy strategies, TSC).
var extraFlags = []string{"tsc", "rdtscp", "tsc_known_freq", "erms", "fsrm", "avx2", "avx512f"}

type cpuInfo struct {
	model, vendor            string
	microcode                string // the first processor's microcode revision, "" when not shown
	family, number, stepping string // the first processor's "cpu family", "model" and "stepping", "" when not shown
	flags                    map[string]bool
	flagsErr                 string // reason when flags could not be read
	hvBit                    bool   // CPUID.1:ECX bit 31
	hvSignature              string
}

func (c cpuInfo) flag(name string) string {
	if c.flags == nil {
		return Unknown("%s", c.flagsErr)
	}
	return yesNo(c.flags[name])
}

func (c cpuInfo) selectedFlags() string {
	if c.flags == nil {
		return Unknown("%s", c.flagsErr)
	}
	var out []string
	for _, f := range flagKeys {
		if c.flags[f.flag] {
			out = append(out, f.flag)
		}
	}
	for _, f := range extraFlags {
		if c.flags[f] {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, " ")
}

func probeCPU() cpuInfo {
	c := cpuInfo{model: Unknown("no model name in /proc/cpuinfo"), vendor: Unknown("no vendor_id in /proc/cpuinfo")}
	if f, err := os.Open("/proc/cpuinfo"); err != nil {
		c.flagsErr = err.Error()
		c.model, c.vendor = Unknown("%v", err), Unknown("%v", err)
	} else {
		parseCPUInfo(f, &c)
		f.Close()
	}
	c.hvSignature = Unknown("no CPUID instruction on this architecture")
	if haveCPUID {
		_, _, ecx, _ := cpuid(1, 0)
		c.hvBit = ecx&(1<<31) != 0
		if !c.hvBit {
			c.hvSignature = "none (cpuid hypervisor bit clear)"
		} else {
			c.hvSignature = hypervisorSignature()
		}
	}
	return c
}

// parseCPUInfo takes the first processor's model, vendor and flags.
func parseCPUInfo(f *os.File, c *cpuInfo) {
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		switch k {
		case "model name":
			if strings.HasPrefix(c.model, "unknown") {
				c.model = oneLine(v)
			}
		case "microcode":
			if c.microcode == "" {
				c.microcode = v
			}
		case "cpu family":
			if c.family == "" {
				c.family = v
			}
		case "model":
			if c.number == "" {
				c.number = v
			}
		case "stepping":
			if c.stepping == "" {
				c.stepping = v
			}
		case "vendor_id":
			if strings.HasPrefix(c.vendor, "unknown") {
				c.vendor = v
			}
		case "flags":
			if c.flags == nil {
				c.flags = map[string]bool{}
				for _, fl := range strings.Fields(v) {
					c.flags[fl] = true
				}
			}
		}
	}
	if c.flags == nil {
		c.flagsErr = "no flags line in /proc/cpuinfo"
	}
}

// kvmClockStableBit says whether KVM offers kvm-clock's stable bit
// (KVM_FEATURE_CLOCKSOURCE_STABLE_BIT, CPUID 0x40000001 EAX bit 24). Without it
// the guest kernel never marks kvm-clock stable, and its vDSO cannot read the
// clock: clock_gettime becomes a system call (seed 004's "unstable kvm-clock").
// With it, the vDSO still needs the host's TSC to be stable (the per-vCPU
// PVCLOCK_TSC_STABLE_BIT, which userspace cannot read): the clock benchmark's
// clock-verdict-* keys are what was measured.
func kvmClockStableBit(sig string) string {
	if !haveCPUID {
		return Unknown("no CPUID instruction on this architecture")
	}
	if sig != "KVMKVMKVM" {
		return "n/a (not a KVM guest)"
	}
	eax, _, _, _ := cpuid(0x40000001, 0)
	return yesNo(eax&(1<<24) != 0)
}

// hypervisorSignature reads the 12-byte vendor signature at CPUID leaf
// 0x40000000 ("KVMKVMKVM\0\0\0", "TCGTCGTCGTCG", "Microsoft Hv", ...).
func hypervisorSignature() string {
	_, ebx, ecx, edx := cpuid(0x40000000, 0)
	var b [12]byte
	binary.LittleEndian.PutUint32(b[0:], ebx)
	binary.LittleEndian.PutUint32(b[4:], ecx)
	binary.LittleEndian.PutUint32(b[8:], edx)
	sig := strings.TrimRight(string(b[:]), "\x00")
	if sig == "" || strings.ContainsFunc(sig, func(r rune) bool { return r < 0x20 || r > 0x7e }) {
		return Unknown("hypervisor bit set but leaf 0x40000000 has no printable signature")
	}
	return sig
}
