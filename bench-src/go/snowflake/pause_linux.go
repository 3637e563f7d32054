package snowflake

import "syscall"

// pause blocks this thread for about pollInterval in nanosleep(2), so the
// wait for the next millisecond ends within the kernel's timer slack of it.
// Not time.Sleep: the Go scheduler parks an idle process in epoll with a
// timeout of whole milliseconds, so a 20 µs sleep took up to 1 ms, and where
// in the millisecond it ended made twitter and atomic 5-25 % above the
// floor and a different figure in every repetition (sd 3-6 %, against
// 0.2-0.7 % with nanosleep; docs/noise.md, "Snowflake's wait"). Not a spin
// either: under a CPU quota a spinning waiter was throttled.
func pause() {
	ts := syscall.NsecToTimespec(int64(pollInterval))
	// EINTR (a signal, e.g. the Go runtime's preemption) only shortens the
	// wait: the caller reads the clock again either way.
	_ = syscall.Nanosleep(&ts, nil)
}
