package envprobe

import (
	"maps"
	"os/exec"
	"strings"
	"testing"
)

func TestParseGetconfAll(t *testing.T) {
	all := parseGetconfAll("GNU_LIBC_VERSION                   glibc 2.36\nLEVEL1_DCACHE_SIZE                 49152\n" +
		"LEVEL4_CACHE_SIZE                  \nPOSIX2_SYMLINKS\n")
	want := map[string]string{"GNU_LIBC_VERSION": "glibc 2.36", "LEVEL1_DCACHE_SIZE": "49152",
		"LEVEL4_CACHE_SIZE": "", "POSIX2_SYMLINKS": ""}
	if !maps.Equal(all, want) {
		t.Fatalf("got %v, want %v", all, want)
	}
}

// TestGetconfAgreesWithOneNameAtATime: the names read from `getconf -a` are what `getconf NAME` prints.
func TestGetconfAgreesWithOneNameAtATime(t *testing.T) {
	for _, name := range []string{"GNU_LIBC_VERSION", "LEVEL1_DCACHE_SIZE", "LEVEL3_CACHE_SIZE"} {
		one, err := exec.Command("getconf", name).Output()
		if err != nil {
			t.Skipf("getconf %s: %v", name, err)
		}
		if got, err := getconf(name); err != nil || got != strings.TrimSpace(string(one)) {
			t.Fatalf("getconf(%s) = %q, %v; getconf %s prints %q", name, got, err, name, one)
		}
	}
}
