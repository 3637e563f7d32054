// Package benchrun runs the whole benchmark suite on one target and writes
// one results file (docs/formats.md "Result file"). Main takes its writers
// and arguments so the CLI is tested in-process.
package benchrun

import (
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Counts are the repetitions per profile: smoke proves every program runs;
// quick gives benchstat enough samples (n=6) for a finite 95 % interval of
// the median and a verdict at α=0.05; full tightens the intervals.
var Counts = map[string]int{"smoke": 1, "quick": 6, "full": 10}

// MaxParts is the most parts a repetition may be cut into (--parts); the C
// programs' --share takes the same range (VMP_MAX_SHARE).
const MaxParts = 16

// StdoutPath as --out writes the result to stdout.
const StdoutPath = "-"

// Options are the parsed command line.
type Options struct {
	Profile string
	Out     string
	Force   bool
	Pin     int // -1: no pinning
	// PinSerial: "" (off), "last" or a CPU number: each single-threaded
	// benchmark runs on that CPU, the parallel ones (snowflake) on every CPU
	// the target allows (see WidenAll).
	PinSerial string
	// Widen: every CPU the target's cpuset allows, whatever mask the parent
	// handed down (the lab's confined controller, containerd); no pinning.
	Widen  bool
	Target string
	RunID  string
	Count  int
	// Parts: each repetition in this many parts (--parts); the programs that
	// take --share run once per part with 1/Parts of their time, the parts
	// spread over the repetition, and each row's fastest part counts.
	Parts int
	// Share: per program that takes --share (SharingNames), run it with 1/N
	// of its profile's time in each repetition (--share N for every one,
	// --share PROG=N for one; with --parts, 1/(N×Parts) per part); a program
	// absent keeps its whole time. The lab spends the time on more rounds
	// instead, since a host's slow spells, not a repetition's length, set
	// most rows' spread.
	Share map[string]int
	// MemcpyMinSize: memcpy measures only its sizes of at least this many
	// bytes (--memcpy-min-size; 0: every size).
	MemcpyMinSize int64
	Only          *regexp.Regexp
	BenchDir      string
	Meta          [][2]string // --meta KEY=VALUE: header lines the caller knows (the lab's commit, branch)
}

// shareFlag collects repeated --share N | PROG=N.
type shareFlag struct{ o *Options }

func (f shareFlag) String() string { return "" }
func (f shareFlag) Set(s string) error {
	prog, value, one := strings.Cut(s, "=")
	if !one {
		value = s
	}
	n, err := strconv.Atoi(value)
	if err != nil || n < 1 || n > MaxParts {
		return fmt.Errorf("expected N or PROG=N with N a whole number from 1 to %d", MaxParts)
	}
	if one && !slices.Contains(SharingNames(), prog) {
		return fmt.Errorf("%q takes no --share; expected one of %s", prog, strings.Join(SharingNames(), ", "))
	}
	if f.o.Share == nil {
		f.o.Share = map[string]int{}
	}
	for _, name := range SharingNames() {
		if !one || name == prog {
			f.o.Share[name] = n
		}
	}
	return nil
}

// ShareOf is the share of a program or job (1: its whole time).
func (o Options) ShareOf(name string) int {
	if n := o.Share[ProgramName(name)]; n > 1 {
		return n
	}
	return 1
}

// metaFlag collects repeated --meta KEY=VALUE.
type metaFlag struct{ o *Options }

func (m metaFlag) String() string { return "" }
func (m metaFlag) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	if !ok || !metaKey.MatchString(k) || strings.ContainsAny(v, "\n\r") {
		return fmt.Errorf("expected KEY=VALUE with a lower-case key of letters, digits and '-', and a one-line value")
	}
	m.o.Meta = append(m.o.Meta, [2]string{k, v})
	return nil
}

var metaKey = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)

const usage = "usage: benchrun --profile smoke|quick|full --out FILE|- [--force] [--pin CPU | --pin-serial CPU|last | --widen] [--target NAME] [--run-id ID] [--count N] [--parts N] [--share N|PROG=N]... [--memcpy-min-size BYTES] [--only REGEX] [--bench-dir DIR] [--meta KEY=VALUE]..."

