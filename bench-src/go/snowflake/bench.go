package snowflake

import (
	"flag"
	"fmt"
	"io"
	"runtime"
	"sync"
	"testing"
	"time"
)

// Benchtimes per profile. smoke only proves the path works, so it is a tiny
// time per design and GOMAXPROCS step, not a count: where every clock read is
// a trapped system call (the nested KVM host's hpet guest) a fixed 2000 IDs
// took 8.5 s of a 13 s repetition. quick keeps all designs × procs to a few
// seconds per repetition; full is the usual testing default.
var Benchtimes = map[string]string{"smoke": "10ms", "quick": "40ms", "full": "1s"}

// WaitNote is the header's account of how the designs wait, so that a
// step in these rows between runs can be told apart from a regression.
const WaitNote = "twitter and atomic pause in nanosleep(2) between clock reads; every run starts as a millisecond begins"

// ProcsSteps is 1, 2, 4, … below visible, then visible itself: the seed's
// GOMAXPROCS sweep, ending at what the scheduler lets us use.
func ProcsSteps(visible int) []int {
	var steps []int
	for p := 1; p < visible; p *= 2 {
		steps = append(steps, p)
	}
	return append(steps, visible)
}

// BenchName is the contract name (docs/formats.md); the -N suffix is the
// GOMAXPROCS the benchmark ran with, as `go test` would print it.
func BenchName(design string, procs int) string {
	return fmt.Sprintf("BenchmarkSnowflake/impl=%s/procs=%d-%d", design, procs, procs)
}

// sink keeps the compiler from discarding the IDs: every goroutine folds
// each ID it makes into its own local value, the folds are combined under a
// mutex when the goroutines finish, and only the benchmark's own goroutine
// stores the result here, so no two goroutines ever write it at once.
var sink ID

// startOfMillisecond returns as the wall clock's millisecond turns over.
// Every design's first millisecond is free (its 4096 IDs need no wait), so a
// run that began late in a millisecond timed up to a millisecond less than
// one that began early: up to 2.5 % of a 40 ms run, drawn anew every run.
func startOfMillisecond() {
	ms := time.Now().UnixMilli()
	for time.Now().UnixMilli() == ms {
	}
}

func benchOne(design string) (testing.BenchmarkResult, error) {
	var benchErr error
	var once sync.Once
	r := testing.Benchmark(func(b *testing.B) {
		startOfMillisecond()
		g, err := New(design, Config{Worker: 1})
		if err != nil {
			once.Do(func() { benchErr = err })
			b.SkipNow()
		}
		defer g.Close()
		var mu sync.Mutex
		var combined ID
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			var folded ID
			defer func() {
				mu.Lock()
				combined ^= folded
				mu.Unlock()
			}()
			for pb.Next() {
				id, err := g.Next()
				if err != nil {
					once.Do(func() { benchErr = err })
					return
				}
				folded ^= id
			}
		})
		sink ^= combined
	})
	return r, benchErr
}

// Run prints one repetition: config lines, then one Benchmark line per
// design and GOMAXPROCS step. It restores GOMAXPROCS afterwards.
func Run(w io.Writer, profile string, visible int) error {
	bt, ok := Benchtimes[profile]
	if !ok {
		return fmt.Errorf("unknown profile %q (expected smoke, quick or full)", profile)
	}
	testing.Init()
	if err := flag.Set("test.benchtime", bt); err != nil {
		return err
	}
	fmt.Fprintf(w, "# physical floor: 4096 IDs per ms per worker = %d ns/op; a design at the floor is rate-limited, not slow\n", FloorNs)
	fmt.Fprintf(w, "snowflake-floor-ns: %d\n", FloorNs)
	fmt.Fprintf(w, "snowflake-benchtime: %s\n", bt)
	fmt.Fprintf(w, "snowflake-wait: %s\n", WaitNote)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, d := range Designs {
		for _, p := range ProcsSteps(visible) {
			runtime.GOMAXPROCS(p)
			r, err := benchOne(d)
			if err != nil {
				return fmt.Errorf("impl=%s procs=%d: %w", d, p, err)
			}
			if r.N == 0 {
				return fmt.Errorf("impl=%s procs=%d: benchmark did not run", d, p)
			}
			fmt.Fprintf(w, "%s\t%d\t%.1f ns/op\n", BenchName(d, p), r.N, float64(r.T.Nanoseconds())/float64(r.N))
		}
	}
	return nil
}
