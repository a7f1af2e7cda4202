package scenarios

import (
	"bytes"
	"os"
	"path/filepath"

	"nocsim/scenarios/report"
)

// WriteRecord puts the effective configuration (config.toml) and the
// provenance (meta.json) into the output directory. A sweep uses it: its
// directory fills point by point, so it cannot be staged whole.
func (sc *Scenario) WriteRecord(src Source, prov Provenance) error {
	dir := sc.OutputDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return sc.RecordTo(src, prov, func(name string, fill func(*bytes.Buffer) error) error {
		return WriteFile(filepath.Join(dir, name), fill)
	})
}

// RecordTo writes config.toml and meta.json through write: a run's
// staged directory, or a sweep's directory (WriteRecord, WriteRecordIn).
func (sc *Scenario) RecordTo(src Source, prov Provenance, write func(string, func(*bytes.Buffer) error) error) error {
	eff, err := sc.EffectiveTOML(src)
	if err != nil {
		return err
	}
	return RecordFiles(eff, sc.RunMeta(prov, nil), write)
}

// RunMeta is the run's meta.json: the provenance, the scenario's seeds,
// the sweep's repetitions and, once measured, its speed.
func (sc *Scenario) RunMeta(prov Provenance, speed *Speed) Meta {
	m := prov.Meta(sc.Name, sc.Workload.Kind, sc.Noc.Seed, sc.Workload.AppSeed)
	if len(sc.Sweep.Axis) > 0 || sc.Sweep.Reps > 1 {
		m.SweepReps = max(sc.Sweep.Reps, 1)
	}
	m.Speed = speed
	return m
}

// WriteSpeedIn rewrites dir's meta.json with the run's speed, once the run
// is done (a sweep's directory holds meta.json from its start).
func (sc *Scenario) WriteSpeedIn(dir string, prov Provenance, speed Speed) error {
	return WriteFile(filepath.Join(dir, "meta.json"), func(b *bytes.Buffer) error { return report.WriteJSON(b, sc.RunMeta(prov, &speed)) })
}
