package snowflake

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeClock is a settable clock, so tests control when milliseconds pass.
type fakeClock struct{ ms atomic.Int64 }

func (f *fakeClock) NowMillis() int64 { return f.ms.Load() }
func (f *fakeClock) Set(ms int64)     { f.ms.Store(ms) }

func newGen(t *testing.T, design string, c Config) Generator {
	t.Helper()
	g, err := New(design, c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Close)
	return g
}

// collect runs n goroutines that each take per IDs and returns them per
// goroutine, failing the test on any error.
func collect(t *testing.T, g Generator, n, per int, issued *atomic.Int64) [][]ID {
	t.Helper()
	out := make([][]ID, n)
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ids := make([]ID, 0, per)
			for range per {
				id, err := g.Next()
				if err != nil {
					errs <- err
					return
				}
				if issued != nil {
					issued.Add(1)
				}
				ids = append(ids, id)
			}
			out[i] = ids
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	return out
}

// checkIDs asserts global uniqueness, per-goroutine strict ordering, the
// worker field and at most 4096 IDs per millisecond; returns IDs per ms.
func checkIDs(t *testing.T, perG [][]ID, worker uint64) map[int64]int {
	t.Helper()
	seen := make(map[ID]bool)
	perMs := make(map[int64]int)
	for g, ids := range perG {
		for i, id := range ids {
			if seen[id] {
				t.Fatalf("duplicate ID %d (ms %d seq %d)", id, id.Millis(), id.Sequence())
			}
			seen[id] = true
			if i > 0 && id <= ids[i-1] {
				t.Fatalf("goroutine %d: ID %d not after previous %d", g, id, ids[i-1])
			}
			if id.Worker() != worker {
				t.Fatalf("ID %d has worker %d, want %d", id, id.Worker(), worker)
			}
			perMs[id.Millis()]++
		}
	}
	for ms, n := range perMs {
		if n > MaxSequence+1 {
			t.Fatalf("%d IDs in millisecond %d, limit is %d", n, ms, MaxSequence+1)
		}
	}
	return perMs
}

func TestLayout(t *testing.T) {
	id := makeID(123456789, 2047, 4095)
	if id.Millis() != 123456789 || id.Worker() != 2047 || id.Sequence() != 4095 {
		t.Fatalf("fields of %x: ms %d worker %d seq %d", uint64(id), id.Millis(), id.Worker(), id.Sequence())
	}
	if makeID(5, 0, 0) <= makeID(4, MaxWorker, MaxSequence) {
		t.Fatal("a later millisecond must sort after any earlier ID")
	}
	if _, err := New("ticker", Config{Worker: MaxWorker + 1}); err == nil {
		t.Fatal("worker 2048 accepted")
	}
	if _, err := New("nonesuch", Config{}); err == nil {
		t.Fatal("unknown design accepted")
	}
}

func TestConcurrentUniqueOrdered(t *testing.T) {
	for _, d := range Designs {
		t.Run(d, func(t *testing.T) {
			g := newGen(t, d, Config{Worker: 7})
			perMs := checkIDs(t, collect(t, g, 8, 5000, nil), 7)
			// 40000 IDs need at least 10 distinct milliseconds.
			if len(perMs) < 40000/(MaxSequence+1) {
				t.Fatalf("40000 IDs in only %d milliseconds", len(perMs))
			}
		})
	}
}

