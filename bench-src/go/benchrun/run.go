package benchrun

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"vmparity/bench/envprobe"
)

// FormatVersion is the vmparity-format header value.
const FormatVersion = "1"

// Main is the whole command: 0 on success, 1 when a run fails, 2 on bad usage.
func Main(args []string, stdout, stderr io.Writer) int {
	o, err := ParseArgs(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "benchrun:", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := Run(ctx, o, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, "benchrun:", err)
		if errors.Is(err, ErrNothingSelected) {
			return 2
		}
		return 1
	}
	return 0
}

// Run executes the suite and writes o.Out; nothing is written on failure.
// With --out - the result goes to stdout (the lab's rounds collect it from
// there), still only once every benchmark has finished.
func Run(ctx context.Context, o Options, stdout, stderr io.Writer) error {
	start := time.Now()
	if o.Out != StdoutPath {
		if err := CheckWritable(o.Out, o.Force); err != nil {
			return err
		}
	}
	// --pin-serial: first every CPU the target allows, whatever mask a
	// confined parent handed down, so that the probe and snowflake see the
	// target's CPUs; the serial benchmarks are pinned as they start.
	serialCPU, unpinned := -1, ""
	if o.PinSerial != "" || o.Widen {
		allowed, err := WidenAll()
		if err != nil {
			return err
		}
		unpinned = CPUList(allowed)
		if o.PinSerial != "" {
			if serialCPU, err = SerialCPU(o.PinSerial, allowed); err != nil {
				return err
			}
		}
	}
	// Probe before pinning: cpus-visible must describe the target, not --pin.
	fp := envprobe.Probe()
	fpMap := map[string]string{}
	h := NewHeader()
	h.SetFixed("vmparity-format", FormatVersion)
	h.SetFixed("run-id", o.RunID)
	h.SetFixed("target", o.Target)
	for _, f := range fp {
		h.Set(f.Key, f.Value)
		fpMap[f.Key] = f.Value
	}
	h.SetFixed("profile", o.Profile)
	h.SetFixed("count", strconv.Itoa(o.Count))
	if o.Only != nil {
		// a subset run says which subset, so nobody reads a missing benchmark as a failure
		h.SetFixed("only", o.Only.String())
	}
	if o.Pin >= 0 {
		if err := PinAll(o.Pin); err != nil {
			return err
		}
		h.SetFixed("pinned-cpu", strconv.Itoa(o.Pin))
	} else if serialCPU >= 0 {
		h.SetFixed("pinned-cpu", strconv.Itoa(serialCPU))
		h.SetFixed("pinned-programs", "serial (snowflake, a GOMAXPROCS sweep, on CPUs "+unpinned+")")
	} else {
		h.SetFixed("pinned-cpu", "none")
		if o.Widen {
			h.SetFixed("pinned-programs", "none (every program on CPUs "+unpinned+", the target's cpuset)")
		}
	}
	h.SetFixed("binary-sha256", manifestHash(o.BenchDir))
	for _, kv := range o.Meta {
		if _, probed := fpMap[kv[0]]; probed || h.fixed[kv[0]] {
			return fmt.Errorf("--meta %s: %q is a key benchrun measures itself", kv[0], kv[0])
		}
		h.SetFixed(kv[0], kv[1])
	}

	envT, haveEnv := os.LookupEnv("GLIBC_TUNABLES")
	l3, l3why := L3Bytes(fpMap)
	minV, minWhy := uint64(0), ""
	if v, err := SmallestAccepted(envprobe.ListTunables); err == nil {
		minV = v
	} else {
		minWhy = err.Error()
	}
	variants := Variants(envT, haveEnv, l3, l3why, minV, minWhy)
	only := func(string) bool { return true }
	if o.Only != nil {
		only = o.Only.MatchString
	}
	note := func(s string) { fmt.Fprintln(stderr, "benchrun:", s) }
	jobs, err := PlanJobs(o.BenchDir, variants, only, note)
	if err != nil {
		return err
	}
	if usesVariants(jobs) {
		if err := VerifyVariants(variants, envprobe.ListTunables); err != nil {
			return fmt.Errorf("%v; %s left unchanged", err, o.Out)
		}
	}
	for _, v := range variants {
		val, applied := v.Tunables, v.Applied
		if v.Skip != "" {
			val = envprobe.Unknown("%s", v.Skip)
			applied = val
		} else if applied == "" {
			applied = envprobe.Unknown("not checked: no memcpy job selected")
		}
		h.SetFixed("memcpy-tunables-"+v.Name, val)
		// what glibc applied under that setting, read back from ld.so
		h.SetFixed("memcpy-nt-threshold-"+v.Name, applied)
	}

	// CFS throttling during the run: the quota, not the code, set the pace
	throttleBefore, throttleErr := envprobe.ReadThrottle()
	byJob := newJobThrottle(envprobe.ReadThrottle)

	if o.Parts > 1 {
		h.SetFixed("parts", fmt.Sprintf("%d (each repetition in %d parts: %s ran once per part with 1/%d of their repetition's time, "+
			"the parts spread over the repetition, and each row is its fastest part, its refcopies/op the median of the parts)", o.Parts, o.Parts, SharingPrograms(), o.Parts))
	}
	if shares := sharesInWords(o); shares != "" {
		h.SetFixed("share", shares)
	}

	var body []string
	runs := 0
	for _, j := range jobs {
		runs += partsOf(j, o.Parts)
	}
	total, n := runs*o.Count, 0
	for rep := 1; rep <= o.Count; rep++ {
		// Repetitions are interleaved across benchmarks, so a slow phase of
		// the machine hits every benchmark a little instead of one a lot; with
		// --parts each job's parts are as far apart as the repetition allows.
		merged := make([]PartLines, len(jobs))
		for part := 1; part <= o.Parts; part++ {
			for i, j := range jobs {
				if !runsIn(jobs, i, part, o.Parts) {
					continue
				}
				n++
				t0 := time.Now()
				fmt.Fprintf(stderr, "[%*d/%d] rep %d/%d %s%s ... ", len(strconv.Itoa(total)), n, total, rep, o.Count, j.Name,
					partLabel(part, partsOf(j, o.Parts)))
				var out string
				err := byJob.measure(j.Name, func() (err error) {
					out, err = runJob(ctx, j, o.Profile, serialCPU, shareOf(j, o), o.MemcpyMinSize)
					return err
				})
				if err != nil {
					fmt.Fprintln(stderr, "FAILED")
					return fmt.Errorf("benchmark %s failed (repetition %d of %d): %v; %s left unchanged", j.Name, rep, o.Count, err, o.Out)
				}
				lines, err := h.Absorb(j.Name, out)
				if err != nil {
					fmt.Fprintln(stderr, "FAILED")
					return fmt.Errorf("benchmark %s: %v; %s left unchanged", j.Name, err, o.Out)
				}
				if err = merged[i].Add(lines); err != nil {
					fmt.Fprintln(stderr, "FAILED")
					return fmt.Errorf("benchmark %s: %v; %s left unchanged", j.Name, err, o.Out)
				}
				fmt.Fprintf(stderr, "%.2fs\n", time.Since(t0).Seconds())
			}
		}
		for i := range merged {
			body = append(body, merged[i].Lines()...)
		}
	}
	recordThrottle(h, throttleBefore, throttleErr)
	h.SetFixed("cpu-throttled-jobs", byJob.String())
	data := h.String() + strings.Join(body, "\n") + "\n"
	if o.Out == StdoutPath {
		if _, err := io.WriteString(stdout, data); err != nil {
			return fmt.Errorf("writing the result to stdout: %v", err)
		}
	} else if err := WriteAtomic(o.Out, []byte(data), o.Force); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "benchrun: wrote %s (%d result lines, profile %s, count %d) in %.1fs\n",
		o.Out, len(body), o.Profile, o.Count, time.Since(start).Seconds())
	return nil
}

