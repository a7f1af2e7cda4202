package sweep

import (
	"encoding/csv"
	"encoding/json"
	"nocsim/scenarios"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// resumeBase is a sweep of 2 rates x 2 VC counts x 2 repetitions, the
// points ordered rate-major: the first four are the 0.05 points.
const resumeBase = `name = "r"
[network]
mesh = "2x2"
[noc]
measure_cycles = 600
warmup_cycles = 100
drain_cycles = 300
[workload]
kind = "noc"
[sweep]
reps = 2
[[sweep.axis]]
key = "noc.rates"
values = [0.05, 0.1]
[[sweep.axis]]
key = "network.vcs"
values = [1, 2]
`

// expand loads a sweep file written into dir and expands it.
func expand(t *testing.T, dir, text string) ([]Point, []scenarios.Scenario) {
	t.Helper()
	pts, scs, _, _ := load(t, dir, text)
	return pts, scs
}

// load writes a sweep file into dir, loads it and expands it: the points,
// their scenarios, and the sweep's own scenario and sources.
func load(t *testing.T, dir, text string) ([]Point, []scenarios.Scenario, scenarios.Scenario, scenarios.Source) {
	t.Helper()
	path := filepath.Join(dir, "s.toml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	sc, src, err := scenarios.LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pts, scs, err := Points(&sc, src)
	if err != nil {
		t.Fatal(err)
	}
	return pts, scs, sc, src
}

// A sweep killed part way, its file then edited, and resumed gives exactly
// what a fresh run of the edited file gives: recorded points are reused
// only where their configuration is still a point of the sweep.
func TestSweepResumeAfterEdit(t *testing.T) {
	for _, c := range []struct {
		name, edited string
		want         ResumeCounts
	}{
		// Kept: the first 5 records (the four 0.05 points, one 0.1 point)
		// and half a line. Only the 0.05 points are still in the sweep.
		{"axis value changed", strings.Replace(resumeBase, "[0.05, 0.1]", "[0.05, 0.2]", 1),
			ResumeCounts{Reused: 4, Recomputed: 4, Dropped: 2}},
		// A fixed key changes every point's configuration.
		{"axis value and fixed key changed", strings.Replace(strings.Replace(resumeBase, "[0.05, 0.1]", "[0.05, 0.2]", 1), "measure_cycles = 600", "measure_cycles = 700", 1),
			ResumeCounts{Reused: 0, Recomputed: 8, Dropped: 6}},
		// The same file: everything recorded is reused.
		{"unchanged", resumeBase, ResumeCounts{Reused: 5, Recomputed: 3, Dropped: 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			killed, fresh := t.TempDir(), t.TempDir()
			pts, scs := expand(t, killed, resumeBase)
			out := filepath.Join(killed, "out")
			if _, _, err := Run(pts, scs, out, Options{Run: runRows, Workers: 2}); err != nil {
				t.Fatal(err)
			}
			log := filepath.Join(out, "points.jsonl")
			full, _ := os.ReadFile(log)
			lines := strings.SplitAfter(string(full), "\n")
			// A kill leaves whole lines and perhaps half of one.
			os.WriteFile(log, []byte(strings.Join(lines[:5], "")+lines[5][:len(lines[5])/2]), 0o644)

			pts, scs = expand(t, killed, c.edited)
			var got ResumeCounts
			calls := 0
			if _, _, err := Run(pts, scs, out, Options{Run: runRows, Workers: 2, Resume: true, Resumed: func(rc ResumeCounts) { got = rc; calls++ }}); err != nil {
				t.Fatal(err)
			}
			if calls != 1 || got != c.want {
				t.Errorf("resume counts %+v (reported %d times), want %+v", got, calls, c.want)
			}
			fpts, fscs := expand(t, fresh, c.edited)
			if _, _, err := Run(fpts, fscs, filepath.Join(fresh, "out"), Options{Run: runRows, Workers: 1}); err != nil {
				t.Fatal(err)
			}
			for _, f := range []string{"points.jsonl", "points.csv", "summary.csv"} {
				x, _ := os.ReadFile(filepath.Join(out, f))
				y, _ := os.ReadFile(filepath.Join(fresh, "out", f))
				if len(y) == 0 || string(x) != string(y) {
					t.Errorf("%s of the resumed sweep differs from a fresh run of the edited file:\n%s\nfresh:\n%s", f, x, y)
				}
			}
		})
	}
}

// The hash covers what a point computes, not where it is written.
func TestPointHash(t *testing.T) {
	base := scenarios.Defaults()
	h := PointHash(base)
	moved := base
	moved.Output.Dir, moved.Output.Plots = "elsewhere", false
	moved.Sweep.Reps = 7
	if PointHash(moved) != h {
		t.Error("[output] or [sweep] changed the point's hash")
	}
	for name, edit := range map[string]func(*scenarios.Scenario){
		"seed":          func(s *scenarios.Scenario) { s.Noc.Seed++ },
		"vcs":           func(s *scenarios.Scenario) { s.Network.VCs++ },
		"rates":         func(s *scenarios.Scenario) { s.Noc.Rates = []float64{0.5} },
		"workload kind": func(s *scenarios.Scenario) { s.Workload.Kind = "pingpong" },
		"clock":         func(s *scenarios.Scenario) { s.Node.ClockHz *= 2 },
	} {
		sc := base
		edit(&sc)
		if PointHash(sc) == h {
			t.Errorf("changing %s keeps the hash", name)
		}
	}
}

// A point with a saturated and an unsaturated rate row: only that row is
// marked, in the point's row statuses and in summary.csv.
func TestSweepSaturationPerRow(t *testing.T) {
	dir := t.TempDir()
	pts, scs := expand(t, dir, `name = "s"
[network]
mesh = "2x2"
[noc]
rates = [0.05, 1.5]
measure_cycles = 600
warmup_cycles = 100
drain_cycles = 300
[workload]
kind = "noc"
[[sweep.axis]]
key = "network.vcs"
values = [1, 2]
`)
	out := filepath.Join(dir, "out")
	got, _, err := Run(pts, scs, out, Options{Run: runRows})
	if err != nil {
		t.Fatal(err)
	}
	sawBoth := false
	for _, p := range got {
		var rows []struct {
			Saturated bool `json:"saturated"`
		}
		if err := json.Unmarshal(p.Rows, &rows); err != nil || len(rows) != 2 || len(p.RowStatus) != 2 {
			t.Fatalf("point %d: %d rows, row status %v (%v)", p.Index, len(rows), p.RowStatus, err)
		}
		for i, r := range rows {
			if want := map[bool]string{false: "ok", true: "saturated"}[r.Saturated]; p.RowStatus[i] != want {
				t.Errorf("point %d row %d: status %s, its row says saturated=%v", p.Index, i, p.RowStatus[i], r.Saturated)
			}
		}
		sawBoth = sawBoth || (!rows[0].Saturated && rows[1].Saturated)
	}
	if !sawBoth {
		t.Fatal("no point with a light and a saturated row: the test shows nothing")
	}
	f, _ := os.Open(filepath.Join(out, "summary.csv"))
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	for _, r := range recs[1:] {
		p := got[0]
		if r[col["network.vcs"]] == "2" {
			p = got[1]
		}
		row := map[string]int{"0": 0, "1": 1}[r[col["row"]]]
		if r[col["status"]] != p.RowStatus[row] {
			t.Errorf("summary row %v: status %s, the point's row is %s", r, r[col["status"]], p.RowStatus[row])
		}
	}
}

// points.csv has a header and one well-formed record per point; a failing
// point records the first line of its error, so the logs stay one line per
// point.
func TestSweepPointsCSVAndFailures(t *testing.T) {
	dir := t.TempDir()
	// A one-cycle watchdog reports a (false) deadlock with a multi-line
	// dump of the network: heads wait five cycles in routing, cycles in
	// which nothing moves.
	pts, scs := expand(t, dir, `name = "f"
[network]
mesh = "2x2"
route_delay = 5
[noc]
rates = [0.05]
measure_cycles = 600
warmup_cycles = 100
drain_cycles = 300
[workload]
kind = "noc"
[[sweep.axis]]
key = "noc.watchdog_cycles"
values = [1, 10000]
`)
	_, _, full := runRows(&scs[0])
	if full == nil || !strings.Contains(full.Error(), "\n") {
		t.Fatalf("want a multi-line error from the 1-cycle watchdog, got %v", full)
	}
	out := filepath.Join(dir, "out")
	got, _, err := Run(pts, scs, out, Options{Run: runRows})
	if err != nil {
		t.Fatal(err)
	}
	if want, _, _ := strings.Cut(full.Error(), "\n"); got[0].Status != "failed" || got[0].Error != strings.TrimSpace(want) {
		t.Errorf("failed point: status %s, error %q, want the first line %q", got[0].Status, got[0].Error, want)
	}
	if got[1].Status != "ok" {
		t.Errorf("the other point: %s %s", got[1].Status, got[1].Error)
	}
	log, _ := os.ReadFile(filepath.Join(out, "points.jsonl"))
	if n := strings.Count(string(log), "\n"); n != len(pts) {
		t.Errorf("points.jsonl has %d lines for %d points", n, len(pts))
	}
	f, _ := os.Open(filepath.Join(out, "points.csv"))
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(recs[0], ",")+"\n" != pointCSVHeader || len(recs) != 1+len(pts) {
		t.Fatalf("points.csv: header %v, %d records for %d points", recs[0], len(recs)-1, len(pts))
	}
	for i, r := range recs[1:] {
		if r[0] != itoa(got[i].Index) || r[3] != got[i].ConfigHash || r[4] != got[i].Status || r[5] != got[i].Error {
			t.Errorf("points.csv record %v does not match point %+v", r, got[i])
		}
	}
	summary, _ := os.ReadFile(filepath.Join(out, "summary.csv"))
	if !strings.Contains(string(summary), "\n1,,,failed,1,,,\n") {
		t.Errorf("summary.csv does not mark the failed setting:\n%s", summary)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }
