//go:build !unix

package des

import "time"

// ProcessCPUTime reports false where the platform gives no per-process CPU
// time; callers then leave speed figures out rather than guess them.
func ProcessCPUTime() (time.Duration, bool) { return 0, false }
