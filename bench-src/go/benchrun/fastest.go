package benchrun

import (
	"fmt"
	"strconv"
	"strings"
)

// FastestLines merges one part's Benchmark lines into the lines kept so far
// (--parts): per benchmark name, the line whose first value is smaller stays
// whole, its other units and its iteration count with it, as memcpy keeps its
// fastest placement. Only programs whose first value is a time take --share
// (Program.Shares). Names new to kept are appended in their order.
func FastestLines(kept, part []string) ([]string, error) {
	if kept == nil {
		return part, nil
	}
	at := map[string]int{}
	for i, l := range kept {
		at[strings.Fields(l)[0]] = i
	}
	for _, l := range part {
		name := strings.Fields(l)[0]
		i, ok := at[name]
		if !ok {
			at[name] = len(kept)
			kept = append(kept, l)
			continue
		}
		old, err := firstValue(kept[i])
		if err != nil {
			return nil, err
		}
		now, err := firstValue(l)
		if err != nil {
			return nil, err
		}
		if now < old {
			kept[i] = l
		}
	}
	return kept, nil
}

// firstValue is the first measurement of a Benchmark line (name, iterations,
// value, unit, …), which Absorb has already checked with benchfmt.
func firstValue(line string) (float64, error) {
	f := strings.Fields(line)
	if len(f) < 4 {
		return 0, fmt.Errorf("%q has no measurement", line)
	}
	v, err := strconv.ParseFloat(f[2], 64)
	if err != nil {
		return 0, fmt.Errorf("%q: first value %q: %v", line, f[2], err)
	}
	return v, nil
}
