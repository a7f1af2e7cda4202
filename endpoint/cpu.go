package endpoint

import (
	"fmt"
	"math"

	"nocsim/des"
	"nocsim/router"
)

// CPUSpec is the processor's configuration: thread contexts and the cost,
// in cycles, of everything software does. Library code charges these; a
// program charges its own computation.
type CPUSpec struct {
	ThreadContexts int     `toml:"thread_contexts"`
	PreemptThreads bool    `toml:"preempt_threads"`
	ClockHz        float64 `toml:"clock_hz"`
	CallCycles     int64   `toml:"call_cycles"`
	// NativeCallCycles is a native SCMP library call (createThread,
	// sendDataIntValue, sendDataBlockNB): native programs make them, and
	// so does the MPI library for its own messages. It defaults to
	// call_cycles's default; a machine may price the two apart (the
	// thesis's native code called thin wrappers around SEND instructions,
	// its MPI library full C functions).
	NativeCallCycles     int64 `toml:"native_call_cycles"`
	ThreadCreateCycles   int64 `toml:"thread_create_cycles"`
	ThreadDispatchCycles int64 `toml:"thread_dispatch_cycles"`
	CopyCyclesPerWord    int64 `toml:"copy_cycles_per_word"`
	SendFlitsPerCycle    int   `toml:"send_flits_per_cycle"`
	PollCycles           int64 `toml:"poll_cycles"`
	// The processor cost model by operation class (thesis section 5 and
	// issue 15): a kernel counts what its loops do (Ops) and Charge turns
	// the counts into cycles. Costs are average cycles per operation, so
	// they may be fractions (a dual-issue core's 0.5 cycles a flop; a
	// fitted machine's 2.37); a charge is rounded to whole cycles. The
	// three beside flop_cycles default to 0, so a kernel charging its
	// flops through Charge costs exactly what Flops charged before.
	FlopCycles       float64 `toml:"flop_cycles"`
	MemCycles        float64 `toml:"mem_cycles"`
	LoopCycles       float64 `toml:"loop_cycles"`
	KernelCallCycles float64 `toml:"kernel_call_cycles"`
}

// Ops counts a kernel's work by operation class, as its code does it.
type Ops struct {
	Flops int64 // floating-point operations
	Mem   int64 // 32-bit words loaded or stored (a double is two)
	Iters int64 // loop iterations (the increment, compare and branch)
	Calls int64 // calls the kernel makes to its own functions
}

// Add returns the sum of two counts.
func (o Ops) Add(p Ops) Ops {
	return Ops{o.Flops + p.Flops, o.Mem + p.Mem, o.Iters + p.Iters, o.Calls + p.Calls}
}

// Cycles is what the counts cost on this processor, to the nearest cycle.
func (s CPUSpec) Cycles(o Ops) int64 {
	return int64(math.Round(float64(o.Flops)*s.FlopCycles + float64(o.Mem)*s.MemCycles +
		float64(o.Iters)*s.LoopCycles + float64(o.Calls)*s.KernelCallCycles))
}

// Charge occupies the processor for what the counts cost (one Compute).
func (t *Thread) Charge(o Ops) { t.Compute(t.node.cpu.Cycles(o)) }

// DefaultCPUSpec is a simple in-order core at 1 GHz with SCMP's eight
// thread contexts and two-flit-per-cycle send instructions.
func DefaultCPUSpec() CPUSpec {
	return CPUSpec{
		ThreadContexts: 8, ClockHz: 1e9,
		CallCycles: 20, NativeCallCycles: 20, ThreadCreateCycles: 4, ThreadDispatchCycles: 10,
		CopyCyclesPerWord: 1, SendFlitsPerCycle: 2, PollCycles: 4, FlopCycles: 1,
	}
}