// ParseArgs validates the command line; errors say which flag and why.
func ParseArgs(args []string, stderr io.Writer) (Options, error) {
	fs := flag.NewFlagSet("benchrun", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprintln(stderr, usage); fs.PrintDefaults() }
	o := Options{}
	fs.StringVar(&o.Profile, "profile", "", "smoke | quick | full")
	fs.StringVar(&o.Out, "out", "", "results file to write (atomically); - for stdout")
	fs.BoolVar(&o.Force, "force", false, "overwrite --out if it exists")
	fs.IntVar(&o.Pin, "pin", -1, "pin benchrun and every benchmark to this CPU")
	fs.BoolVar(&o.Widen, "widen", false, "run on every CPU the target's cpuset allows, not on a narrower mask inherited from the parent (the lab confines its controller and daemons to other CPUs)")
	fs.StringVar(&o.PinSerial, "pin-serial", "", "run each single-threaded benchmark on this CPU (last: the highest CPU the target allows) and snowflake's GOMAXPROCS sweep on every CPU the target allows")
	fs.StringVar(&o.Target, "target", "", "target name for the header (default: the host name)")
	fs.StringVar(&o.RunID, "run-id", "", "run id for the header (default: UTC time + random suffix)")
	fs.IntVar(&o.Count, "count", 0, "repetitions (default: smoke 1, quick 6, full 10)")
	fs.IntVar(&o.Parts, "parts", 1, fmt.Sprintf("cut each repetition into this many parts (1-%d): %s run once per part with 1/N of their time, the parts spread over the repetition, and each row's fastest part counts", MaxParts, SharingPrograms()))
	fs.Var(shareFlag{&o}, "share", fmt.Sprintf("N or PROG=N (repeatable): give %s (N), or PROG of them, 1/N of its profile's time in each repetition (1-%d; with --parts, N times parts at most %d)", SharingPrograms(), MaxParts, MaxParts))
	fs.Int64Var(&o.MemcpyMinSize, "memcpy-min-size", 0, "memcpy measures only its sizes of at least this many bytes (0: every size)")
	only := fs.String("only", "", "run only the jobs whose name matches this regular expression")
	fs.StringVar(&o.BenchDir, "bench-dir", "", "directory with the benchmark binaries (default: benchrun's own)")
	fs.Var(metaFlag{&o}, "meta", "KEY=VALUE header line to record (repeatable), e.g. commit=abc123")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q\n%s", fs.Arg(0), usage)
	}
	def, ok := Counts[o.Profile]
	if !ok {
		return o, fmt.Errorf("--profile %q: expected smoke, quick or full\n%s", o.Profile, usage)
	}
	if o.Out == "" {
		return o, fmt.Errorf("--out FILE is required\n%s", usage)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if !set["count"] {
		o.Count = def
	} else if o.Count < 1 {
		return o, fmt.Errorf("--count %d: expected a positive number of repetitions", o.Count)
	}
	if o.Parts < 1 || o.Parts > MaxParts {
		return o, fmt.Errorf("--parts %d: expected a whole number of parts from 1 to %d", o.Parts, MaxParts)
	}
	for _, name := range SharingNames() {
		if n := o.ShareOf(name); n*o.Parts > MaxParts {
			return o, fmt.Errorf("--share %s=%d: times --parts %d it is above %d (the programs' own --share range)", name, n, o.Parts, MaxParts)
		}
	}
	if o.MemcpyMinSize < 0 {
		return o, fmt.Errorf("--memcpy-min-size %d: expected a number of bytes (0 or more; 0: every size)", o.MemcpyMinSize)
	}
	if set["pin"] && o.Pin < 0 {
		return o, fmt.Errorf("--pin %d: expected a CPU number (0 or more); leave --pin out to run unpinned", o.Pin)
	}
	if o.Widen && (set["pin"] || set["pin-serial"]) {
		return o, fmt.Errorf("--widen and --pin or --pin-serial: choose one")
	}
	if set["pin-serial"] {
		if set["pin"] {
			return o, fmt.Errorf("--pin and --pin-serial: choose one (--pin pins snowflake's sweep too)")
		}
		if o.PinSerial != "last" && !regexp.MustCompile(`^[0-9]+$`).MatchString(o.PinSerial) {
			return o, fmt.Errorf("--pin-serial %q: expected a CPU number (0 or more) or last", o.PinSerial)
		}
	}
	if *only != "" {
		re, err := regexp.Compile(*only)
		if err != nil {
			return o, fmt.Errorf("--only %q: %v", *only, err)
		}
		o.Only = re
	}
	if o.Target == "" {
		h, err := os.Hostname()
		if err != nil {
			return o, fmt.Errorf("no --target and no host name: %v", err)
		}
		o.Target = h
	}
	// '+' joins a target and an intervention (`vmparity lab verify`: guest-hpet-clock+clocksource-tsc)
	if !regexp.MustCompile(`^[A-Za-z0-9._+-]+$`).MatchString(o.Target) {
		return o, fmt.Errorf("--target %q: expected letters, digits, '.', '_', '+' or '-'", o.Target)
	}
	if o.RunID == "" {
		o.RunID = NewRunID(time.Now())
	}
	if o.BenchDir == "" {
		exe, err := os.Executable()
		if err != nil {
			return o, fmt.Errorf("no --bench-dir and cannot find benchrun's own directory: %v", err)
		}
		o.BenchDir = filepath.Dir(exe)
	}
	return o, nil
}

// NewRunID is "2026-11-22T10-15-03Z-3f2a": sortable, safe in file names.
func NewRunID(t time.Time) string {
	b := make([]byte, 2)
	rand.Read(b)
	return t.UTC().Format("2006-01-02T15-04-05Z") + "-" + hex.EncodeToString(b)
}
