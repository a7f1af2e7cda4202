package scenarios

import (
	_ "embed"
	"fmt"
)

// ThesisMachineName is the embedded thesis machine's path in the
// repository, as titles and provenance name it.
const ThesisMachineName = "scenarios/thesis/scmp-thesis.toml"

//go:embed thesis/scmp-thesis.toml
var thesisMachine []byte

// ThesisMachine is the machine file `nocsim thesis fit` wrote, as
// embedded in the binary: `nocsim thesis` runs on it by default.
func ThesisMachine() []byte { return thesisMachine }

// CheckThesis checks every row's runs on its chip, as RunThesis will run
// them, without simulating: the machine, each run's configuration, and
// that it fits a tile's memory.
func CheckThesis(sc *Scenario, src Source, rows []ThesisRow) error {
	if err := sc.checkMachine(src); err != nil {
		return err
	}
	for _, r := range rows {
		s, err := thesisScenario(sc, r)
		if err != nil {
			return err
		}
		for _, native := range []bool{true, false} {
			if err := thesisCheckRun(&s, r, native); err != nil {
				return fmt.Errorf("table %s, size %d, P=%d: %w", r.Table, r.Size(), r.Procs, err)
			}
		}
	}
	return nil
}

// thesisCG is the CG run of a Table 5.1 row.
func thesisCG(r ThesisRow, native bool) CGConfig {
	n := max(r.Procs, r.Nonzeros/10) // INTERIM until the thesis CG lands
	return CGConfig{Procs: r.Procs, N: n, Nonzeros: r.Nonzeros, Tol: 1e-6, MaxIter: 1000, Native: native, Seed: 1}
}

// thesisQR is the QR run of a Table 5.2 row.
func thesisQR(r ThesisRow, native bool) QRConfig {
	g := "1d"
	if x, y, _ := ThesisGrid(r.Procs); x == y {
		g = "2d"
	}
	return QRConfig{Procs: r.Procs, N: r.Matrix, Native: native, Seed: 1, Grid: g}
}

func thesisCheckRun(s *Scenario, r ThesisRow, native bool) error {
	if r.Table == "5.1" {
		cfg := thesisCG(r, native)
		return cfg.validate(s)
	}
	return thesisQR(r, native).validate(s)
}

// runThesisVersion runs one version of a thesis row on its chip.
func runThesisVersion(sc *Scenario, r ThesisRow, native bool) (AppResult, error) {
	s, err := thesisScenario(sc, r)
	if err != nil {
		return AppResult{}, err
	}
	if r.Table == "5.1" {
		return RunCG(&s, thesisCG(r, native))
	}
	return RunQR(&s, thesisQR(r, native))
}
