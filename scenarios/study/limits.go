package study

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"nocsim/coll"
	"nocsim/config"
	"nocsim/scenarios"
	"nocsim/scenarios/apps"
)

// Memory limits, checked before anything is simulated. A tile's heap is
// three quarters of memory_words (endpoint.Memory keeps the low quarter as
// static memory); every buffer a program or the MPI library allocates
// comes out of it, rounded up to whole words. The needs below are upper
// bounds on the heap bytes one tile holds at once, from the programs'
// allocations and the library's scratch per algorithm (measured against
// the simulator by limits_test.go, which runs the largest accepted size of
// every workload); they err on the side of refusing a size that would just
// fit, never of accepting one that does not.

// heapBytes is the heap of a tile with memory_words words.
func heapBytes(memoryWords int) int { return 4 * (memoryWords - memoryWords/4) }

// wordsFor is the smallest memory_words whose heap holds need bytes.
func wordsFor(need int) int {
	w := (need + 2) / 3 // 4w - 4*floor(w/4) >= need needs w >= need/3 at least
	for heapBytes(w) < need {
		w++
	}
	return w
}

// r4 is an allocation of n bytes as the heap hands it out: whole words,
// at least one.
func r4(n int) int { return 4 * ((max(n, 1) + 3) / 4) }

// fixedNeed covers the small blocks every MPI program holds for a while:
// completion flags (one word per posted receive), communicator set-up and
// rounding.
func fixedNeed(procs int) int { return 256 + 8*procs }

// pingPongNeed is the heap one rank of a ping-pong holds: the buffer of
// the largest size, and a receive temporary as big when a size ends inside
// a word (the DMA engine writes whole words).
func pingPongNeed(sizes []int, procs int) int {
	big, odd := 1, false
	for _, s := range sizes {
		big = max(big, s)
		odd = odd || s%4 != 0
	}
	need := r4(big) + fixedNeed(procs)
	if odd {
		need += r4(big) + 4
	}
	return need
}

// collNeed is the heap one rank holds for op with alg ("auto": the most
// any of the operation's algorithms needs) at P ranks and n bytes: the
// benchmark's own buffers and the library's scratch.
func collNeed(op, alg string, P, n int) int {
	if alg == "auto" {
		most := 0
		for _, a := range coll.Names(scenarios.RegistryOp(op)) {
			most = max(most, collNeed(op, a, P, n))
		}
		return most
	}
	a := coll.Lookup(scenarios.RegistryOp(op), baseAlg(alg))
	B, T := r4(n), r4(n*P)
	odd := n%4 != 0
	user, lib := 0, 0
	switch op {
	case "bcast":
		user = B
	case "scatter", "gather":
		user = B + T
	case "allgather":
		user = B + T
		if odd {
			lib = T + B // word-aligned staging of the blocks
		}
	case "alltoall":
		user = 2 * T
		if odd {
			lib = 2*T + B // staging of unaligned blocks
		}
	case "reduce", "reduce_scatter":
		user, lib = 2*B, 3*B
	case "allreduce", "scan", "exscan":
		user, lib = 2*B, 2*B
	}
	if a != nil && a.Scratch != nil {
		lib = max(lib, a.Scratch(P, n))
	}
	if odd && op != "barrier" {
		// A message ending inside a word is received into a word-aligned
		// temporary; a rank may have one posted per peer at once.
		lib += 2*T + 2*B + 8*P
	}
	return user + lib + fixedNeed(P)
}

// appNeed is the heap the busiest tile holds for one run of an
// application (its data layout, apps.Footprint) plus the library's
// scratch for its largest message.
func appNeed(app, method, version string, P, n int) int {
	need, msg := apps.Footprint(app, method, version, P, n)
	if version == "native" {
		return need + 64 // no library: only the program's own blocks
	}
	return need + 3*r4(msg) + fixedNeed(P)
}

