package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"nocsim/config"
	"nocsim/router"
	"nocsim/scenarios"
)

// The configuration keys as flags: every workload command builds its
// scenario from --config (or the defaults) and these flags, with the
// keys' own names, units and checks.

func flagName(key string) string { return strings.ReplaceAll(key, "_", "-") }

// keyFlags makes one flag per configuration key of the named sections, so
// that flags and scenario files share names, units, defaults and
// validation. Keys in except are left out: a command whose own flag of
// that name means something else (coll's --procs is a list to sweep).
func keyFlags(sections []string, except ...string) []cli.Flag {
	var fs []cli.Flag
	for _, s := range scenarios.Sections() {
		if !slices.Contains(sections, s.Name) {
			continue
		}
		for _, k := range s.Keys {
			if slices.Contains(except, k.Name) {
				continue
			}
			usage := fmt.Sprintf("%s (%s; default %s; allowed %s)", k.Doc, k.Unit, k.Default, k.AllowedText())
			if k.Unit == "bool" {
				fs = append(fs, &boolKeyFlag{&cli.GenericFlag{Name: flagName(k.Name), Usage: usage, Category: s.Name, Value: &boolKeyValue{}}})
				continue
			}
			fs = append(fs, &cli.StringFlag{Name: flagName(k.Name), Usage: usage, Category: s.Name})
		}
	}
	return fs
}

// boolKeyFlag is the flag of a boolean configuration key: given bare
// (--preempt-threads) it means true, as a boolean flag does, and
// --preempt-threads=false turns the key off. Its value is kept as written
// and checked by the key's own validation (Scenario.Set), so a wrong value
// gets the key's one-line error, and, like every key flag, it is applied
// only when given, over --config.
type boolKeyFlag struct{ *cli.GenericFlag }

// TakesValue is false: help prints the flag without a placeholder.
func (f *boolKeyFlag) TakesValue() bool { return false }

// GetDefaultText is empty: the usage states the key's default already.
func (f *boolKeyFlag) GetDefaultText() string { return "" }

// String renders the help line from this type's methods (the embedded
// flag's String would use its own TakesValue and default text).
func (f *boolKeyFlag) String() string { return cli.FlagStringer(f) }

// boolKeyValue holds what was written. IsBoolFlag makes the flag package
// accept the flag bare, setting "true".
type boolKeyValue struct{ s string }

func (v *boolKeyValue) Set(s string) error { v.s = s; return nil }
func (v *boolKeyValue) String() string     { return v.s }
func (v *boolKeyValue) IsBoolFlag() bool   { return true }

// machineSections are the sections that describe the chip and its MPI.
var machineSections = []string{"network", "node", "mpi"}

// pricedSections are machineSections and [energy]: the keys of the
// commands whose results report energy (scenarios.EnergyKinds).
var pricedSections = []string{"network", "node", "mpi", "energy"}

// configFlag is --config of the commands that build their scenario from
// a file and flags.
var configFlag = &cli.StringFlag{Name: "config", Usage: "scenario TOML file; flags override its keys"}

// scenarioFrom builds the scenario from --config (or the defaults) and the
// key flags, and says where each key's value came from.
func scenarioFrom(c *cli.Context, except ...string) (scenarios.Scenario, scenarios.Source, error) {
	return scenarioOver(c, "", nil, except...)
}

// machineFrom is scenarioFrom with the machine checked (network, node,
// MPI), for the commands that check their own workload themselves.
func machineFrom(c *cli.Context) (scenarios.Scenario, scenarios.Source, error) {
	sc, src, err := scenarioFrom(c)
	if err == nil {
		if err = sc.CheckMachine(src); err != nil {
			err = usageErr("%v", err)
		}
	}
	return sc, src, err
}

// scenarioOver is scenarioFrom with the file base (named baseName) read
// in place of the defaults when --config is not given.
func scenarioOver(c *cli.Context, baseName string, base []byte, except ...string) (scenarios.Scenario, scenarios.Source, error) {
	// --preset is applied under the file, so that the file's keys (and the
	// other flags) override the preset's values.
	preset := ""
	if slices.Contains(c.LocalFlagNames(), "preset") {
		preset = strings.TrimSpace(c.String("preset"))
		if _, err := router.Preset(preset); err != nil {
			var ke *config.KeyError
			errors.As(err, &ke)
			return scenarios.Defaults(), nil, usageErr("--preset = %s: allowed %s", ke.Value, ke.Allowed)
		}
	}
	var r io.Reader
	path := c.String("config")
	if path != "" {
		f, err := os.Open(path)
		if err != nil {
			return scenarios.Defaults(), nil, usageErr("--config: %v", err)
		}
		defer f.Close()
		r = f
	} else if base != nil {
		r, path = bytes.NewReader(base), baseName
	}
	// The flags given, looked up once: urfave/cli's lookups are slow
	// enough to dominate validation if done per key.
	given := givenFlags(c)
	values := map[string]string{}
	for _, sk := range scenarios.Sections() {
		for _, k := range sk.Keys {
			if name := flagName(k.Name); given[name] && !slices.Contains(except, name) {
				values[k.Name] = c.String(name)
			}
		}
	}
	sc, src, err := scenarios.Build(r, path, preset, values, func(key string) string { return "--" + flagName(key) })
	if err != nil {
		return sc, nil, usageErr("%v", err)
	}
	return sc, src, nil
}

// flagError turns a check's KeyError into a usage error naming the flag
// when the key is one of the command's own flags (own), or where the
// value came from (a machine flag, a --config entry or a default).
func flagError(err error, src scenarios.Source, own ...string) error {
	var ke *config.KeyError
	if errors.As(err, &ke) {
		if slices.Contains(own, ke.Key) {
			return usageErr("--%s = %s: allowed %s", flagName(ke.Key), ke.Value, ke.Allowed)
		}
		if section, ok := scenarios.KeySection(ke.Key); ok && src != nil {
			return usageErr("%s = %s: allowed %s", src(section, ke.Key), ke.Value, ke.Allowed)
		}
	}
	return usageErr("%v", err)
}

// checkWorkers refuses a negative or absurd count of parallel runs.
func checkWorkers(c *cli.Context, name string) error {
	if n := c.Int(name); n < 0 || n > 4096 {
		return usageErr("--%s = %d: allowed 0 (one per core) .. 4096", name, n)
	}
	return nil
}
