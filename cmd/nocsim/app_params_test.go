package main

import (
	"strings"
	"testing"
)

// --params predicts MPI runs from their recorded schedules; one-sided
// operations are not recorded, so a one-sided variant is refused before
// anything runs (exit 2, one line naming the flag, its value, the variant
// and what is allowed) instead of running without the prediction. A
// two-sided variant with the same file is accepted.
func TestAppParamsRefusedForOneSided(t *testing.T) {
	const params = "../../scenarios/examples/params/4x4-scmp.toml"
	for _, v := range [][]string{
		{"--app", "halo"},
		{"--app", "halo", "--variant", "fence"},
		{"--app", "globalsum", "--variant", "onesided"},
		{"--app", "globalsum", "--variant", "accumulate"},
		{"--app", "globalsum", "--variant", "rma"},
	} {
		args := append([]string{"app", "--quiet", "--mesh", "4x4", "--procs", "2,4", "--sizes", "8", "--params", params}, v...)
		code, stdout, stderr := nocsim(t, args...)
		line := strings.TrimSpace(stderr)
		if code != exitUsage || stdout != "" || strings.Contains(line, "\n") ||
			!strings.Contains(line, "--params = "+params) || !strings.Contains(line, "--variant") || !strings.Contains(line, "allowed with two-sided variants") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and one line naming --params, its value and what is allowed", v, code, stdout, stderr)
		}
	}
	validateOnly = true
	defer func() { validateOnly = false }()
	if code, _, stderr := nocsim(t, "app", "--quiet", "--mesh", "4x4", "--app", "globalsum", "--variant", "hypercube", "--procs", "2,4", "--sizes", "8", "--params", params); code != 0 {
		t.Errorf("a two-sided variant with --params: exit %d, %s", code, stderr)
	}
}