// memoryError is the refusal of a size whose buffers do not fit: it
// names the largest size that fits (or none), what the run needs and the
// key that raises the limit.
func memoryError(key, value, unit string, need, largest, memoryWords int, what string) error {
	fits := "sizes that fit (none does)"
	if largest >= 0 {
		fits = fmt.Sprintf("at most %d%s", largest, unit)
	}
	raise := fmt.Sprintf("raise [network] memory_words / --memory-words to at least %d", wordsFor(need))
	if wordsFor(need) > maxMemoryWords {
		raise = fmt.Sprintf("more than the largest memory_words (%d) gives: use smaller sizes or fewer ranks", maxMemoryWords)
	}
	return &config.KeyError{Key: key, Value: value, Allowed: fmt.Sprintf(
		"%s with memory_words = %d (%s needs %d heap words per tile; the heap is 3/4 of memory_words, %d words): %s",
		fits, memoryWords, what, (need+3)/4, heapBytes(memoryWords)/4, raise)}
}

// maxMemoryWords is the largest memory_words endpoint.Spec accepts.
const maxMemoryWords = 1 << 28

// largestFitting is the largest n in [lo, hi] with fits(n), or -1.
func largestFitting(lo, hi int, fits func(int) bool) int {
	if !fits(lo) {
		return -1
	}
	for hi > lo {
		mid := lo + (hi-lo+1)/2
		if fits(mid) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// Host memory: every tile's heap blocks are Go memory, and a collective's
// check keeps each rank's inputs and expected outputs beside them. A run
// that would need more than the machine has is refused with the estimate
// instead of dying half-way.

// hostBytesPerTile is what one tile of the simulator costs on the host
// before any program allocates (router, NIU, processor, memory page table
// and event queues), with margin.
const hostBytesPerTile = 64 << 10 // measured: about 17 KiB on a 32x32 mesh, idle or under load

// HostMemoryBytes is the host memory a run may use: half the machine's
// physical memory (from /proc/meminfo; 8 GiB where that cannot be read).
var HostMemoryBytes = hostMemory()

func hostMemory() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			f := strings.Fields(line)
			if len(f) >= 2 && f[0] == "MemTotal:" {
				if kb, err := strconv.ParseInt(f[1], 10, 64); err == nil && kb > 0 {
					return kb * 1024 / 2
				}
			}
		}
	}
	return 8 << 30
}

// hostError refuses a run whose estimated host memory exceeds the limit.
func hostError(key, value string, tiles, procs, tileNeed int, dataCopies int) error {
	est := int64(tiles)*hostBytesPerTile + int64(procs)*int64(tileNeed)*int64(1+dataCopies)
	if est <= HostMemoryBytes {
		return nil
	}
	return &config.KeyError{Key: key, Value: value, Allowed: fmt.Sprintf(
		"a run that fits in host memory: this one needs about %s (%d tiles, %d ranks of %s each), more than the %s this machine allows (half its memory)",
		byteText(est), tiles, procs, byteText(int64(tileNeed)*int64(1+dataCopies)), byteText(HostMemoryBytes))}
}

func byteText(b int64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
	}
	return fmt.Sprintf("%.1f KiB", float64(b)/(1<<10))
}

// checkMemory refuses sizes whose buffers do not fit a tile.
func (p *PingPong) checkMemory(sc *scenarios.Scenario, tiles, procs int) error {
	need := pingPongNeed(p.Sizes, procs)
	heap := heapBytes(sc.Network.MemoryWords)
	big := slices.Max(p.Sizes)
	if need > heap {
		largest := largestFitting(0, big, func(n int) bool { return pingPongNeed([]int{n}, procs) <= heap })
		return memoryError("sizes", fmt.Sprint(big), " bytes", need, largest, sc.Network.MemoryWords, fmt.Sprintf("a %d-byte message", big))
	}
	return hostError("sizes", fmt.Sprint(big), tiles, 2, need, 0)
}

