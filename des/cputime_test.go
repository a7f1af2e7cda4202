package des

import "testing"

// CPU time never runs backwards and grows with work done; a burn of a few
// million iterations must show up (the clock's resolution is far finer).
func TestProcessCPUTimeGrowsWithWork(t *testing.T) {
	a, ok := ProcessCPUTime()
	if !ok {
		t.Skip("no per-process CPU time on this platform")
	}
	x := uint64(1)
	for i := 0; i < 50_000_000; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	b, _ := ProcessCPUTime()
	if x == 0 || b <= a {
		t.Fatalf("CPU time %v then %v after a 50M-step loop", a, b)
	}
}
