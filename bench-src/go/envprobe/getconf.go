package envprobe

import (
	"os/exec"
	"strings"
	"sync"
)

// getconfAll is every variable `getconf -a` prints, read once: one process
// for the four names the probe asks, not one each. A process is cheap on
// metal but took 0.25-0.5 s in a KVM guest of the nested KVM host, where the
// probe runs before every repetition. nil where -a is not understood (a
// getconf other than glibc's): then each name is asked alone.
var getconfAll = sync.OnceValue(func() map[string]string {
	out, err := exec.Command("getconf", "-a").Output()
	if err != nil {
		return nil
	}
	return parseGetconfAll(string(out))
})

// parseGetconfAll reads `getconf -a`'s lines: a name, spaces, the value (which may be empty).
func parseGetconfAll(text string) map[string]string {
	all := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		if name, _, _ := strings.Cut(line, " "); name != "" {
			all[name] = strings.TrimSpace(strings.TrimPrefix(line, name))
		}
	}
	return all
}

// getconf is one variable as `getconf NAME` prints it.
func getconf(name string) (string, error) {
	if v, ok := getconfAll()[name]; ok {
		return v, nil
	}
	out, err := exec.Command("getconf", name).Output()
	return strings.TrimSpace(string(out)), err
}
