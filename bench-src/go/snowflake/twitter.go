package snowflake

import "sync"

// twitter is Twitter's original design: under one mutex, read the clock on
// EVERY call; same millisecond → next sequence, new millisecond → sequence 0,
// sequence exhausted or clock behind → wait for the clock to pass.
type twitter struct {
	cfg  Config
	mu   sync.Mutex
	last int64 // millisecond of the last ID issued
	seq  uint64
}

func newTwitter(c Config) *twitter { return &twitter{cfg: c, last: -1} }

func (g *twitter) Next() (ID, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	now := g.cfg.Clock.NowMillis()
	switch {
	case now == g.last && g.seq < MaxSequence:
		g.seq++
	case now > g.last:
		g.seq = 0
	default: // exhausted this millisecond, or the clock went backwards
		var err error
		if now, err = waitPast(g.cfg, g.last); err != nil {
			return 0, err
		}
		g.seq = 0
	}
	g.last = now
	return makeID(now, g.cfg.Worker, g.seq), nil
}

func (g *twitter) Close() {}
