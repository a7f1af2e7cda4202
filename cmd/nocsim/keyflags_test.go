package main

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"nocsim/scenarios"
)

// Every boolean configuration key's flag works bare (--preempt-threads
// sets true), with =true and =false, is listed in help without a value
// placeholder, and refuses any other value with the key's one-line error.
func TestBoolKeyFlagsWorkBare(t *testing.T) {
	n := 0
	for _, s := range scenarios.Sections() {
		for _, k := range s.Keys {
			if k.Unit != "bool" {
				continue
			}
			n++
			name := flagName(k.Name)
			for _, c := range []struct {
				arg, value string // value: what the key must then hold ("" = refused)
			}{
				{"--" + name, "true"},
				{"--" + name + "=true", "true"},
				{"--" + name + "=false", "false"},
				{"--" + name + "=maybe", ""},
			} {
				var got scenarios.Scenario
				var out, errb bytes.Buffer
				app := newApp(&out, &errb)
				app.Commands = []*cli.Command{{
					Name:  "probe",
					Flags: keyFlags([]string{s.Name}),
					Action: func(c *cli.Context) error {
						sc, _, err := scenarioFrom(c)
						got = sc
						return err
					},
				}}
				code := 0
				if err := app.Run([]string{"nocsim", "probe", c.arg}); err != nil {
					code = exitUsage
					errb.WriteString(err.Error())
				}
				if c.value == "" {
					msg := errb.String()
					if code != exitUsage || strings.Contains(msg, "\n") || !strings.Contains(msg, "--"+name) || !strings.Contains(msg, "maybe") || !strings.Contains(msg, "true or false") {
						t.Errorf("%s: error %q; want one line naming --%s, maybe and true or false", c.arg, msg, name)
					}
					continue
				}
				want := scenarios.Defaults()
				if err := want.Set(s.Name, k.Name, c.value); err != nil {
					t.Fatal(err)
				}
				if code != 0 || !reflect.DeepEqual(got, want) {
					t.Errorf("%s: error %q; the scenario differs from [%s] %s = %s", c.arg, errb.String(), s.Name, k.Name, c.value)
				}
			}
			for _, f := range keyFlags([]string{s.Name}) {
				if f.Names()[0] == name && strings.Contains(f.String(), name+" value") {
					t.Errorf("--%s: help shows a value placeholder: %s", name, f.String())
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no boolean key among the sections' flags: the test checks nothing")
	}
}
