package mpi

import (
	"errors"
	"strings"
	"testing"

	"nocsim/des"
	"nocsim/mpi/datatype"
	"nocsim/mpi/group"
	"nocsim/mpi/mpierr"
	"nocsim/router"
)

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		panic(err)
	}
}

// Every rank puts its vector into its right neighbour's window and gets
// its left neighbour's window back: both arrive word for word, under every
// protocol (RMA does not use the two-sided protocol, but the window's
// collectives do).
func TestPutGetMoveData(t *testing.T) {
	const n = 300 // float64s
	for _, proto := range Protocols {
		w := job(t, 4, 2, cfgFor(proto), nil)
		P := 8
		got := make([][]float64, P)
		put := make([][]float64, P)
		w.Launch(func(r *Rank) {
			me, c := r.Rank(), r.CommWorld()
			wbuf, src, dst := r.MustAlloc(8*n), r.MustAlloc(8*n), r.MustAlloc(8*n)
			for i := 0; i < n; i++ {
				wbuf.SetFloat64(i, float64(1000*me+i)) // what the left neighbour gets
				src.SetFloat64(i, float64(-1000*me-i-1))
			}
			win, err := r.WinCreate(wbuf, 8*n, 8, c)
			must(t, err)
			must(t, win.Fence())
			// Get first, from the left neighbour's still-untouched window;
			// the put goes to the right into the same window after a fence.
			must(t, r.Get(dst, n, datatype.Float64, (me+P-1)%P, 0, n, datatype.Float64, win))
			must(t, win.Fence())
			must(t, r.Put(src, n, datatype.Float64, (me+1)%P, 0, n, datatype.Float64, win))
			must(t, win.Fence())
			got[me], put[me] = make([]float64, n), make([]float64, n)
			for i := 0; i < n; i++ {
				got[me][i], put[me][i] = dst.Float64(i), wbuf.Float64(i)
			}
			must(t, r.WinFree(win))
		})
		if err := w.Run(); err != nil {
			t.Fatalf("%s: %v", proto, err)
		}
		if err := w.CheckQuiet(); err != nil {
			t.Fatalf("%s: %v", proto, err)
		}
		for me := 0; me < P; me++ {
			left := (me + P - 1) % P
			for i := 0; i < n; i++ {
				if got[me][i] != float64(1000*left+i) || put[me][i] != float64(-1000*left-i-1) {
					t.Fatalf("%s: rank %d element %d: got %v (want %v), window %v (want %v)", proto, me, i,
						got[me][i], float64(1000*left+i), put[me][i], float64(-1000*left-i-1))
				}
			}
		}
	}
}

