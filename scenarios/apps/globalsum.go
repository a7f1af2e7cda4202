package apps

import (
	"fmt"
	"math"
	"math/rand/v2"

	"nocsim/des"
	"nocsim/endpoint"
	"nocsim/mpi"
	"nocsim/mpi/datatype"
)

// GlobalSumConfig is the global sum of vectors of Radke's report (section
// 7): every rank holds a vector of N float64 (small integers drawn from
// Seed, so the sums are exact) and all must end with the elementwise sum.
type GlobalSumConfig struct {
	// Procs is the number of ranks (MPI) or nodes (native), 1..tiles.
	Procs int
	// N is the vector length, 1..65536.
	N int
	// Method is the algorithm:
	//   "serial":    everyone sends its vector to rank 0, which sums them
	//                in rank order and sends the result back to each;
	//                a barrier ends the operation.
	//   "hypercube": log2(Procs) exchange steps; at step k each rank
	//                swaps its partial sum with rank^(1<<k) and adds the
	//                partner's (Procs must be a power of two).
	//   "onesided", "accumulate": the serial sum with one-sided MPI
	//                (globalsum_rma.go); MPI only.
	Method string
	// Native runs the native SCMP version (DMA blocks and flag words)
	// instead of the MPI one.
	Native bool
	// Seed draws the vectors.
	Seed uint64
	// Record, when set, makes the MPI version record its communication
	// and gets the trace after a successful run (the native version has
	// no MPI communication to record).
	Record func(*mpi.World)
}

const gsMaxN = 1 << 16

// Check validates cfg against m before anything runs.
func (cfg GlobalSumConfig) Check(m Machine) error {
	if err := checkProcs(m, "globalsum", cfg.Procs); err != nil {
		return err
	}
	switch {
	case cfg.N < 1 || cfg.N > gsMaxN:
		return fmt.Errorf("globalsum: N = %d: allowed 1..%d", cfg.N, gsMaxN)
	}
	switch cfg.Method {
	case "serial":
		return nil
	case "onesided", "accumulate":
		if cfg.Native {
			return fmt.Errorf("globalsum: Method = %q has no native version (it is the native serial sum's pattern written in MPI)", cfg.Method)
		}
		return nil
	case "hypercube":
		if cfg.Procs&(cfg.Procs-1) != 0 {
			return fmt.Errorf("globalsum: Procs = %d: allowed a power of two (1, 2, 4, 8, ...) for the hypercube method", cfg.Procs)
		}
		return nil
	}
	return fmt.Errorf("globalsum: Method = %q: allowed \"serial\", \"hypercube\", \"onesided\", \"accumulate\"", cfg.Method)
}

// gsVectors draws every rank's vector: integers in -100..100.
func gsVectors(procs, n int, seed uint64) ([][]float64, []float64) {
	rng := rand.New(rand.NewPCG(seed, 0x676c6f62616c))
	vs := make([][]float64, procs)
	sum := make([]float64, n)
	for p := range vs {
		vs[p] = make([]float64, n)
		for i := range vs[p] {
			vs[p][i] = float64(rng.IntN(201) - 100)
			sum[i] += vs[p][i]
		}
	}
	return vs, sum
}

// gsAdd adds n doubles of src to dst in simulated memory and returns the
// flops.
func gsAdd(dst, src []byte, n int) int64 {
	for i := 0; i < n; i++ {
		mmSet(dst, i, mmGet(dst, i)+mmGet(src, i))
	}
	return int64(n)
}

// RunGlobalSum runs the global sum on Procs ranks (or nodes) of a fresh
// machine built from m and checks every rank's result exactly. Cycles is
// when the last rank finished; Size is N.
func RunGlobalSum(m Machine, cfg GlobalSumConfig) (Result, error) {
	if err := cfg.Check(m); err != nil {
		return Result{}, err
	}
	vs, sum := gsVectors(cfg.Procs, cfg.N, cfg.Seed)
	res := Result{App: "globalsum-" + cfg.Method, Version: "mpi", Procs: cfg.Procs, Size: cfg.N}
	var out [][]byte
	var err error
	if cfg.Native {
		res.Version = "native"
		out, res.Cycles, err = gsNative(m, cfg, vs)
	} else if cfg.Method == "onesided" || cfg.Method == "accumulate" {
		out, res.Cycles, err = gsRMA(m, cfg, vs)
	} else {
		out, res.Cycles, err = gsMPI(m, cfg, vs)
	}
	if err != nil {
		return res, err
	}
	bad, maxErr := 0, 0.0
	for _, o := range out {
		for i, want := range sum {
			if d := math.Abs(mmGet(o, i) - want); d != 0 {
				bad++
				maxErr = max(maxErr, d)
			}
		}
	}
	res.Correct = bad == 0
	res.Detail = fmt.Sprintf("%d of %d result elements wrong on %d ranks (max error %g)", bad, cfg.N*cfg.Procs, cfg.Procs, maxErr)
	return res, nil
}

