package benchrun

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// PooledUnits are the units a merged line takes as the median over every part
// rather than from its fastest part: a ratio to a reference timed beside the
// measurement (memcpy's refcopies/op; vmparity's format.yaml calls them
// reference-units) has no slow spell for the fastest part to leave out, only
// the scatter of its few batch pairs, which the parts together average. Over
// twenty lab-like repetitions of memcpy's 10 MiB copy here (three parts at
// --share 6), the fastest part's ratio moved by 10 %, the median of the three
// parts' by 7 %, and the fastest part's time by 16 %.
var PooledUnits = map[string]bool{"refcopies/op": true}

// PartLines merges the parts of one job (--parts): FastestLines for every
// unit but PooledUnits, whose value becomes the median of the parts'.
type PartLines struct {
	kept   []string
	pooled map[string]map[string][]float64 // name -> unit -> one value per part
}

// Add merges one part's Benchmark lines.
func (p *PartLines) Add(part []string) error {
	kept, err := FastestLines(p.kept, part)
	if err != nil {
		return err
	}
	p.kept = kept
	for _, l := range part {
		f := strings.Fields(l)
		for i := 3; i < len(f); i += 2 {
			if !PooledUnits[f[i]] {
				continue
			}
			v, err := strconv.ParseFloat(f[i-1], 64)
			if err != nil {
				return fmt.Errorf("%q: %s value %q: %v", l, f[i], f[i-1], err)
			}
			if p.pooled == nil {
				p.pooled = map[string]map[string][]float64{}
			}
			if p.pooled[f[0]] == nil {
				p.pooled[f[0]] = map[string][]float64{}
			}
			p.pooled[f[0]][f[i]] = append(p.pooled[f[0]][f[i]], v)
		}
	}
	return nil
}

// Lines are the merged lines: each the fastest part's, its pooled units the
// median of the parts'.
func (p *PartLines) Lines() []string {
	out := make([]string, len(p.kept))
	for i, l := range p.kept {
		out[i] = l
		f := strings.Fields(l)
		for j := 3; j < len(f); j += 2 {
			if vs := p.pooled[f[0]][f[j]]; len(vs) > 1 {
				f[j-1] = strconv.FormatFloat(median(vs), 'g', 6, 64)
				out[i] = strings.Join(f, " ")
			}
		}
	}
	return out
}

func median(vs []float64) float64 {
	s := append([]float64(nil), vs...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

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
