package benchrun

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Program is one benchmark binary in the bench directory.
type Program struct {
	Name     string
	Core     bool // a missing core program is an error; optional ones are skipped
	Tunables bool // run once per memcpy tunables variant
	// Parallel: the program measures how it scales over the CPUs it sees
	// (snowflake's GOMAXPROCS sweep), so --pin-serial leaves it every CPU.
	Parallel bool
	// Shares: the program takes --share N (1/N of its time) and its rows'
	// first value is a time, lower better, so that --parts can keep each
	// row's fastest part.
	Shares bool
	// Sized: the program measures copy sizes and takes --min-size BYTES
	// (benchrun --memcpy-min-size), so that the lab's rounds added for the
	// large copies do not run the small ones again.
	Sized bool
}

// Programs in run order. The optional ones run when their binaries are
// present (a build without them still gives the core suite).
var Programs = []Program{
	{Name: "memcpy-static", Core: true, Tunables: true, Shares: true, Sized: true},
	{Name: "memcpy-dynamic", Core: true, Tunables: true, Shares: true, Sized: true},
	{Name: "clock", Core: true, Shares: true},
	{Name: "snowflake", Core: true, Parallel: true},
	{Name: "storefwd", Shares: true},
	{Name: "fence", Shares: true},
	{Name: "align", Shares: true},
}

// SharingNames are the programs that take --share, the two memcpy programs
// under one name ("memcpy"), in run order: the names benchrun's --share
// PROG=N takes.
func SharingNames() []string {
	var names []string
	for _, p := range Programs {
		if name := ProgramName(p.Name); p.Shares && !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	return names
}

// ProgramName is a program's or job's name before its first '-' or '/'
// ("memcpy" of memcpy-static/tunable=min).
func ProgramName(name string) string {
	name, _, _ = strings.Cut(name, "/")
	name, _, _ = strings.Cut(name, "-")
	return name
}

// SharingPrograms names the programs that take --share, for the help text
// and the header, as a list in words ("memcpy, clock and fence").
func SharingPrograms() string {
	return InWords(SharingNames())
}

// InWords is "a, b and c".
func InWords(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// Variant is one GLIBC_TUNABLES setting for memcpy.
type Variant struct {
	Name     string
	Tunables string // "" with Inherit: the environment's own value
	Inherit  bool
	Skip     string // non-empty: why this variant cannot run here
	Want     uint64 // the threshold Tunables asks for (0: none)
	Applied  string // the threshold glibc applies under Tunables (VerifyVariants)
}

const ntTunable = "glibc.cpu.x86_non_temporal_threshold"

// Variants builds default / l3-3q / min. l3-3q is the seed's community fix
// (¾ of L3); min is the smallest threshold glibc accepts (SmallestAccepted),
// so that its rows really use non-temporal stores. l3Bytes <= 0 or
// minValue == 0 mean the value is unknown, and the variant is skipped with
// the reason rather than guessed.
func Variants(envTunables string, haveEnv bool, l3Bytes int64, l3Reason string, minValue uint64, minReason string) []Variant {
	def := Variant{Name: "default", Inherit: true, Tunables: envTunables}
	if !haveEnv {
		def.Tunables = "none"
	}
	l3 := Variant{Name: "l3-3q"}
	if l3Bytes > 0 {
		l3.Want = uint64(l3Bytes * 3 / 4)
		l3.Tunables = fmt.Sprintf("%s=%#x", ntTunable, l3.Want)
	} else {
		l3.Skip = "L3 size unknown: " + l3Reason
	}
	min := Variant{Name: "min", Want: minValue}
	if minValue > 0 {
		min.Tunables = fmt.Sprintf("%s=%#x", ntTunable, minValue)
	} else {
		min.Skip = "glibc's smallest accepted threshold unknown: " + minReason
	}
	return []Variant{def, l3, min}
}

// L3Bytes picks the L3 size from the fingerprint: sysfs first, then what
// glibc's getconf reports, then glibc's own shared cache size.
func L3Bytes(fp map[string]string) (int64, string) {
	var reasons []string
	for _, k := range []string{"l3-cache", "getconf-l3-cache", "shared-cache-size"} {
		v := fp[k]
		n, err := strconv.ParseInt(v, 0, 64)
		if err == nil && n > 0 {
			return n, ""
		}
		reasons = append(reasons, k+"="+v)
	}
	return 0, strings.Join(reasons, ", ")
}

// ErrNothingSelected: --only matched no job, a usage error (exit 2).
var ErrNothingSelected = errors.New("no benchmark selected (check --only)")

// Job is one program invocation per repetition.
type Job struct {
	Name    string // "memcpy-static/tunable=l3-3q", "clock"
	Path    string
	Variant *Variant
	// Parallel: the program's Parallel; --pin-serial does not pin it
	Parallel bool
	// Shares: the program's Shares; --parts runs it once per part
	Shares bool
	// Sized: the program's Sized; --memcpy-min-size reaches it as --min-size
	Sized bool
}

// Env is the child's environment: ours, with GLIBC_TUNABLES and the variant
// name set for memcpy variants other than default.
func (j Job) Env(base []string) []string {
	if j.Variant == nil {
		return base
	}
	env := make([]string, 0, len(base)+2)
	for _, e := range base {
		if strings.HasPrefix(e, "VMPARITY_TUNABLE_VARIANT=") || (!j.Variant.Inherit && strings.HasPrefix(e, "GLIBC_TUNABLES=")) {
			continue
		}
		env = append(env, e)
	}
	env = append(env, "VMPARITY_TUNABLE_VARIANT="+j.Variant.Name)
	if !j.Variant.Inherit {
		env = append(env, "GLIBC_TUNABLES="+j.Variant.Tunables)
	}
	return env
}

// PlanJobs lists the jobs of one repetition; it fails naming a missing core
// program, and notes skipped optional programs and variants on the way.
func PlanJobs(dir string, variants []Variant, only func(string) bool, note func(string)) ([]Job, error) {
	var jobs []Job
	for _, p := range Programs {
		path := filepath.Join(dir, p.Name)
		var names []Job
		if p.Tunables {
			for i := range variants {
				v := &variants[i]
				name := p.Name + "/tunable=" + v.Name
				if !only(name) {
					continue
				}
				if v.Skip != "" {
					note(fmt.Sprintf("skipping %s: %s", name, v.Skip))
					continue
				}
				names = append(names, Job{Name: name, Path: path, Variant: v, Shares: p.Shares, Sized: p.Sized})
			}
		} else if only(p.Name) {
			names = append(names, Job{Name: p.Name, Path: path, Parallel: p.Parallel, Shares: p.Shares, Sized: p.Sized})
		}
		if len(names) == 0 {
			continue
		}
		fi, err := os.Stat(path)
		switch {
		case err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0:
			jobs = append(jobs, names...)
		case p.Core:
			return nil, fmt.Errorf("core benchmark %s: %s is missing or not an executable file (run `make bench`)", p.Name, path)
		default:
			note(fmt.Sprintf("optional benchmark %s not built (%s absent): skipped", p.Name, path))
		}
	}
	if len(jobs) == 0 {
		return nil, fmt.Errorf("%w in %s", ErrNothingSelected, dir)
	}
	return jobs, nil
}