// CPUKeys documents the [node] keys.
var CPUKeys = []router.Key{
	{Name: "thread_contexts", Unit: "threads", Default: "8", Allowed: "1..1024", Doc: "contexts for threads created by THREAD messages (the main thread has its own); when all are busy, THREAD messages wait in the NIU and back-pressure the network"},
	{Name: "preempt_threads", Unit: "bool", Default: "false", Allowed: "true, false", Doc: "THREAD messages preempt the main thread's computation (the thesis's proposed redesign) instead of waiting for it to yield"},
	{Name: "clock_hz", Unit: "Hz", Default: "1e9", Allowed: "1e6..1e12", Doc: "processor and network clock; converts cycles to seconds (MPI_Wtime) at the edges"},
	{Name: "call_cycles", Unit: "cycles", Default: "20", Allowed: "0..1000000", Doc: "overhead of each MPI library call (and of each call the thesis library makes inside one)"},
	{Name: "native_call_cycles", Unit: "cycles", Default: "20", Allowed: "0..1000000", Doc: "overhead of each native SCMP library call (createThread, sendDataIntValue, sendDataBlockNB), by native programs and by the MPI library for its own messages"},
	{Name: "thread_create_cycles", Unit: "cycles", Default: "4", Allowed: "0..1000000", Doc: "from a THREAD message's tail to its thread being ready to run"},
	{Name: "thread_dispatch_cycles", Unit: "cycles", Default: "10", Allowed: "0..1000000", Doc: "processor time to switch to another thread"},
	{Name: "copy_cycles_per_word", Unit: "cycles/word", Default: "1", Allowed: "0..1000000", Doc: "copying or packing memory by the processor"},
	{Name: "send_flits_per_cycle", Unit: "flits/cycle", Default: "2", Allowed: "1..16", Doc: "send instructions (SEND2) building a message flit by flit"},
	{Name: "poll_cycles", Unit: "cycles", Default: "4", Allowed: "0..1000000", Doc: "one turn of a wait loop (suspendThread and a flag check)"},
	{Name: "flop_cycles", Unit: "cycles/flop", Default: "1", Allowed: "0..1e6, fractions allowed", Doc: "a floating-point operation charged by Flops (average cycles; a charge is rounded to whole cycles)"},
	{Name: "mem_cycles", Unit: "cycles/word", Default: "0", Allowed: "0..1e6, fractions allowed", Doc: "a 32-bit word a kernel loads or stores (a double is two), charged by the application kernels' operation counts"},
	{Name: "loop_cycles", Unit: "cycles/iteration", Default: "0", Allowed: "0..1e6, fractions allowed", Doc: "a loop iteration of an application kernel (its increment, compare and branch)"},
	{Name: "kernel_call_cycles", Unit: "cycles/call", Default: "0", Allowed: "0..1e6, fractions allowed", Doc: "a call an application kernel makes to its own functions (library calls cost call_cycles)"},
}

// Validate checks every field against CPUKeys.
func (s CPUSpec) Validate() error {
	for _, c := range []struct {
		key    string
		v      int64
		lo, hi int64
	}{
		{"thread_contexts", int64(s.ThreadContexts), 1, 1024},
		{"call_cycles", s.CallCycles, 0, 1e6},
		{"native_call_cycles", s.NativeCallCycles, 0, 1e6},
		{"thread_create_cycles", s.ThreadCreateCycles, 0, 1e6},
		{"thread_dispatch_cycles", s.ThreadDispatchCycles, 0, 1e6},
		{"copy_cycles_per_word", s.CopyCyclesPerWord, 0, 1e6},
		{"send_flits_per_cycle", int64(s.SendFlitsPerCycle), 1, 16},
		{"poll_cycles", s.PollCycles, 0, 1e6},
	} {
		if err := router.CheckRange(c.key, c.v, c.lo, c.hi); err != nil {
			return err
		}
	}
	for _, c := range []struct {
		key string
		v   float64
	}{{"flop_cycles", s.FlopCycles}, {"mem_cycles", s.MemCycles}, {"loop_cycles", s.LoopCycles}, {"kernel_call_cycles", s.KernelCallCycles}} {
		if !(c.v >= 0 && c.v <= 1e6) { // NaN fails both
			return &router.KeyError{Key: c.key, Value: fmt.Sprint(c.v), Allowed: "0..1e6 cycles (fractions allowed)"}
		}
	}
	if !(s.ClockHz >= 1e6 && s.ClockHz <= 1e12) {
		return &router.KeyError{Key: "clock_hz", Value: fmt.Sprint(s.ClockHz), Allowed: "1e6..1e12"}
	}
	return nil
}

// Seconds converts cycles to seconds at the configured clock.
func (s CPUSpec) Seconds(c des.Time) float64 { return float64(c) / s.ClockHz }

// SendCycles is the processor time to build a message of flits flits with
// send instructions.
func (s CPUSpec) SendCycles(flits int) int64 {
	return int64((flits + s.SendFlitsPerCycle - 1) / s.SendFlitsPerCycle)
}
