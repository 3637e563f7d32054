package envprobe

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// oemStructure builds an SMBIOS type 11 structure as the kernel exposes it.
func oemStructure(strs ...string) []byte {
	b := []byte{11, 5, 0x00, 0x0b, byte(len(strs))}
	for _, s := range strs {
		b = append(b, s...)
		b = append(b, 0)
	}
	return append(b, 0)
}

func TestDomainFactReadsTheLabsOEMString(t *testing.T) {
	dir := t.TempDir()
	write := func(entry string, raw []byte) {
		if err := os.MkdirAll(filepath.Join(dir, entry), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, entry, "raw"), raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got := domainFact(dir, "cpu-mode"); !strings.HasPrefix(got, "n/a") {
		t.Fatalf("no entries: %q", got)
	}
	// another hypervisor's OEM strings, and a structure of another type, are not the lab's
	write("11-0", oemStructure("Dell System", "5[0000]"))
	write("11-1", append([]byte{1}, oemStructure("vmparity:cpu-mode=host-model")[1:]...))
	if got := domainFact(dir, "cpu-mode"); !strings.HasPrefix(got, "n/a") {
		t.Fatalf("foreign strings: %q", got)
	}
	write("11-2", oemStructure("io.systemd.credential:x=y", "vmparity:variant=nosmt", "vmparity:cpu-mode=host-passthrough"))
	if got := domainFact(dir, "cpu-mode"); got != "host-passthrough" {
		t.Fatalf("got %q, want host-passthrough", got)
	}
}

func TestOEMStringsRefusesATruncatedStructure(t *testing.T) {
	for _, raw := range [][]byte{nil, {11}, {11, 200, 0, 0, 1, 'a', 0}, {11, 2, 0, 0, 1}} {
		if got := oemStrings(raw); got != nil {
			t.Errorf("%v: got %q", raw, got)
		}
	}
	if got := oemStrings(oemStructure("a", "b")); strings.Join(got, ",") != "a,b" {
		t.Errorf("got %q", got)
	}
}