// Strided origins and targets go through the DMA engine's strides: a
// column of a row-major matrix is put into a row of the target's and read
// back as a column again.
func TestPutGetStrided(t *testing.T) {
	const rows, cols = 40, 7
	col, err := datatype.TypeVector(rows, 1, cols, datatype.Int32)
	if err != nil {
		t.Fatal(err)
	}
	must(t, col.Commit())
	w := job(t, 4, 4, DefaultConfig(), nil)
	var win1, back []int32
	w.Launch(func(r *Rank) {
		me, c := r.Rank(), r.CommWorld()
		m := r.MustAlloc(4 * rows * cols)
		for i := 0; i < rows*cols; i++ {
			m.SetInt32(i, int32(100000*me+i))
		}
		out := r.MustAlloc(4 * rows * cols)
		win, err := r.WinCreate(m, 4*rows*cols, 4, c)
		must(t, err)
		must(t, win.Fence())
		if me == 0 {
			// Column 3 of rank 0's matrix into row 2 onwards (contiguous)
			// of rank 15's window.
			must(t, r.Put(datatype.Buffer{Addr: m.Addr + 3, Bytes: m.Bytes[12:]}, 1, col, 15, 2*cols, rows, datatype.Int32, win))
		}
		must(t, win.Fence())
		if me == 0 {
			// Column 5 of rank 15's window into column 1 of out.
			must(t, r.Get(datatype.Buffer{Addr: out.Addr + 1, Bytes: out.Bytes[4:]}, 1, col, 15, 5, 1, col, win))
		}
		must(t, win.Fence())
		if me == 15 {
			win1 = make([]int32, rows*cols)
			for i := range win1 {
				win1[i] = m.Int32(i)
			}
		}
		if me == 0 {
			back = make([]int32, rows*cols)
			for i := range back {
				back[i] = out.Int32(i)
			}
		}
		must(t, r.WinFree(win))
	})
	if err := w.Run(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < rows*cols; i++ {
		want := int32(100000*15 + i)
		if i >= 2*cols && i < 2*cols+rows {
			// Row 2 onwards for rows words: rank 0's column 3.
			want = int32((i-2*cols)*cols + 3)
		}
		if win1[i] != want {
			t.Fatalf("rank 15 window word %d = %d, want %d", i, win1[i], want)
		}
		wantBack := int32(0)
		if i%cols == 1 {
			wantBack = win1[(i/cols)*cols+5]
		}
		if back[i] != wantBack {
			t.Fatalf("rank 0 out word %d = %d, want %d", i, back[i], wantBack)
		}
	}
}

// Every rank accumulates its vector into rank 0's window with MPI_SUM
// (float64) and into a strided int32 vector with MPI_MAX: rank 0 ends
// with the exact sum and maximum. Many accumulates from many origins to
// the same elements must not lose an update.
func TestAccumulateSumAndMax(t *testing.T) {
	const n = 100
	stride, err := datatype.TypeVector(n, 1, 3, datatype.Int32)
	if err != nil {
		t.Fatal(err)
	}
	must(t, stride.Commit())
	w := job(t, 4, 4, DefaultConfig(), nil)
	P := 16
	var sum []float64
	var mx []int32
	w.Launch(func(r *Rank) {
		me, c := r.Rank(), r.CommWorld()
		wb := r.MustAlloc(8*n + 4*3*n)
		v, iv := r.MustAlloc(8*n), r.MustAlloc(4*n)
		for i := 0; i < n; i++ {
			v.SetFloat64(i, float64(me*i+1))
			iv.SetInt32(i, int32((me*7+i*3)%50-20))
		}
		win, err := r.WinCreate(wb, wb.Len(), 1, c)
		must(t, err)
		must(t, win.Fence())
		for k := 0; k < 2; k++ { // twice: the sum doubles
			must(t, r.Accumulate(v, n, datatype.Float64, 0, 0, n, datatype.Float64, datatype.OpSum, win))
		}
		must(t, r.Accumulate(iv, n, datatype.Int32, 0, 8*n, 1, stride, datatype.OpMax, win))
		must(t, win.Fence())
		if me == 0 {
			for i := 0; i < n; i++ {
				sum = append(sum, wb.Float64(i))
				mx = append(mx, wb.Int32(2*n+3*i))
			}
		}
		must(t, r.WinFree(win))
	})
	if err := w.Run(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		want, wmax := 0.0, int32(0) // the window starts at zero
		for p := 0; p < P; p++ {
			want += 2 * float64(p*i+1)
			wmax = max(wmax, int32((p*7+i*3)%50-20))
		}
		if sum[i] != want || mx[i] != wmax {
			t.Fatalf("element %d: sum %v (want %v), max %d (want %d)", i, sum[i], want, mx[i], wmax)
		}
	}
}

// Post-start-complete-wait: Start blocks until the target's Post, and a
// Put before Complete is in the target's window when Wait returns.
func TestPSCWOrdering(t *testing.T) {
	const delay = 20000
	w := job(t, 4, 4, DefaultConfig(), nil)
	var posted, started, waited des.Time
	var seen []uint32
	w.Launch(func(r *Rank) {
		me, c := r.Rank(), r.CommWorld()
		wb := r.MustAlloc(4 * 64)
		win, err := r.WinCreate(wb, wb.Len(), 4, c)
		must(t, err)
		switch me {
		case 0:
			r.Compute(delay)
			g, _ := group.NewGroup([]int{15})
			posted = r.Now()
			must(t, win.Post(g))
			must(t, win.Wait())
			waited = r.Now()
			for i := 0; i < 64; i++ {
				seen = append(seen, wb.Uint32(i))
			}
		case 15:
			src := r.MustAlloc(4 * 64)
			for i := 0; i < 64; i++ {
				src.SetUint32(i, uint32(7*i+1))
			}
			g, _ := group.NewGroup([]int{0})
			must(t, win.Start(g))
			started = r.Now()
			must(t, r.Put(src, 64, datatype.Uint32, 0, 0, 64, datatype.Uint32, win))
			must(t, r.Accumulate(src, 1, datatype.Uint32, 0, 63, 1, datatype.Uint32, datatype.OpSum, win))
			must(t, win.Complete())
		}
		must(t, win.Fence()) // both epochs closed: a fence may follow
		must(t, r.WinFree(win))
	})
	if err := w.Run(); err != nil {
		t.Fatal(err)
	}
	if started < posted {
		t.Errorf("Start returned at cycle %d, before the Post at %d", started, posted)
	}
	if waited <= started {
		t.Errorf("Wait returned at %d, not after the put started at %d", waited, started)
	}
	for i, v := range seen {
		want := uint32(7*i + 1)
		if i == 63 {
			want += 1 // the accumulate of element 0 onto the put's last word
		}
		if v != want {
			t.Fatalf("word %d after Wait = %d, want %d", i, v, want)
		}
	}
}

// A displacement outside the target's window is MPI_ERR_RMA_RANGE, on one
// line, and nothing is sent; an RMA call outside an epoch is
// MPI_ERR_RMA_SYNC.
func TestRMAErrors(t *testing.T) {
	w := job(t, 2, 2, DefaultConfig(), nil)
	errs := map[string]error{}
	w.Launch(func(r *Rank) {
		c := r.CommWorld()
		wb := r.MustAlloc(4 * (10 + r.Rank())) // windows of different sizes
		src := r.MustAlloc(64)
		win, err := r.WinCreate(wb, wb.Len(), 4, c)
		must(t, err)
		if r.Rank() == 0 {
			errs["sync"] = r.Put(src, 1, datatype.Int32, 1, 0, 1, datatype.Int32, win)
		}
		must(t, win.Fence())
		if r.Rank() == 0 {
			errs["range"] = r.Put(src, 2, datatype.Int32, 3, 12, 2, datatype.Int32, win) // rank 3's 13 words: 12..13 is out
			errs["ok"] = r.Put(src, 1, datatype.Int32, 3, 12, 1, datatype.Int32, win)    // its last word
			errs["neg"] = r.Get(src, 1, datatype.Int32, 1, -1, 1, datatype.Int32, win)   // before the window
			errs["acc"] = r.Accumulate(src, 4, datatype.Int32, 2, 9, 4, datatype.Int32, datatype.OpSum, win)
			errs["rank"] = r.Put(src, 1, datatype.Int32, 4, 0, 1, datatype.Int32, win)
		}
		must(t, win.Fence())
		must(t, r.WinFree(win))
	})
	if err := w.Run(); err != nil {
		t.Fatal(err)
	}
	want := map[string]mpierr.Class{"sync": mpierr.ErrRMASync, "range": mpierr.ErrRMARange, "neg": mpierr.ErrRMARange, "acc": mpierr.ErrRMARange, "rank": mpierr.ErrRank}
	for k, class := range want {
		var e *mpierr.Error
		if !errors.As(errs[k], &e) || e.Class != class {
			t.Errorf("%s: error %v, want class %v", k, errs[k], class)
			continue
		}
		if strings.Contains(e.Error(), "\n") {
			t.Errorf("%s: error on more than one line: %q", k, e.Error())
		}
	}
	if errs["ok"] != nil {
		t.Errorf("a put to the window's last word failed: %v", errs["ok"])
	}
}

// putArrival measures a lone Put of words words from rank 0 to rank dst
// on an idle 4x4 machine: the cycle the origin called Put and the cycle
// the target saw the last word land (polling the window).
func putArrival(t *testing.T, dst, words int) (called, seen des.Time) {
	t.Helper()
	w := job(t, 4, 4, DefaultConfig(), nil)
	w.Launch(func(r *Rank) {
		c := r.CommWorld()
		wb := r.MustAlloc(4 * words)
		win, err := r.WinCreate(wb, wb.Len(), 4, c)
		must(t, err)
		must(t, win.Fence())
		switch r.Rank() {
		case 0:
			src := r.MustAlloc(4 * words)
			for i := 0; i < words; i++ {
				src.SetUint32(i, uint32(i+1))
			}
			r.Compute(20000) // the fence's barrier traffic drains
			called = r.Now()
			must(t, r.Put(src, words, datatype.Uint32, dst, 0, words, datatype.Uint32, win))
		case dst:
			r.Thread().Poll(wb.Addr+uint32(words-1), uint32(words))
			seen = r.Now()
		default:
			r.Compute(100000) // out of the way until the put has landed
		}
		must(t, win.Fence())
		must(t, r.WinFree(win))
	})
	if err := w.Run(); err != nil {
		t.Fatal(err)
	}
	return called, seen
}

// A Put's time is the simulated DMA and network's: on an idle machine it
// lands when the call, the native send and the zero-load latency of a
// message of 2+words flits over the hops say, to within the target's
// wake-up (a thread dispatch and a poll turn). So it grows by a cycle a
// word and by the per-hop delay with distance.
func TestPutTimeIsTheNetworks(t *testing.T) {
	w := job(t, 4, 4, DefaultConfig(), nil)
	cs := w.M.CPU
	rs := router.DefaultSpec()
	slack := des.Time(cs.ThreadDispatchCycles + cs.PollCycles)
	for _, dst := range []int{1, 5, 15} {
		hops := w.M.Topo.Hops(0, dst)
		for _, words := range []int{16, 1000, 8000} {
			called, seen := putArrival(t, dst, words)
			issue := called + des.Time(cs.CallCycles+cs.NativeCallCycles+cs.SendCycles(2)+1)
			land := issue + rs.ZeroLoadLatency(hops, 2+words)
			if seen < land || seen > land+slack {
				t.Errorf("put of %d words over %d hops: seen at %d cycles after the call, formula %d (+ up to %d to wake)",
					words, hops, seen-called, land-called, slack)
			}
		}
	}
}

// A one-sided Put of n bytes lands sooner than a two-sided Send of the
// same n bytes completes at its receiver: it has no rendezvous.
func TestPutBeatsSend(t *testing.T) {
	for _, words := range []int{64, 4096} {
		called, seen := putArrival(t, 15, words)
		send := oneWay(t, DefaultConfig(), nil, 15, 4*words)
		if put := seen - called; put >= send {
			t.Errorf("%d words: put %d cycles, not below the send's %d", words, put, send)
		}
	}
}

// Same program, same result and time, run after run.
func TestRMADeterministic(t *testing.T) {
	run := func() (des.Time, float64) {
		w := job(t, 4, 4, DefaultConfig(), nil)
		var end des.Time
		var v float64
		w.Launch(func(r *Rank) {
			wb := r.MustAlloc(8 * 64)
			src := r.MustAlloc(8 * 64)
			for i := 0; i < 64; i++ {
				src.SetFloat64(i, float64(r.Rank()+i))
			}
			win, err := r.WinCreate(wb, wb.Len(), 8, r.CommWorld())
			must(t, err)
			must(t, win.Fence())
			must(t, r.Accumulate(src, 64, datatype.Float64, (r.Rank()*5)%16, 0, 64, datatype.Float64, datatype.OpSum, win))
			must(t, r.Put(src, 8, datatype.Float64, (r.Rank()+3)%16, 8, 8, datatype.Float64, win))
			must(t, win.Fence())
			if r.Rank() == 0 {
				v = wb.Float64(3) + wb.Float64(20)
			}
			must(t, r.WinFree(win))
			end = max(end, r.Now())
		})
		if err := w.Run(); err != nil {
			t.Fatal(err)
		}
		return end, v
	}
	e1, v1 := run()
	e2, v2 := run()
	if e1 != e2 || v1 != v2 {
		t.Errorf("two runs differ: %d cycles %v, %d cycles %v", e1, v1, e2, v2)
	}
}
