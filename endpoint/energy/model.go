package energy

import (
	"embed"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"nocsim/config"
)

// Params are the [energy] keys a model is evaluated with.
type Params struct {
	Model    string  // a name in ModelNames, or the path of a model file (.toml)
	Tech     string  // technology node, a row of the model's table ("45nm")
	FlitBits int     // flit width (bits)
	TileMM   float64 // tile pitch (mm): a link between neighbouring routers is this long
	ClockHz  float64 // the machine's clock: cycles to seconds, for leakage and power
}

// The model names; None turns energy off.
const (
	None    = "none"
	DSENT   = "dsent"
	Noxim   = "noxim"
	BookSim = "booksim"
)

// ModelNames lists the built-in models, for errors and docs.
var ModelNames = []string{None, DSENT, Noxim, BookSim}

// Keys documents the [energy] keys.
var Keys = []config.Key{
	{Name: "energy_model", Unit: "name or file", Default: DSENT, Allowed: strings.Join(ModelNames, ", ") + ", or the path of a model file ending in .toml",
		Doc: "energy model the run's events are priced with: DSENT 0.91's per-event table, Noxim's shipped power.yaml, BookSim2's power module on its techfile, or your own file (docs/energy.md); none prints no energy"},
	{Name: "tech", Unit: "name", Default: "45nm", Allowed: "a technology node of the model's table (dsent: 45nm, 32nm, 22nm, 11nm; booksim: 32nm; noxim's names none and ignores it)",
		Doc: "technology node: the row of the model's table"},
	config.Range("flit_bits", "bits", "32", 1, 4096, "flit width the events are priced at (a row of the model's table; dsent: 32, 64, 128 at 45nm)"),
	config.Fractions("tile_mm", "mm", "1", 0.001, 1000, "tile pitch: a link between neighbouring routers is this long (two pitches on a cmesh, a folded torus or ring; a bus wire passing all N tiles is N-1 pitches)"),
}

// bad is the one-line error of a value a key does not allow.
func bad(key string, v any, allowed string) error {
	return &config.KeyError{Key: key, Value: fmt.Sprint(v), Allowed: allowed}
}

// Model prices an activity.
type Model interface {
	// Check says whether the model can price a network like n, before
	// anything runs: its tables must have rows for it.
	Check(n Network) error
	Energy(a Activity) (Breakdown, error)
}

// Network is what a model may need to know of a network before it runs:
// what Activity records of it besides the counts.
type Network struct {
	VCs, VCBuf int
	Ports      int     // the most ports a router has
	LinkTiles  float64 // link length in tile pitches (LinkTiles)
	Routing    string
	Tiles      bool // processors and memories are priced too (a machine, not synthetic traffic)
	// Bus is a bus: no routers (Ports 0), a bus interface per node, and
	// one wire LinkTiles long.
	Bus bool
}

// NetworkOf is the network an activity was counted on.
func NetworkOf(a Activity) Network {
	n := Network{VCs: a.VCs, VCBuf: a.VCBuf, LinkTiles: a.LinkTiles, Routing: a.Routing, Tiles: len(a.Tiles) > 0, Bus: a.Bus != nil}
	for _, r := range a.Routers {
		n.Ports = max(n.Ports, r.Ports)
	}
	return n
}

//go:embed models/*.toml
var builtin embed.FS

// Load returns the model p names, checked against p's keys: a built-in
// model's file, or the user's (p.Model ending in .toml). Errors name the
// key, its value and what is allowed.
func Load(p Params) (Model, error) {
	var data []byte
	name := p.Model
	switch {
	case strings.HasSuffix(p.Model, ".toml"):
		b, err := os.ReadFile(p.Model)
		if err != nil {
			return nil, bad("energy_model", strconv.Quote(p.Model), fmt.Sprintf("%s, or a readable model file (%v)", strings.Join(ModelNames, ", "), errText(err)))
		}
		data, name = b, filepath.Base(p.Model)
	case slices.Contains(ModelNames, p.Model) && p.Model != None:
		b, err := builtin.ReadFile("models/" + p.Model + ".toml")
		if err != nil {
			return nil, fmt.Errorf("energy model %q: %v", p.Model, err)
		}
		data = b
	default:
		return nil, bad("energy_model", strconv.Quote(p.Model), strings.Join(ModelNames, ", ")+", or the path of a model file ending in .toml")
	}
	if !(p.ClockHz > 0) {
		return nil, bad("clock_hz", p.ClockHz, "a positive frequency (Hz): energy turns cycles into seconds with it")
	}
	if !(p.TileMM > 0) {
		return nil, bad("tile_mm", p.TileMM, "a positive length (mm)")
	}
	var head struct {
		Kind string `toml:"kind"`
	}
	if _, err := toml.Decode(string(data), &head); err != nil {
		return nil, fmt.Errorf("energy model %s: %v", name, err)
	}
	switch head.Kind {
	case "per_event":
		return loadTable(name, data, p)
	case "noxim":
		return loadNoxim(name, data, p)
	case "booksim":
		return loadBookSim(name, data, p)
	}
	return nil, fmt.Errorf("energy model %s: kind = %q: allowed per_event, noxim, booksim", name, head.Kind)
}

// errText is an error's text without the path it repeats.
func errText(err error) string {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err.Error()
	}
	return err.Error()
}
