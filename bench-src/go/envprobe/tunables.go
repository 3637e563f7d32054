package envprobe

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// Tunable is one line of `ld.so --list-tunables`: the value glibc applied
// after its own checks, and the bounds it printed.
type Tunable struct {
	Value, Min, Max uint64
}

// ParseTunable finds `name: 0x… (min: 0x…, max: 0x…)` in --list-tunables text.
func ParseTunable(text, name string) (Tunable, bool) {
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		k, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok || strings.TrimSpace(k) != name {
			continue
		}
		var t Tunable
		var okV, okMin, okMax bool
		fields := strings.Fields(strings.NewReplacer("(", " ", ")", " ", ",", " ").Replace(rest))
		for i, f := range fields {
			switch {
			case i == 0:
				t.Value, okV = parseHex(f)
			case f == "min:" && i+1 < len(fields):
				t.Min, okMin = parseHex(fields[i+1])
			case f == "max:" && i+1 < len(fields):
				t.Max, okMax = parseHex(fields[i+1])
			}
		}
		return t, okV && okMin && okMax
	}
	return Tunable{}, false
}

func parseHex(s string) (uint64, bool) {
	n, err := strconv.ParseUint(s, 0, 64)
	return n, err == nil
}

// ListTunables runs the dynamic loader's --list-tunables with GLIBC_TUNABLES
// set to *tunables (nil: the variable removed), so the output shows what glibc
// applies under that setting, not what was asked for.
func ListTunables(tunables *string) (string, error) {
	loader, err := findLoader()
	if err != nil {
		return "", err
	}
	env := make([]string, 0, len(os.Environ())+1)
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "GLIBC_TUNABLES=") {
			env = append(env, e)
		}
	}
	if tunables != nil {
		env = append(env, "GLIBC_TUNABLES="+*tunables)
	}
	cmd := exec.Command(loader, "--list-tunables")
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("%s --list-tunables: %v (glibc before 2.33 has no --list-tunables)", loader, err)
	}
	return string(out), nil
}