// partsOf is how many parts job j runs in: parts if it takes --share, else 1.
func partsOf(j Job, parts int) int {
	if j.Shares {
		return parts
	}
	return 1
}

// shareOf is the --share job j runs with: 1/(parts×share) of its profile's
// time in each part if it takes --share (ShareOf is 1 for one that does not).
func shareOf(j Job, o Options) int {
	return partsOf(j, o.Parts) * o.ShareOf(j.Name)
}

// sharesInWords is the header line share: "memcpy=2, clock=2 (…)", or "" when
// every program has its whole time.
func sharesInWords(o Options) string {
	var set, whole []string
	for _, name := range SharingNames() {
		if n := o.ShareOf(name); n > 1 {
			set = append(set, fmt.Sprintf("%s=%d", name, n))
		} else {
			whole = append(whole, name)
		}
	}
	if len(set) == 0 {
		return ""
	}
	line := strings.Join(set, ", ") + " (each of these ran with 1/N of its profile's time in each repetition"
	if len(whole) > 0 {
		line += "; " + InWords(whole) + " with the whole of it"
	}
	return line + ")"
}

// runsIn says whether jobs[i] runs in this part: a job that takes --share in
// every part; the others one each, dealt out over the parts in turn, so that
// they sit between the parts of the sharing jobs and keep those seconds apart.
func runsIn(jobs []Job, i, part, parts int) bool {
	if jobs[i].Shares {
		return true
	}
	k := 0
	for _, j := range jobs[:i] {
		if !j.Shares {
			k++
		}
	}
	return k%parts == part-1
}