func gsMPI(m Machine, cfg GlobalSumConfig, vs [][]float64) ([][]byte, des.Time, error) {
	P, n := cfg.Procs, cfg.N
	out := make([][]byte, P)
	var last des.Time
	err := runAppMPI(m, P, cfg.Record, func(r *mpi.Rank, must func(error)) {
		me, comm := r.Rank(), r.CommWorld()
		v, tmp := r.MustAlloc(8*n), r.MustAlloc(8*n)
		for i, x := range vs[me] {
			v.SetFloat64(i, x)
		}
		if cfg.Method == "serial" {
			if me == 0 {
				for src := 1; src < P; src++ {
					_, err := r.Recv(tmp, n, datatype.Float64, src, 0, comm)
					must(err)
					r.Flops(gsAdd(v.Bytes, tmp.Bytes, n))
				}
				for dst := 1; dst < P; dst++ {
					must(r.Send(v, n, datatype.Float64, dst, 1, comm))
				}
			} else {
				must(r.Send(v, n, datatype.Float64, 0, 0, comm))
				_, err := r.Recv(v, n, datatype.Float64, 0, 1, comm)
				must(err)
			}
			must(r.Barrier(comm))
		} else {
			for k := 1; k < P; k <<= 1 {
				_, err := r.Sendrecv(v, n, datatype.Float64, me^k, k, tmp, n, datatype.Float64, me^k, k, comm)
				must(err)
				r.Flops(gsAdd(v.Bytes, tmp.Bytes, n))
			}
		}
		out[me] = v.Bytes
		last = max(last, r.Now())
	})
	if err != nil {
		return nil, 0, err
	}
	return out, last, nil
}

// Static-memory flag words of the native version. gsFlag+p is raised (to
// 1) on node 0 when node p's vector has arrived (serial), or on a node
// when the partner's vector of step k has arrived (hypercube, gsFlag+k);
// gsDone is raised on every node when node 0's sum has arrived.
const (
	gsFlag = 128
	gsDone = 127
)

// gsNative runs the native SCMP version: vectors move as DMA blocks into
// a per-sender (serial) or per-step (hypercube) slot of the receiver, each
// followed by a flag word that ordered delivery makes arrive after it.
func gsNative(mc Machine, cfg GlobalSumConfig, vs [][]float64) ([][]byte, des.Time, error) {
	m := mc.NewMachine()
	defer m.Close()
	P, n := cfg.Procs, cfg.N
	words := 2 * n
	out := make([][]byte, P)
	var last des.Time
	alloc := func(node *endpoint.Node, words int) (uint32, []byte) {
		addr, buf, err := node.Alloc(4 * words)
		mustOK(err)
		return addr, buf
	}
	var slots0 []uint32
	steps := 0
	for k := 1; k < P; k <<= 1 {
		steps++
	}
	for id := 0; id < P; id++ {
		node := m.Nodes[id]
		vAddr, v := alloc(node, words)
		for i, x := range vs[id] {
			mmSet(v, i, x)
		}
		out[id] = v
		// Receive slots: serial, node 0 has one per sender; hypercube,
		// every node has one per step. Same addresses on every node.
		nslots := steps
		if cfg.Method == "serial" {
			nslots = 0
			if id == 0 {
				nslots = P
			}
		}
		slotAddr := make([]uint32, nslots)
		slot := make([][]byte, nslots)
		for k := range slot {
			slotAddr[k], slot[k] = alloc(node, words)
		}
		if id == 0 {
			slots0 = slotAddr // node 0's addresses, known to every program
		}
		node.Start("globalsum", func(t *endpoint.Thread) {
			if cfg.Method == "serial" {
				if id == 0 {
					for src := 1; src < P; src++ {
						t.Poll(gsFlag+uint32(src), 1)
						t.Flops(gsAdd(v, slot[src], n))
					}
					// The result's arrival is the barrier's release.
					for dst := 1; dst < P; dst++ {
						mustOK(t.SendBlock(dst, vAddr, 1, vAddr, 1, words))
						mustOK(t.SendInt(dst, gsDone, 1))
					}
				} else {
					mustOK(t.SendBlock(0, slots0[id], 1, vAddr, 1, words))
					mustOK(t.SendInt(0, gsFlag+uint32(id), 1))
					t.Poll(gsDone, 1)
				}
			} else {
				for k := 0; k < steps; k++ {
					p := id ^ (1 << k)
					mustOK(t.SendBlock(p, slotAddr[k], 1, vAddr, 1, words))
					mustOK(t.SendInt(p, gsFlag+uint32(k), 1))
					t.Poll(gsFlag+uint32(k), 1)
					t.Flops(gsAdd(v, slot[k], n))
				}
			}
			last = max(last, t.Now())
		})
	}
	if err := m.Run(-1); err != nil {
		return nil, 0, err
	}
	return out, last, m.CheckQuiescent()
}
