package envprobe

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
)

// loaders are where the dynamic loader lives on the targets we support; the
// loader, not libc, prints the thresholds glibc computed at startup.
var loaders = []string{
	"/lib64/ld-linux-x86-64.so.2",
	"/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",
	"/lib/ld-linux-aarch64.so.1",
}

// Thresholds are glibc's string-function tuning values as glibc printed them
// (hex), or Unknown(...) when not available.
type Thresholds struct {
	NonTemporal, RepMovsb, RepStosb, SharedCache string
}

func unknownThresholds(reason string) Thresholds {
	u := Unknown("%s", reason)
	return Thresholds{u, u, u, u}
}

// diagnosticsKeys map `ld.so --list-diagnostics` (glibc ≥ 2.34) lines to fields.
var diagnosticsKeys = map[string]func(*Thresholds) *string{
	"x86.cpu_features.non_temporal_threshold": func(t *Thresholds) *string { return &t.NonTemporal },
	"x86.cpu_features.rep_movsb_threshold":    func(t *Thresholds) *string { return &t.RepMovsb },
	"x86.cpu_features.rep_stosb_threshold":    func(t *Thresholds) *string { return &t.RepStosb },
	"x86.cpu_features.shared_cache_size":      func(t *Thresholds) *string { return &t.SharedCache },
}

// tunableKeys map `ld.so --list-tunables` (glibc ≥ 2.33) lines to fields;
// the value printed is the one in effect after glibc's own computation.
var tunableKeys = map[string]func(*Thresholds) *string{
	"glibc.cpu.x86_non_temporal_threshold": func(t *Thresholds) *string { return &t.NonTemporal },
	"glibc.cpu.x86_rep_movsb_threshold":    func(t *Thresholds) *string { return &t.RepMovsb },
	"glibc.cpu.x86_rep_stosb_threshold":    func(t *Thresholds) *string { return &t.RepStosb },
	"glibc.cpu.x86_shared_cache_size":      func(t *Thresholds) *string { return &t.SharedCache },
}

var hexValue = regexp.MustCompile(`^0x[0-9a-f]+$`)

// ParseDiagnostics extracts the thresholds from `ld.so --list-diagnostics`
// text ("x86.cpu_features.non_temporal_threshold=0xc000000"). ok is false
// when the text has none of them (an older glibc printing an error, or a
// non-x86 machine); fields it lacks are Unknown.
func ParseDiagnostics(text string) (Thresholds, bool) {
	return parseKV(text, diagnosticsKeys, "=", "ld.so --list-diagnostics")
}

// ParseTunables does the same for `ld.so --list-tunables` text
// ("glibc.cpu.x86_non_temporal_threshold: 0xc000000 (min: 0x4040, max: …)").
func ParseTunables(text string) (Thresholds, bool) {
	return parseKV(text, tunableKeys, ":", "ld.so --list-tunables")
}

func parseKV(text string, keys map[string]func(*Thresholds) *string, sep, source string) (Thresholds, bool) {
	t := unknownThresholds("not printed by " + source)
	found := false
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), sep)
		if !ok {
			continue
		}
		field, ok := keys[strings.TrimSpace(k)]
		if !ok {
			continue
		}
		fields := strings.Fields(v)
		if len(fields) == 0 {
			continue // e.g. "glibc.cpu.x86_shstk:" has no value
		}
		v = fields[0]
		if !hexValue.MatchString(v) {
			*field(&t) = Unknown("%s printed %q for %s", source, v, k)
			continue
		}
		*field(&t) = v
		found = true
	}
	return t, found
}

// ParseGlibcVersion accepts "glibc 2.36" (getconf GNU_LIBC_VERSION) or the
// loader's "... stable release version 2.36." banner.
func ParseGlibcVersion(s string) (major, minor int, ok bool) {
	m := regexp.MustCompile(`(?:glibc |version )(\d+)\.(\d+)`).FindStringSubmatch(s)
	if m == nil {
		return 0, 0, false
	}
	major, _ = strconv.Atoi(m[1])
	minor, _ = strconv.Atoi(m[2])
	return major, minor, true
}

// LoaderRunner runs the loader with one option and returns its output.
type LoaderRunner func(option string) (string, error)

// SelectThresholds applies the version rule: --list-diagnostics from 2.34,
// --list-tunables from 2.33, otherwise (or when the chosen option printed
// nothing useful) the thresholds are unknown with the reason.
func SelectThresholds(major, minor int, versionKnown bool, run LoaderRunner) (source string, t Thresholds) {
	atLeast := func(mi int) bool { return !versionKnown || major > 2 || (major == 2 && minor >= mi) }
	var reasons []string
	if atLeast(34) {
		out, err := run("--list-diagnostics")
		if th, ok := ParseDiagnostics(out); ok {
			return "ld.so --list-diagnostics", th
		}
		reasons = append(reasons, fmt.Sprintf("--list-diagnostics gave no x86 thresholds (%v)", errOrNone(err)))
	}
	if atLeast(33) {
		out, err := run("--list-tunables")
		if th, ok := ParseTunables(out); ok {
			return "ld.so --list-tunables", th
		}
		reasons = append(reasons, fmt.Sprintf("--list-tunables gave no x86 thresholds (%v)", errOrNone(err)))
	}
	if versionKnown && !atLeast(33) {
		reasons = append(reasons, fmt.Sprintf("glibc %d.%d predates --list-tunables (2.33) and --list-diagnostics (2.34)", major, minor))
	}
	reason := strings.Join(reasons, "; ")
	return Unknown("%s", reason), unknownThresholds(reason)
}

func errOrNone(err error) string {
	if err == nil {
		return "exit 0"
	}
	return err.Error()
}

type glibcInfo struct {
	version, source string
	th              Thresholds
}

func findLoader() (string, error) {
	for _, l := range loaders {
		if fi, err := os.Stat(l); err == nil && !fi.IsDir() {
			return l, nil
		}
	}
	return "", fmt.Errorf("no dynamic loader at %s", strings.Join(loaders, ", "))
}

func probeGlibc() glibcInfo {
	g := glibcInfo{}
	loader, lerr := findLoader()
	vtext := ""
	if out, err := getconf("GNU_LIBC_VERSION"); err == nil {
		vtext = out
	} else if lerr == nil {
		out, _ := exec.Command(loader, "--version").Output()
		vtext = string(out)
	}
	major, minor, ok := ParseGlibcVersion(vtext)
	if ok {
		g.version = fmt.Sprintf("%d.%d", major, minor)
	} else if lerr != nil {
		g.version = Unknown("no getconf GNU_LIBC_VERSION and %v (static or non-glibc system)", lerr)
	} else {
		g.version = Unknown("neither getconf GNU_LIBC_VERSION nor %s --version printed a version", loader)
	}
	if lerr != nil {
		g.source = Unknown("%v", lerr)
		g.th = unknownThresholds(lerr.Error())
		return g
	}
	// The loader inherits our environment, so GLIBC_TUNABLES given to the
	// benchmarks is reflected in the thresholds it prints.
	g.source, g.th = SelectThresholds(major, minor, ok, func(opt string) (string, error) {
		out, err := exec.Command(loader, opt).CombinedOutput()
		return string(out), err
	})
	return g
}
