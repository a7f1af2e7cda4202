package main

import (
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"nocsim/scenarios"
)

// p2pOps are predict's point-to-point operations: one message pattern
// each, with no algorithm to choose.
var p2pOps = []string{"p2p", "pingpong"}

// checkPredictOp refuses, before anything is read or predicted, an --op
// predict does not know (the model's own error named no flag and left out
// p2p and pingpong), and --select for a point-to-point --op, which has no
// algorithms to choose between (it printed an empty table and exited 0).
func checkPredictOp(c *cli.Context) error {
	op := c.String("op")
	ops := append(slices.Clone(p2pOps), scenarios.CollOps...)
	if !slices.Contains(ops, op) {
		return usageErr("--op = %s: allowed %s", op, strings.Join(ops, ", "))
	}
	if c.IsSet("select") && slices.Contains(p2pOps, op) {
		return usageErr("--select with --op = %s: allowed with a collective --op (%s); a point-to-point message has no algorithm to choose",
			op, strings.Join(scenarios.CollOps, ", "))
	}
	return nil
}
