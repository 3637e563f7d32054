package envprobe

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Mount is one cgroup line of /proc/self/mountinfo.
type Mount struct {
	Root, Point, FSType string
	Options             []string // super options: v1 controllers live here
}

// ParseMountinfo returns the cgroup and cgroup2 mounts.
func ParseMountinfo(text string) []Mount {
	var ms []Mount
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		if !ok {
			continue
		}
		a, b := strings.Fields(pre), strings.Fields(post)
		if len(a) < 5 || len(b) < 3 || (b[0] != "cgroup" && b[0] != "cgroup2") {
			continue
		}
		ms = append(ms, Mount{Root: a[3], Point: a[4], FSType: b[0], Options: strings.Split(b[2], ",")})
	}
	return ms
}

// CgroupLine is one line of /proc/self/cgroup: "4:cpu,cpuacct:/docker/ab12".
type CgroupLine struct {
	Controllers []string // empty for the v2 line "0::/path"
	Path        string
}

func ParseProcCgroup(text string) []CgroupLine {
	var ls []CgroupLine
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		var ctl []string
		if parts[1] != "" {
			ctl = strings.Split(parts[1], ",")
		}
		ls = append(ls, CgroupLine{Controllers: ctl, Path: parts[2]})
	}
	return ls
}

func has(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// CgroupVersion: "v2" (unified), "hybrid" (v1 controllers + v2 tree),
// "v1", from the mounts.
func CgroupVersion(ms []Mount) string {
	v1, v2 := false, false
	for _, m := range ms {
		if m.FSType == "cgroup2" {
			v2 = true
		} else {
			v1 = true
		}
	}
	switch {
	case v1 && v2:
		return "hybrid"
	case v2:
		return "v2"
	case v1:
		return "v1"
	}
	return Unknown("no cgroup filesystem in /proc/self/mountinfo")
}

// cgroupDir maps the process's cgroup path onto the mount: inside a
// container the mount root is the container's own cgroup.
func cgroupDir(m Mount, path string) string {
	rel := path
	if m.Root != "/" {
		rel = strings.TrimPrefix(path, m.Root)
	}
	return filepath.Join(m.Point, rel)
}

// controllerDir finds the directory of a controller for this process:
// v1 mount carrying the controller, else the v2 mount.
func controllerDir(ms []Mount, cg []CgroupLine, controller string) (string, Mount, bool) {
	for _, m := range ms {
		if m.FSType == "cgroup" && has(m.Options, controller) {
			for _, l := range cg {
				if has(l.Controllers, controller) {
					return cgroupDir(m, l.Path), m, true
				}
			}
		}
	}
	for _, m := range ms {
		if m.FSType == "cgroup2" {
			for _, l := range cg {
				if len(l.Controllers) == 0 {
					return cgroupDir(m, l.Path), m, true
				}
			}
		}
	}
	return "", Mount{}, false
}

// ParseCPUMax reads v2 cpu.max ("max 100000" or "200000 100000") as CPUs.
func ParseCPUMax(s string) (cpus float64, limited bool, err error) {
	f := strings.Fields(s)
	if len(f) != 2 {
		return 0, false, fmt.Errorf("cpu.max %q: expected \"<quota|max> <period>\"", s)
	}
	if f[0] == "max" {
		return 0, false, nil
	}
	return ratio(f[0], f[1])
}

// ParseCFS reads v1 cpu.cfs_quota_us / cpu.cfs_period_us (-1 = unlimited).
func ParseCFS(quota, period string) (cpus float64, limited bool, err error) {
	if strings.TrimSpace(quota) == "-1" {
		return 0, false, nil
	}
	return ratio(quota, period)
}

func ratio(q, p string) (float64, bool, error) {
	qn, err1 := strconv.ParseFloat(strings.TrimSpace(q), 64)
	pn, err2 := strconv.ParseFloat(strings.TrimSpace(p), 64)
	if err1 != nil || err2 != nil || pn <= 0 || qn <= 0 {
		return 0, false, fmt.Errorf("bad quota %q / period %q", q, p)
	}
	return qn / pn, true, nil
}

// FormatQuota prints the tightest quota as CPUs ("1.5"), or "none"; compare
// it with cpus-visible for the seed-004 trap (GOMAXPROCS follows visible CPUs).
func FormatQuota(cpus float64, limited bool) string {
	if !limited {
		return "none"
	}
	return strconv.FormatFloat(cpus, 'f', -1, 64)
}

type cgroupInfo struct{ version, quota, cpuset string }

func probeCgroup() cgroupInfo {
	mi, err1 := os.ReadFile("/proc/self/mountinfo")
	pc, err2 := os.ReadFile("/proc/self/cgroup")
	if err := firstErr(err1, err2); err != nil {
		u := Unknown("%v", err)
		return cgroupInfo{u, u, u}
	}
	ms, cg := ParseMountinfo(string(mi)), ParseProcCgroup(string(pc))
	info := cgroupInfo{version: CgroupVersion(ms)}
	info.quota = cpuQuota(ms, cg)
	info.cpuset = cpuset(ms, cg)
	return info
}

// cpuQuota walks from the process's cgroup up to the mount point: a parent's
// limit applies too, so the smallest one wins.
func cpuQuota(ms []Mount, cg []CgroupLine) string {
	dir, m, ok := controllerDir(ms, cg, "cpu")
	if !ok {
		return Unknown("no cpu controller mounted")
	}
	best, limited, readAny := 0.0, false, false
	for d := dir; ; d = filepath.Dir(d) {
		var c float64
		var lim bool
		var err error
		if m.FSType == "cgroup2" {
			var s string
			if s, err = readTrim(d + "/cpu.max"); err == nil {
				c, lim, err = ParseCPUMax(s)
				readAny = true
			} else if os.IsNotExist(err) {
				err = nil // the root cgroup has no cpu.max
			}
		} else {
			q, e1 := readTrim(d + "/cpu.cfs_quota_us")
			p, e2 := readTrim(d + "/cpu.cfs_period_us")
			if err = firstErr(e1, e2); err == nil {
				c, lim, err = ParseCFS(q, p)
				readAny = true
			}
		}
		if err != nil {
			return Unknown("%s: %v", d, err)
		}
		if lim && (!limited || c < best) {
			best, limited = c, true
		}
		if d == m.Point || d == "/" {
			break
		}
	}
	if !readAny {
		if m.FSType == "cgroup2" {
			return "none"
		}
		return Unknown("no cpu.cfs_quota_us under %s", dir)
	}
	return FormatQuota(best, limited)
}

func cpuset(ms []Mount, cg []CgroupLine) string {
	dir, m, ok := controllerDir(ms, cg, "cpuset")
	if !ok {
		return Unknown("no cpuset controller mounted")
	}
	names := []string{"cpuset.effective_cpus", "cpuset.cpus"}
	if m.FSType == "cgroup2" {
		names = []string{"cpuset.cpus.effective"}
	}
	for d := dir; ; d = filepath.Dir(d) {
		for _, n := range names {
			if s, err := readTrim(filepath.Join(d, n)); err == nil && s != "" {
				return s
			}
		}
		if d == m.Point || d == "/" {
			break
		}
	}
	return Unknown("no %s under %s", strings.Join(names, " or "), dir)
}
