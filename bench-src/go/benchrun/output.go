package benchrun

import (
	"fmt"
	"regexp"
	"strings"

	"golang.org/x/perf/benchfmt"
)

// configLine is benchfmt's configuration line: a key that starts with a
// lower-case letter and has no spaces or upper case, then ':'.
var configLine = regexp.MustCompile(`^([a-z][^\sA-Z:]*):(?:\s+(.*))?$`)

// Header is an ordered set of configuration lines; setting a key again
// replaces its value in place ("last value wins", docs/formats.md).
type Header struct {
	keys   []string
	values map[string]string
	fixed  map[string]bool // benchrun's own keys: a program may not change them
	extra  []string        // Unit and comment lines, deduplicated, in order
	seen   map[string]bool
}

func NewHeader() *Header {
	return &Header{values: map[string]string{}, fixed: map[string]bool{}, seen: map[string]bool{}}
}

// Set adds or replaces a key.
func (h *Header) Set(k, v string) {
	if _, ok := h.values[k]; !ok {
		h.keys = append(h.keys, k)
	}
	h.values[k] = v
}

// SetFixed sets a key that benchmark programs must not override.
func (h *Header) SetFixed(k, v string) {
	h.Set(k, v)
	h.fixed[k] = true
}

func (h *Header) Get(k string) string { return h.values[k] }

func (h *Header) addExtra(line string) {
	if !h.seen[line] {
		h.seen[line] = true
		h.extra = append(h.extra, line)
	}
}

// String renders the header: config lines, then Unit and comment lines.
func (h *Header) String() string {
	var b strings.Builder
	for _, k := range h.keys {
		fmt.Fprintf(&b, "%s: %s\n", k, h.values[k])
	}
	for _, l := range h.extra {
		b.WriteString(l + "\n")
	}
	return b.String()
}

// Absorb splits one program's output: configuration, Unit and comment lines
// go into the header, Benchmark lines (checked with benchfmt) are returned
// as the body. Anything else is an error naming the program and line.
func (h *Header) Absorb(job string, out string) ([]string, error) {
	var body []string
	for i, line := range strings.Split(out, "\n") {
		line = strings.TrimRight(line, "\r")
		where := fmt.Sprintf("%s output line %d", job, i+1)
		switch {
		case strings.TrimSpace(line) == "":
		case strings.HasPrefix(line, "#"):
			h.addExtra(line)
		case strings.HasPrefix(line, "Unit "):
			if err := checkWithBenchfmt(where, line); err != nil {
				return nil, err
			}
			h.addExtra(line)
		case strings.HasPrefix(line, "Benchmark"):
			if err := checkWithBenchfmt(where, line); err != nil {
				return nil, err
			}
			body = append(body, line)
		default:
			m := configLine.FindStringSubmatch(line)
			if m == nil {
				return nil, fmt.Errorf("%s: %q is neither a `key: value` config line, a Unit line, a comment nor a Benchmark line", where, line)
			}
			if h.fixed[m[1]] {
				return nil, fmt.Errorf("%s: sets %q, which is benchrun's own header key", where, m[1])
			}
			h.Set(m[1], m[2])
		}
	}
	if len(body) == 0 {
		return nil, fmt.Errorf("%s printed no Benchmark line", job)
	}
	return body, nil
}

// checkWithBenchfmt parses a line with benchstat's own reader, so a line we
// accept is one benchstat accepts.
func checkWithBenchfmt(where, line string) error {
	r := benchfmt.NewReader(strings.NewReader(line+"\n"), where)
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.SyntaxError:
			return fmt.Errorf("%s: %q: %s", where, line, rec.Msg)
		case *benchfmt.Result:
			if len(rec.Values) == 0 {
				return fmt.Errorf("%s: %q has no measurement", where, line)
			}
		}
	}
	return r.Err()
}
