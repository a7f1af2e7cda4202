package scenarios

import (
	"strings"
	"testing"
)

// Every [node] and [mpi] key set from flag text gives the same scenario as
// the same value written in a file.
func TestNodeAndMPIKeysSetAndDecodeAgree(t *testing.T) {
	values := map[string][2]string{ // key: flag text, TOML text
		"thread_contexts": {"3", "3"}, "preempt_threads": {"true", "true"}, "clock_hz": {"2e9", "2e9"},
		"call_cycles": {"7", "7"}, "native_call_cycles": {"8", "8"}, "thread_create_cycles": {"9", "9"}, "thread_dispatch_cycles": {"11", "11"},
		"copy_cycles_per_word": {"2", "2"}, "send_flits_per_cycle": {"4", "4"}, "poll_cycles": {"6", "6"},
		"flop_cycles": {"3", "3"}, "mem_cycles": {"2", "2"}, "loop_cycles": {"4", "4"}, "kernel_call_cycles": {"5", "5"}, "procs": {"5", "5"}, "library": {"thesis", `"thesis"`}, "protocol": {"niu", `"niu"`}, "eager_bytes": {"64", "64"},
		"match_cycles": {"5", "5"}, "vector_dma": {"true", "true"}, "coll_long_bytes": {"8192", "8192"},
		"barrier": {"central", `"central"`}, "bcast": {"flat", `"flat"`}, "scatter": {"flat", `"flat"`},
		"gather": {"push", `"push"`}, "allgather": {"ring", `"ring"`}, "alltoall": {"bruck", `"bruck"`},
		"reduce": {"flat", `"flat"`}, "allreduce": {"ring", `"ring"`}, "reduce_scatter": {"ring", `"ring"`},
		"scan": {"chain", `"chain"`}, "optimal_L": {"12.5", "12.5"}, "optimal_o": {"3", "3.0"}, "optimal_g": {"0", "0.0"},
	}
	for _, sec := range Sections() {
		if sec.Name != "node" && sec.Name != "mpi" {
			continue
		}
		for _, k := range sec.Keys {
			v, ok := values[k.Name]
			if !ok {
				t.Fatalf("no test value for [%s] %s", sec.Name, k.Name)
			}
			set := Defaults()
			if err := set.Set(sec.Name, k.Name, v[0]); err != nil {
				t.Fatalf("Set(%s, %s, %s): %v", sec.Name, k.Name, v[0], err)
			}
			dec, src, err := Decode(strings.NewReader("["+sec.Name+"]\n"+k.Name+" = "+v[1]+"\n"), "t.toml")
			if err != nil {
				t.Fatal(err)
			}
			if set.Node != dec.Node || set.MPI != dec.MPI {
				t.Errorf("[%s] %s: Set gives %+v %+v, Decode %+v %+v", sec.Name, k.Name, set.Node, set.MPI, dec.Node, dec.MPI)
			}
			if d := Defaults(); set.Node == d.Node && set.MPI == d.MPI {
				t.Errorf("[%s] %s = %s changed nothing", sec.Name, k.Name, v[0])
			}
			if !strings.Contains(src(sec.Name, k.Name), "t.toml") {
				t.Errorf("source of %s: %q", k.Name, src(sec.Name, k.Name))
			}
		}
	}
}

// Bad [node] and [mpi] values are caught before anything runs, naming the
// key and where it came from.
func TestMachineChecks(t *testing.T) {
	for _, c := range []struct{ section, text, key string }{
		{"node", "thread_contexts = 0", "thread_contexts"},
		{"node", "clock_hz = -1.0", "clock_hz"},
		{"node", "send_flits_per_cycle = 0", "send_flits_per_cycle"},
		{"mpi", "procs = 65", "procs"},
		{"mpi", `protocol = "udp"`, "protocol"},
		{"mpi", "eager_bytes = -1", "eager_bytes"},
		{"mpi", "optimal_L = -1.0", "optimal_L"},
		{"mpi", "optimal_g = 2e9", "optimal_g"},
		{"mpi", `library = "mpich"`, "library"},
		{"mpi", "library = \"thesis\"\nbcast = \"binomial\"", "bcast"},
	} {
		sc, src, err := Decode(strings.NewReader("["+c.section+"]\n"+c.text+"\n"), "bad.toml")
		if err != nil {
			t.Fatal(err)
		}
		err = sc.CheckMachine(src)
		if err == nil || !strings.Contains(err.Error(), "bad.toml: ["+c.section+"] "+c.key) {
			t.Errorf("%s: error %v, want one naming bad.toml: [%s] %s", c.text, err, c.section, c.key)
		}
	}
}
