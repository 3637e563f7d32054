package benchrun

import (
	"os"
	"runtime"
	"strconv"
	"sync"
	"testing"

	"golang.org/x/sys/unix"
)

// churnThreads makes the Go runtime start new OS threads until stop is
// closed: each goroutine locks its thread and ends without unlocking it, so
// the runtime ends that thread and starts another for the next one. A new
// thread inherits the mask of whichever thread creates it.
func churnThreads(stop <-chan struct{}, wg *sync.WaitGroup) {
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				done := make(chan struct{})
				go func() {
					runtime.LockOSThread()
					close(done)
				}()
				<-done
			}
		}()
	}
}

// threadMasks is the mask of every thread of this process now.
func threadMasks(t *testing.T) map[int]unix.CPUSet {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	masks := map[int]unix.CPUSet{}
	for _, e := range tasks {
		tid, _ := strconv.Atoi(e.Name())
		var m unix.CPUSet
		if unix.SchedGetaffinity(tid, &m) == nil {
			masks[tid] = m
		}
	}
	return masks
}

// TestWidenAndPinReachThreadsStartedMeanwhile: the runtime starts threads
// while benchrun changes the masks (a new thread takes its creator's mask),
// and a benchmark or the probe may then run on any of them. Every thread
// must end with the mask asked for, not only those that existed when the
// change began: in the lab a thread left on the controller's CPU ran
// snowflake's sweep on one CPU (CI, TestPinSerial).
func TestWidenAndPinReachThreadsStartedMeanwhile(t *testing.T) {
	var all unix.CPUSet
	if err := unix.SchedGetaffinity(0, &all); err != nil || all.Count() < 2 {
		t.Skip("needs at least two CPUs in this process's mask")
	}
	first, _ := SerialCPU("last", all)
	for i := 0; i < len(all)*64; i++ {
		if all.IsSet(i) {
			first = i
			break
		}
	}
	defer func() {
		if _, err := WidenAll(); err != nil {
			t.Errorf("giving the test process its CPUs back: %v", err)
		}
	}()
	for round := 0; round < 300; round++ {
		stop, wg := make(chan struct{}), &sync.WaitGroup{}
		churnThreads(stop, wg)
		if err := PinAll(first); err != nil {
			t.Fatal(err)
		}
		pinned := threadMasks(t)
		got, err := WidenAll()
		widened := threadMasks(t)
		close(stop)
		wg.Wait()
		if err != nil {
			t.Fatal(err)
		}
		if got != all {
			t.Fatalf("round %d: WidenAll gave CPUs %s, want %s", round, CPUList(got), CPUList(all))
		}
		for tid, m := range pinned {
			if m.Count() != 1 || !m.IsSet(first) {
				t.Fatalf("round %d: after PinAll(%d) thread %d has CPUs %s", round, first, tid, CPUList(m))
			}
		}
		for tid, m := range widened {
			if m != all {
				t.Fatalf("round %d: after WidenAll thread %d has CPUs %s, want %s", round, tid, CPUList(m), CPUList(all))
			}
		}
	}
}
