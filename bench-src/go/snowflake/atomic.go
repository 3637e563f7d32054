package snowflake

import "sync/atomic"

// atomicGen is the lock-free design from the seed's discussion: the state
// is one word packing (millisecond << 12 | next sequence), advanced by
// compare-and-swap. The clock is read only when the sequence of the current
// millisecond is exhausted, so the common path costs one CAS and no
// clock_gettime at all. The trade-off: after an idle period the first IDs
// carry the millisecond of the last clock read (still unique and ordered,
// never more than 4096 per millisecond value).
type atomicGen struct {
	cfg   Config
	state atomic.Uint64 // ms<<SequenceBits | next sequence (4096 = exhausted)
}

func newAtomic(c Config) *atomicGen {
	g := &atomicGen{cfg: c}
	g.state.Store(pack(c.Clock.NowMillis(), 0))
	return g
}

// The sequence field needs 13 bits here to represent "exhausted" (4096).
const atomicSeqBits = SequenceBits + 1

func pack(ms int64, next uint64) uint64 { return uint64(ms)<<atomicSeqBits | next }
func unpack(s uint64) (int64, uint64) {
	return int64(s >> atomicSeqBits), s & (1<<atomicSeqBits - 1)
}

func (g *atomicGen) Next() (ID, error) {
	for {
		old := g.state.Load()
		ms, next := unpack(old)
		if next <= MaxSequence {
			if g.state.CompareAndSwap(old, pack(ms, next+1)) {
				return makeID(ms, g.cfg.Worker, next), nil
			}
			continue // another goroutine took this sequence; retry
		}
		now, err := waitPast(g.cfg, ms)
		if err != nil {
			return 0, err
		}
		// Sequence 0 of the new millisecond is ours if the CAS wins.
		if g.state.CompareAndSwap(old, pack(now, 1)) {
			return makeID(now, g.cfg.Worker, 0), nil
		}
	}
}

func (g *atomicGen) Close() {}
