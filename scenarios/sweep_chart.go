package scenarios

import (
	"fmt"
	"slices"
	"strings"
)

// fixedMachineText names the parts of the machine a sweep's points share:
// those of sc's Scenario.MachineText (or, for a noc workload, NocTitle)
// that no axis varies. "" when sc is nil or every part varies.
func (sc *Scenario) fixedMachineText(axes []string) string {
	if sc == nil {
		return ""
	}
	varies := func(keys ...string) bool {
		for _, k := range keys {
			// A preset sets the whole network, so it varies every part of it.
			if slices.Contains(axes, k) || strings.HasPrefix(k, "network.") && slices.Contains(axes, "network.preset") {
				return true
			}
		}
		return false
	}
	var parts []string
	if !varies("network.mesh", "network.topology") {
		parts = append(parts, sc.Network.text())
	}
	if sc.Workload.Kind == "noc" || sc.Workload.Kind == "" {
		if !varies("noc.packet_flits") {
			parts = append(parts, fmt.Sprintf("%d-flit packets", sc.Noc.PacketFlits))
		}
		if !varies("network.vcs", "network.vc_buf") {
			parts = append(parts, fmt.Sprintf("%d VCs x %d flits", sc.Network.VCs, sc.Network.VCBuf))
		}
		return strings.Join(parts, ", ")
	}
	if !varies("mpi.protocol") {
		parts = append(parts, sc.MPI.Protocol+" protocol")
	}
	if !varies("mpi.library") {
		lib := sc.MPI.Library
		if lib == "" {
			lib = "nocsim"
		}
		parts = append(parts, lib+" library")
	}
	return strings.Join(parts, ", ")
}

// axisUnit is the unit of a sweep axis, "section.key", as the key
// registries give it; "value" for a key they do not list.
func axisUnit(axis string) string {
	section, key, _ := strings.Cut(axis, ".")
	keys := WorkloadKeys
	for _, s := range Sections() {
		if s.Name == section {
			keys = s.Keys
		}
	}
	for _, k := range keys {
		if k.Name == key && k.Unit != "" {
			return k.Unit
		}
	}
	return "value"
}
