package main

import (
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// statesDefault finds a usage string's own statement of a default: the word
// "default" (urfave/cli appends "(default: X)" after the usage when the flag
// has a default text, so the two would repeat each other).
var statesDefault = regexp.MustCompile(`(?i)\bdefault\b`)

// cliPrintsDefault tells whether urfave/cli's help appends "(default: X)"
// to the flag's usage: it does for every flag with a non-empty default
// text, except a boolean flag with DisableDefaultText.
func cliPrintsDefault(f cli.Flag) (string, bool) {
	df, ok := f.(cli.DocGenerationFlag)
	if !ok {
		return "", false
	}
	if bf, ok := f.(*cli.BoolFlag); ok && bf.DisableDefaultText {
		return "", false
	}
	s := df.GetDefaultText()
	return s, s != ""
}

// walkFlags calls fn with every flag of the app and of every command and
// subcommand, named by the command line that takes it.
func walkFlags(app *cli.App, fn func(cmd string, f cli.Flag)) {
	for _, f := range app.Flags {
		fn("nocsim", f)
	}
	var walk func(prefix string, cs []*cli.Command)
	walk = func(prefix string, cs []*cli.Command) {
		for _, c := range cs {
			name := prefix + " " + c.Name
			for _, f := range c.Flags {
				fn(name, f)
			}
			walk(name, c.Subcommands)
		}
	}
	walk("nocsim", app.Commands)
}

// No help line states a default twice: a usage string that says what the
// default is must not also get cli's "(default: X)", and a usage that uses
// the word for something else ("BookSim2's default router") reads as a
// second default beside the key's own. The rendered line, as help prints
// it, names "default" at most once.
func TestHelpStatesEachDefaultOnce(t *testing.T) {
	walkFlags(newApp(io.Discard, io.Discard), func(cmd string, f cli.Flag) {
		line := f.String() // cli's help line: names, placeholder, usage and its "(default: X)"
		if n := len(statesDefault.FindAllString(line, -1)); n > 1 {
			d, _ := cliPrintsDefault(f)
			t.Errorf("%s --%s: \"default\" %d times (cli's default text %q): %s", cmd, f.Names()[0], n, d, line)
		}
	})
}

// placeholderWord is what a flag's placeholder (the back-quoted part of its
// usage, which cli prints after the flag's name) may be: one word such as
// FILE, DIR or XxY.
var placeholderWord = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_.]*$`)

// Every placeholder is one word: a back-quoted phrase in a usage string
// becomes the placeholder, so "parameters from `nocsim calibrate --out`"
// printed "--params nocsim calibrate --out".
func TestHelpPlaceholdersAreOneWord(t *testing.T) {
	walkFlags(newApp(io.Discard, io.Discard), func(cmd string, f cli.Flag) {
		df, ok := f.(cli.DocGenerationFlag)
		if !ok {
			return
		}
		if p := placeholder(df.GetUsage()); p != "" && !placeholderWord.MatchString(p) {
			t.Errorf("%s --%s: placeholder %q is not one word: %s", cmd, f.Names()[0], p, f.String())
		}
	})
}

// placeholder is what cli takes as a usage string's placeholder: the text
// between its first two back quotes.
func placeholder(usage string) string {
	_, rest, ok := strings.Cut(usage, "`")
	if !ok {
		return ""
	}
	p, _, ok := strings.Cut(rest, "`")
	if !ok {
		return ""
	}
	return p
}