func partLabel(part, parts int) string {
	if parts <= 1 {
		return ""
	}
	return fmt.Sprintf(" part %d/%d", part, parts)
}

// runJob runs one repetition (or, share > 1, one part of it) of one program
// and returns its stdout; with pin >= 0 a serial program runs on that CPU
// (--pin-serial); minSize > 0 limits a sized program to its sizes of at
// least that many bytes.
func runJob(ctx context.Context, j Job, profile string, pin int, share int, minSize int64) (string, error) {
	args := []string{"--profile", profile}
	if share > 1 {
		args = append(args, "--share", strconv.Itoa(share))
	}
	if j.Sized && minSize > 0 {
		args = append(args, "--min-size", strconv.FormatInt(minSize, 10))
	}
	cmd := exec.CommandContext(ctx, j.Path, args...)
	cmd.Env = j.Env(os.Environ())
	// a benchmark must not outlive benchrun, even when benchrun is killed -9
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	var err error
	if pin >= 0 && !j.Parallel {
		err = startOn(pin, cmd.Start)
	} else {
		err = cmd.Start()
	}
	if err == nil {
		err = cmd.Wait()
	}
	if ctx.Err() != nil {
		return "", fmt.Errorf("interrupted (%v)", context.Cause(ctx))
	}
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > 2000 {
			msg = "…" + msg[len(msg)-2000:]
		}
		if msg == "" {
			msg = "no message on stderr"
		}
		return "", fmt.Errorf("%s %s: %v: %s", j.Path, strings.Join(args, " "), err, msg)
	}
	return stdout.String(), nil
}

// recordThrottle adds cpu-throttled-periods ("throttled of total") and
// cpu-throttled-ms for the benchmarks of this run.
func recordThrottle(h *Header, before envprobe.Throttle, err error) {
	var after envprobe.Throttle
	if err == nil {
		after, err = envprobe.ReadThrottle()
	}
	if err != nil {
		u := envprobe.Unknown("%v", err)
		h.SetFixed("cpu-throttled-periods", u)
		h.SetFixed("cpu-throttled-ms", u)
		return
	}
	d := after.Since(before)
	h.SetFixed("cpu-throttled-periods", fmt.Sprintf("%d of %d", d.Throttled, d.Periods))
	h.SetFixed("cpu-throttled-ms", strconv.FormatInt(d.ThrottledNs/1e6, 10))
}

func usesVariants(jobs []Job) bool {
	for _, j := range jobs {
		if j.Variant != nil {
			return true
		}
	}
	return false
}

// manifestHash identifies the exact binaries: sha256 of MANIFEST.sha256.
func manifestHash(dir string) string {
	p := filepath.Join(dir, "MANIFEST.sha256")
	b, err := os.ReadFile(p)
	if err != nil {
		return envprobe.Unknown("%v", err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
