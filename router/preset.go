package router

import (
	"nocsim/config"
	"strconv"
	"strings"
)

// Presets name whole router configurations. "scmp" is DefaultSpec, the
// SCMP-like router; "booksim" is what BookSim2's default input-queued
// router does, so that results can be set against BookSim's.
const (
	PresetSCMP    = "scmp"
	PresetBookSim = "booksim"
)

// PresetNames lists the presets, the default first.
var PresetNames = []string{PresetSCMP, PresetBookSim}

// PresetKeys are the keys a preset sets. The buffers (vcs, vc_buf) are not
// among them: they are what a study varies, and BookSim's default of 16
// VCs is beyond MaxVCs.
var PresetKeys = []string{
	"route_delay", "vc_alloc_delay", "switch_alloc_delay", "switch_delay",
	"link_latency", "credit_delay", "link_flits_per_cycle",
	"inject_flits_per_cycle", "eject_flits_per_cycle", "inject_latency", "eject_latency",
	"vc_alloc", "allocator",
}

// Preset returns the spec a preset names; fields outside PresetKeys are
// DefaultSpec's.
//
// booksim: one cycle each for route computation, VC allocation, switch
// allocation and switch traversal, one-cycle links, BookSim's credit loop
// (credit_delay 2 here is BookSim's credit_delay = 0: its credits take two
// cycles from the downstream switch to the upstream allocator), one flit
// per cycle on every link and into and out of each router, BookSim's
// default one-iteration iSLIP VC and switch allocators, and two
// cycles from the NIU into the router (BookSim's NI plus injection
// channel). Its zero-load latency is then BookSim's 5*D + 7 + (L-1) for D
// router-to-router hops and L flits: ZeroLoadLatency gives
// 2 + 4*(D+1) + D + 1 + (L-1).
func Preset(name string) (Spec, error) {
	s := DefaultSpec()
	switch name {
	case PresetSCMP:
	case PresetBookSim:
		s.RouteDelay, s.VCAllocDelay, s.SwitchAllocDelay, s.SwitchDelay = 1, 1, 1, 1
		s.LinkLatency, s.CreditDelay, s.LinkWidth = 1, 2, 1
		s.InjectWidth, s.EjectWidth = 1, 1
		s.InjectLatency, s.EjectLatency = 2, 1
		s.VCAlloc, s.Allocator = VCAllocRoundRobin, AllocISLIP
	default:
		return s, &config.KeyError{Key: "preset", Value: strconv.Quote(name), Allowed: strings.Join(PresetNames, ", ")}
	}
	return s, nil
}
