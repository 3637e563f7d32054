package envprobe

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

var cacheLevels = []struct {
	key     string
	level   string
	kind    string // sysfs "type": Data or Unified
	getconf string
}{
	{"l1d-cache", "1", "Data", "LEVEL1_DCACHE_SIZE"},
	{"l2-cache", "2", "Unified", "LEVEL2_CACHE_SIZE"},
	{"l3-cache", "3", "Unified", "LEVEL3_CACHE_SIZE"},
}

// parseCacheSize reads sysfs sizes like "32K", "1024K", "32M" as bytes.
func parseCacheSize(s string) (int64, error) {
	mult := int64(1)
	switch {
	case strings.HasSuffix(s, "K"):
		mult, s = 1<<10, strings.TrimSuffix(s, "K")
	case strings.HasSuffix(s, "M"):
		mult, s = 1<<20, strings.TrimSuffix(s, "M")
	case strings.HasSuffix(s, "G"):
		mult, s = 1<<30, strings.TrimSuffix(s, "G")
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("bad cache size %q", s)
	}
	return n * mult, nil
}

// sysfsCache is cpu0's cache of the level and type, in bytes.
func sysfsCache(level, kind string) string {
	dirs, err := filepath.Glob(cpuSysfs + "/cpu0/cache/index*")
	if err != nil || len(dirs) == 0 {
		return Unknown("no %s/cpu0/cache/index* in sysfs", cpuSysfs)
	}
	for _, d := range dirs {
		l, _ := readTrim(d + "/level")
		t, _ := readTrim(d + "/type")
		if l != level || t != kind {
			continue
		}
		s, err := readTrim(d + "/size")
		if err != nil {
			return Unknown("%v", err)
		}
		n, err := parseCacheSize(s)
		if err != nil {
			return Unknown("%s/size: %v", d, err)
		}
		return strconv.FormatInt(n, 10)
	}
	return Unknown("no level %s %s cache in sysfs", level, kind)
}

// getconfCache asks glibc (via getconf) what it thinks the cache size is:
// glibc derives it from CPUID, which is what its thresholds are built from.
func getconfCache(name string) string {
	v, err := getconf(name)
	if err != nil {
		return Unknown("getconf %s: %v", name, err)
	}
	if v == "" || v == "0" || v == "undefined" {
		return Unknown("getconf %s reports %q", name, v)
	}
	return v
}
