//go:build unix

package des

import (
	"syscall"
	"time"
)

// ProcessCPUTime is the CPU time (user plus system) this process has used
// so far, summed over all its threads. Speed figures divide by it rather
// than by wall time: on a shared machine other processes inflate wall time
// many times over, but not this process's CPU time.
func ProcessCPUTime() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
