package snowflake

import (
	"fmt"
	"sync"
	"time"
)

// ticker is the seed author's design: Next never reads the clock; a
// goroutine woken every millisecond by a time.Ticker reads it and, under the
// mutex, moves to the new millisecond and resets the sequence. Callers that
// exhaust the sequence wait for that reset.
type ticker struct {
	cfg    Config
	mu     sync.Mutex
	ms     int64
	seq    uint64        // next sequence to hand out
	reset  chan struct{} // closed (and replaced) at every reset
	stop   chan struct{}
	closed sync.Once
}

func newTicker(c Config) *ticker {
	g := &ticker{cfg: c, ms: c.Clock.NowMillis(), reset: make(chan struct{}), stop: make(chan struct{})}
	go g.run()
	return g
}

func (g *ticker) run() {
	t := time.NewTicker(time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-g.stop:
			return
		case <-t.C:
			g.tick()
		}
	}
}

// tick moves to the clock's millisecond if it is later; a clock that went
// backwards is ignored here (the sequence is simply not reset), so IDs stay
// ordered and Next reports the stall once MaxBackwards has passed.
func (g *ticker) tick() {
	now := g.cfg.Clock.NowMillis()
	g.mu.Lock()
	defer g.mu.Unlock()
	if now > g.ms {
		g.ms, g.seq = now, 0
		close(g.reset)
		g.reset = make(chan struct{})
	}
}

func (g *ticker) Next() (ID, error) {
	deadline := time.NewTimer(g.cfg.MaxBackwards)
	defer deadline.Stop()
	for {
		g.mu.Lock()
		if g.seq <= MaxSequence {
			id := makeID(g.ms, g.cfg.Worker, g.seq)
			g.seq++
			g.mu.Unlock()
			return id, nil
		}
		ms, wait := g.ms, g.reset
		g.mu.Unlock()
		select {
		case <-wait:
		case <-deadline.C:
			return 0, fmt.Errorf("%w (sequence of ms %d exhausted, clock says %d, waited %v)",
				ErrClockBackwards, ms, g.cfg.Clock.NowMillis(), g.cfg.MaxBackwards)
		}
	}
}

func (g *ticker) Close() { g.closed.Do(func() { close(g.stop) }) }
