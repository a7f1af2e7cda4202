package scenarios

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/BurntSushi/toml"

	"nocsim/logp"
)

// ReadParams reads a parameters file (nocsim calibrate --out): TOML, or
// JSON when the name ends in .json. Unknown keys are errors; the
// parameters must describe a machine (logp.Params.Validate).
func ReadParams(path string) (logp.Params, error) {
	var p logp.Params
	data, err := os.ReadFile(path)
	if err != nil {
		return p, err
	}
	if strings.HasSuffix(path, ".json") {
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&p); err != nil {
			return p, fmt.Errorf("%s: %w", path, err)
		}
	} else {
		md, err := toml.Decode(string(data), &p)
		if err != nil {
			return p, fmt.Errorf("%s: %w", path, err)
		}
		if und := md.Undecoded(); len(und) > 0 {
			return p, fmt.Errorf("%s: unknown key %s (allowed: P, protocol, clock_hz, avg_hops, source, mesh, sizes, word_bytes, cooperative, [[segment]] with max_bytes, L, L_per_hop, o_s, o_r, g, G, O, handshake, L_post, L_cts, L_cts_per_hop, L_data, L_data_per_hop, o_cts, g_data)", path, und[0])
		}
	}
	if err := p.Validate(); err != nil {
		return p, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// workloadParams reads [workload] params (relative to the scenario file).
// A chip run checks them against itself as the CLI's --params is checked:
// another protocol is an error; the warnings (another mesh, unknown
// provenance) go into the run's summary. On the LogGOPS tier they are the
// machine, and nothing is compared.
func (sc *Scenario) workloadParams() (*logp.Params, []string, error) {
	path := sc.Workload.Params
	if path == "" {
		return nil, nil, nil
	}
	if !filepath.IsAbs(path) && sc.dir != "" {
		path = filepath.Join(sc.dir, path)
	}
	p, err := ReadParams(path)
	if err != nil {
		return nil, nil, &paramsError{err}
	}
	if sc.onTier() {
		return &p, nil, nil
	}
	ws, err := sc.ParamsAgainstRun(&p)
	if err != nil {
		return nil, nil, &paramsError{fmt.Errorf("%s: %w", path, err)}
	}
	return &p, ws, nil
}

// paramsError is a [workload] params file that cannot be used.
type paramsError struct{ err error }

func (e *paramsError) Error() string { return "[workload] params: " + e.err.Error() }
func (e *paramsError) Unwrap() error { return e.err }
