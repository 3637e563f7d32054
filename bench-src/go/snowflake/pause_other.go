//go:build !linux

package snowflake

import "time"

// pause is time.Sleep where nanosleep(2) is not in package syscall; the
// lab's targets are Linux (pause_linux.go says why it matters there).
func pause() { time.Sleep(pollInterval) }