// checkMemory refuses a collective sweep whose largest point does not fit
// a tile or the host.
func (s *CollSweep) checkMemory(sc *scenarios.Scenario, tiles int) error {
	heap := heapBytes(sc.Network.MemoryWords)
	for _, a := range s.Algs {
		for _, P := range s.Procs {
			for _, n := range s.Sizes {
				need := collNeed(s.Op, a, P, n)
				if need > heap {
					step := 1
					if needsWords(s.Op) {
						step = 8
					}
					largest := largestFitting(0, n/step, func(k int) bool { return collNeed(s.Op, a, P, k*step) <= heap })
					if largest > 0 {
						largest *= step
					}
					return memoryError("sizes", fmt.Sprint(n), " bytes", need, largest, sc.Network.MemoryWords,
						fmt.Sprintf("%s %s at P=%d with %d bytes per rank", s.Op, a, P, n))
				}
				// Each rank's inputs, and the serial result the check
				// builds, live on the host beside the tile's buffers.
				if err := hostError("sizes", fmt.Sprint(n), tiles, P, need, 2); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// checkMemory refuses an application sweep whose largest run does not
// fit a tile or the host.
func (s *AppSweep) checkMemory(sc *scenarios.Scenario, tiles int) error {
	heap := heapBytes(sc.Network.MemoryWords)
	for _, m := range s.methods() {
		for _, v := range s.Versions {
			for _, P := range s.Procs {
				for _, n := range s.Sizes {
					needOf := func(k int) int {
						if s.Nonzeros {
							k = apps.CGUnknowns(k)
						}
						return appNeed(s.App, m, v, P, k)
					}
					need := needOf(n)
					if need > heap {
						largest := largestFitting(1, n, func(k int) bool { return needOf(k) <= heap })
						name := strings.TrimSpace(s.App + " " + m)
						return memoryError("sizes", fmt.Sprint(n), " bytes", need, largest, sc.Network.MemoryWords,
							fmt.Sprintf("%s %s at P=%d, size %d", name, v, P, n))
					}
					if err := hostError("sizes", fmt.Sprint(n), tiles, P, need, 1); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

// CheckCalibration validates a calibration of sc's machine:
// two tiles at least, two sizes or more within range, 1..100 repetitions,
// and buffers that fit a tile.
func CheckCalibration(sc *scenarios.Scenario, sizes []int, reps int) error {
	switch {
	case sc.Machine().Tiles() < 2:
		return &config.KeyError{Key: "mesh", Value: fmt.Sprintf("%q", sc.Network.Mesh), Allowed: "a mesh of two tiles or more for calibration (the microbenchmarks run between two ranks)"}
	case len(sizes) < 2:
		return &config.KeyError{Key: "sizes", Value: fmt.Sprint(sizes), Allowed: "two or more message sizes (default: 8 B..64 KiB)"}
	case reps < 1 || reps > 100:
		return &config.KeyError{Key: "reps", Value: fmt.Sprint(reps), Allowed: "1..100"}
	}
	for _, s := range sizes {
		if s < 0 || s > 1<<24 {
			return &config.KeyError{Key: "sizes", Value: fmt.Sprint(s), Allowed: "0..16777216 bytes"}
		}
	}
	heap := heapBytes(sc.Network.MemoryWords)
	if need := calibrationNeed(sizes); need > heap {
		big := slices.Max(sizes)
		largest := largestFitting(0, big, func(n int) bool { return calibrationNeed([]int{n}) <= heap })
		return memoryError("sizes", fmt.Sprint(big), " bytes", need, largest, sc.Network.MemoryWords, fmt.Sprintf("a %d-byte microbenchmark", big))
	}
	return nil
}

// calibrationNeed is the heap one rank of the microbenchmarks holds: the
// message buffer, and for a size ending inside a word one receive
// temporary per message of a train in flight.
func calibrationNeed(sizes []int) int {
	big, odd := 1, false
	for _, s := range sizes {
		big = max(big, s)
		odd = odd || s%4 != 0
	}
	need := r4(big) + fixedNeed(2)
	if odd {
		need += 9 * (r4(big) + 4)
	}
	return need
}
