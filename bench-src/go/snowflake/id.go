// Package snowflake generates Twitter-style 64-bit IDs:
//
//	41 bits milliseconds since Epoch | 11 bits worker | 12 bits sequence
//
// in three designs (see formats.md, "snowflake"): Ticker, Twitter and Atomic.
// They differ only in how often they read the clock, which is what seed 004
// is about: a design that reads the clock per ID collapses when
// clock_gettime leaves the vDSO.
package snowflake

import (
	"errors"
	"fmt"
	"time"
)

const (
	TimeBits     = 41
	WorkerBits   = 11
	SequenceBits = 12

	MaxWorker   = 1<<WorkerBits - 1
	MaxSequence = 1<<SequenceBits - 1 // 4095: at most 4096 IDs per ms per worker
	maxMillis   = 1<<TimeBits - 1
)

// Epoch is the custom epoch (2020-01-01T00:00:00Z) in Unix milliseconds;
// 41 bits of milliseconds from it last until 2089.
const Epoch int64 = 1577836800000

// FloorNs is the physical floor of any design: 4096 IDs per millisecond
// means no generator can sustain less than 1e6/4096 = 244 ns per ID.
const FloorNs = 244

// DefaultMaxBackwards bounds how long Next waits for a clock that went
// backwards (or a sequence that cannot be reset) before it returns
// ErrClockBackwards instead of blocking forever. NTP slews and small steps
// are absorbed; a step larger than this is an operator problem to report.
const DefaultMaxBackwards = time.Second

// ErrClockBackwards is returned when the clock stayed behind the last issued
// millisecond for longer than the generator's MaxBackwards bound.
var ErrClockBackwards = errors.New("snowflake: clock went backwards and did not catch up within the bound")

// ID is a snowflake; a distinct type so that nobody does arithmetic on it.
type ID uint64

func makeID(ms int64, worker, seq uint64) ID {
	return ID(uint64(ms)<<(WorkerBits+SequenceBits) | worker<<SequenceBits | seq)
}

// Millis is the ID's timestamp in milliseconds since Epoch.
func (id ID) Millis() int64 { return int64(uint64(id) >> (WorkerBits + SequenceBits)) }

// Worker is the ID's worker field.
func (id ID) Worker() uint64 { return uint64(id) >> SequenceBits & MaxWorker }

// Sequence is the ID's sequence within its millisecond.
func (id ID) Sequence() uint64 { return uint64(id) & MaxSequence }

// Clock returns milliseconds since Epoch. Tests inject a fake one.
type Clock interface {
	NowMillis() int64
}

// SystemClock reads time.Now (clock_gettime(CLOCK_REALTIME) through the
// vDSO when the kernel offers it — the cost the benchmark exposes).
type SystemClock struct{}

func (SystemClock) NowMillis() int64 { return time.Now().UnixMilli() - Epoch }

// Generator is what every design implements.
type Generator interface {
	// Next returns a new ID, unique for this generator and greater than every
	// ID it returned before; it blocks while the current millisecond's
	// sequence is exhausted and fails with ErrClockBackwards past the bound.
	Next() (ID, error)
	// Close releases background resources (the ticker).
	Close()
}

// Config is shared by all designs.
type Config struct {
	Worker       uint64
	Clock        Clock         // nil: SystemClock
	MaxBackwards time.Duration // 0: DefaultMaxBackwards
}

func (c Config) normalise() (Config, error) {
	if c.Worker > MaxWorker {
		return c, fmt.Errorf("snowflake: worker %d out of range 0..%d", c.Worker, MaxWorker)
	}
	if c.Clock == nil {
		c.Clock = SystemClock{}
	}
	if c.MaxBackwards <= 0 {
		c.MaxBackwards = DefaultMaxBackwards
	}
	return c, nil
}

// Designs lists the implementation names used in benchmark names, in order.
var Designs = []string{"ticker", "twitter", "atomic"}

// New builds the named design.
func New(design string, c Config) (Generator, error) {
	c, err := c.normalise()
	if err != nil {
		return nil, err
	}
	switch design {
	case "ticker":
		return newTicker(c), nil
	case "twitter":
		return newTwitter(c), nil
	case "atomic":
		return newAtomic(c), nil
	}
	return nil, fmt.Errorf("snowflake: unknown design %q (expected one of %v)", design, Designs)
}

// pollInterval is how long waitPast pauses between two reads of the clock.
const pollInterval = 20 * time.Microsecond

// waitPast polls the clock until it shows a millisecond after last, or fails
// once MaxBackwards of real (monotonic) time has passed. Polling, not
// sleeping a computed time, because the clock may be fake or stepped.
func waitPast(c Config, last int64) (int64, error) {
	deadline := time.Now().Add(c.MaxBackwards)
	for {
		now := c.Clock.NowMillis()
		if now > last {
			if now > maxMillis {
				return 0, fmt.Errorf("snowflake: %d ms since epoch exceeds %d bits", now, TimeBits)
			}
			return now, nil
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("%w (last issued ms %d, clock says %d, waited %v)", ErrClockBackwards, last, now, c.MaxBackwards)
		}
		pause()
	}
}
