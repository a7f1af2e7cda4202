// Package scenarios is the scenario configuration: a TOML scenario file,
// the embedded default or command-line flags decoded into a Scenario, its
// keys set and checked (every error found before any simulation starts),
// the machine it describes built, its sweep axes expanded, and the
// provenance and output directory of its results. What a run does with
// it is package study's.
package scenarios
