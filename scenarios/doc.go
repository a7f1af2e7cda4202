// Package scenarios turns what a user asks for (a TOML scenario file, the
// embedded default, or command-line flags) into validated simulation points,
// runs them in parallel across cores, and writes the result tables. Every
// error is found before any simulation starts.
package scenarios