// TestOverflowWithinOneMillisecond freezes the clock: exactly 4096 IDs may be
// issued, every further caller must wait until the clock moves on, and the
// IDs on both sides of the overflow stay unique and ordered.
func TestOverflowWithinOneMillisecond(t *testing.T) {
	const extra = 500
	for _, d := range Designs {
		t.Run(d, func(t *testing.T) {
			clk := &fakeClock{}
			clk.Set(1000)
			g := newGen(t, d, Config{Worker: 3, Clock: clk, MaxBackwards: 10 * time.Second})
			var issued atomic.Int64
			done := make(chan [][]ID)
			go func() { done <- collect(t, g, 4, (MaxSequence+1+extra)/4, &issued) }()

			// Wait until the frozen millisecond is used up, then make sure
			// nobody gets past it while the clock stands still.
			for deadline := time.Now().Add(5 * time.Second); issued.Load() < MaxSequence+1; {
				if time.Now().After(deadline) {
					t.Fatalf("only %d IDs issued in the first millisecond", issued.Load())
				}
				time.Sleep(time.Millisecond)
			}
			time.Sleep(30 * time.Millisecond)
			if n := issued.Load(); n != MaxSequence+1 {
				t.Fatalf("%d IDs issued with the clock frozen, want exactly %d", n, MaxSequence+1)
			}
			clk.Set(1001)
			perMs := checkIDs(t, <-done, 3)
			if perMs[1000] != MaxSequence+1 || perMs[1001] != extra {
				t.Fatalf("IDs per ms = %v, want 1000:%d 1001:%d", perMs, MaxSequence+1, extra)
			}
		})
	}
}

// exhaust takes IDs until the generator had to consult the clock: 4096 for
// the designs that only look at the clock when the sequence runs out.
func exhaust(t *testing.T, g Generator) ID {
	t.Helper()
	var last ID
	for range MaxSequence + 1 {
		id, err := g.Next()
		if err != nil {
			t.Fatal(err)
		}
		last = id
	}
	return last
}

func TestClockBackwardsErrorsAfterBound(t *testing.T) {
	for _, d := range Designs {
		t.Run(d, func(t *testing.T) {
			clk := &fakeClock{}
			clk.Set(5000)
			g := newGen(t, d, Config{Clock: clk, MaxBackwards: 50 * time.Millisecond})
			exhaust(t, g)
			clk.Set(4990) // stepped back 10 ms and stays there
			start := time.Now()
			id, err := g.Next()
			if !errors.Is(err, ErrClockBackwards) {
				t.Fatalf("got ID %d, err %v; want ErrClockBackwards", id, err)
			}
			if waited := time.Since(start); waited < 50*time.Millisecond || waited > 2*time.Second {
				t.Fatalf("gave up after %v, bound is 50ms", waited)
			}
		})
	}
}

func TestClockBackwardsWaitsUntilCaughtUp(t *testing.T) {
	for _, d := range Designs {
		t.Run(d, func(t *testing.T) {
			clk := &fakeClock{}
			clk.Set(5000)
			g := newGen(t, d, Config{Clock: clk, MaxBackwards: 5 * time.Second})
			last := exhaust(t, g)
			clk.Set(4990)
			go func() {
				time.Sleep(20 * time.Millisecond)
				clk.Set(4995) // still behind: must keep waiting
				time.Sleep(20 * time.Millisecond)
				clk.Set(5001)
			}()
			id, err := g.Next()
			if err != nil {
				t.Fatal(err)
			}
			if id <= last || id.Millis() != 5001 || id.Sequence() != 0 {
				t.Fatalf("after the clock caught up got ms %d seq %d (last was ms %d seq %d)",
					id.Millis(), id.Sequence(), last.Millis(), last.Sequence())
			}
		})
	}
}

// The Twitter design reads the clock on every call, so even a single ID
// after a backwards step must wait rather than reuse an old millisecond.
func TestTwitterNeverIssuesInThePast(t *testing.T) {
	clk := &fakeClock{}
	clk.Set(7000)
	g := newGen(t, "twitter", Config{Clock: clk, MaxBackwards: 30 * time.Millisecond})
	if _, err := g.Next(); err != nil {
		t.Fatal(err)
	}
	clk.Set(6999)
	if _, err := g.Next(); !errors.Is(err, ErrClockBackwards) {
		t.Fatalf("err = %v, want ErrClockBackwards", err)
	}
}
