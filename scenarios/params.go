package scenarios

import (
	"fmt"
	"path/filepath"

	"nocsim/logp"
)

// WorkloadParams reads [workload] params (relative to the scenario file).
// A chip run checks them against itself as the CLI's --params is checked:
// another protocol is an error; the warnings (another mesh, unknown
// provenance) go into the run's summary. On the LogGOPS tier they are the
// machine, and nothing is compared.
func (sc *Scenario) WorkloadParams() (*logp.Params, []string, error) {
	path := sc.Workload.Params
	if path == "" {
		return nil, nil, nil
	}
	if !filepath.IsAbs(path) && sc.dir != "" {
		path = filepath.Join(sc.dir, path)
	}
	p, err := logp.ReadParams(path)
	if err != nil {
		return nil, nil, &paramsError{err}
	}
	if sc.OnTier() {
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
