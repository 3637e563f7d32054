package envprobe

import (
	"os"
	"path/filepath"
	"strings"
)

// The lab's libvirt domains (vm-templates/domain.xml.j2) say how they were
// configured in SMBIOS OEM strings (type 11), one "vmparity:<key>=<value>"
// entry each, the channel libvirt offers for host-to-guest facts (systemd
// passes its credentials the same way). From inside, a guest cannot tell
// host-passthrough from a named CPU model: both show some model name, and
// only the host knows which it asked for.
const (
	oemEntries = "/sys/firmware/dmi/entries"
	oemPrefix  = "vmparity:"
)

// domainCPUMode is the <cpu mode> of the lab domain this guest runs in.
func domainCPUMode() string {
	return domainFact(oemEntries, "cpu-mode")
}

// domainFact reads "vmparity:<key>=<value>" from the OEM strings under dir.
// Not a lab domain (metal, a container: Docker masks /sys/firmware, another
// hypervisor's guest) says so instead of guessing.
func domainFact(dir, key string) string {
	raws, _ := filepath.Glob(filepath.Join(dir, "11-*", "raw"))
	for _, path := range raws {
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		for _, s := range oemStrings(b) {
			if v, ok := strings.CutPrefix(s, oemPrefix+key+"="); ok {
				return oneLine(v)
			}
		}
	}
	return "n/a (not a lab domain: no " + oemPrefix + key + " OEM string)"
}

// oemStrings parses one SMBIOS type 11 structure: a formatted area of
// raw[1] bytes (type, length, handle, string count) followed by the
// NUL-terminated strings, the set ending in an empty one.
func oemStrings(raw []byte) []string {
	if len(raw) < 5 || raw[0] != 11 || int(raw[1]) < 5 || int(raw[1]) > len(raw) {
		return nil
	}
	var out []string
	for _, s := range strings.Split(string(raw[raw[1]:]), "\x00") {
		if s == "" {
			break
		}
		out = append(out, s)
	}
	return out
}
