package sweep

import (
	"encoding/json"
	"errors"
	"fmt"
	"nocsim/scenarios"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestParseShard(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Shard
		ok   bool
	}{
		{"0/1", Shard{0, 1}, true},
		{"3/4", Shard{3, 4}, true},
		{" 1/2 ", Shard{1, 2}, true},
		{"99999/100000", Shard{99999, 100000}, true},
		{"4/4", Shard{}, false},
		{"-1/2", Shard{}, false},
		{"0/0", Shard{}, false},
		{"0/100001", Shard{}, false},
		{"1", Shard{}, false},
		{"", Shard{}, false},
		{"a/b", Shard{}, false},
		{"1/2/3", Shard{}, false},
		{"1/ 2", Shard{}, false},
	} {
		got, err := ParseShard(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("ParseShard(%q) = %v, %v; want %v (ok %v)", c.in, got, err, c.want, c.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "0 <= i < n") {
			t.Errorf("ParseShard(%q): error %q does not say what is allowed", c.in, err)
		}
	}
}

// Whatever the text, a shard is either refused or valid and reads back
// from its own String.
func FuzzParseShard(f *testing.F) {
	for _, s := range []string{"0/1", "3/4", "4/4", "-0/1", "+1/2", "1e3/2000", "0x1/2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sh, err := ParseShard(s)
		if err != nil {
			return
		}
		if sh.N < 1 || sh.N > MaxShards || sh.I < 0 || sh.I >= sh.N {
			t.Fatalf("%q accepted as %+v", s, sh)
		}
		if again, err := ParseShard(sh.String()); err != nil || again != sh {
			t.Fatalf("%q: %v does not read back (%v, %v)", s, sh, again, err)
		}
	})
}

// Every point is in exactly one shard, shards differ in size by at most
// one point, and a point's shard is the same whether it is computed from
// its index alone or by selecting from the whole expansion.
func TestShardPartition(t *testing.T) {
	pts, scs := expand(t, t.TempDir(), resumeBase)
	for n := 1; n <= len(pts)+2; n++ {
		count := make([]int, len(pts))
		sizes := map[int]bool{}
		for i := 0; i < n; i++ {
			s := Shard{i, n}
			sp, ss := s.Select(pts, scs)
			if len(sp) != len(ss) {
				t.Fatalf("%v: %d points, %d scenarios", s, len(sp), len(ss))
			}
			sizes[len(sp)] = true
			for k, p := range sp {
				count[p.Index]++
				if !s.Owns(p.Index) || PointHash(ss[k]) != p.ConfigHash || pts[p.Index].ConfigHash != p.ConfigHash {
					t.Errorf("%v: point %d selected with the wrong scenario or owner", s, p.Index)
				}
			}
		}
		for i, c := range count {
			if c != 1 {
				t.Errorf("n=%d: point %d is in %d shards", n, i, c)
			}
		}
		lo, hi := len(pts), 0
		for k := range sizes {
			lo, hi = min(lo, k), max(hi, k)
		}
		if hi-lo > 1 {
			t.Errorf("n=%d: shard sizes from %d to %d", n, lo, hi)
		}
	}
}

// runShard runs one shard of the sweep file in dir as nocsim sweep
// --shard does, into out.
func runShard(t *testing.T, dir, text string, s Shard, out string, prov scenarios.Provenance) {
	t.Helper()
	pts, scs, sc, src := load(t, dir, text)
	total := len(pts)
	pts, scs = s.Select(pts, scs)
	if err := StartShard(out); err != nil {
		t.Fatal(err)
	}
	if err := sc.WriteRecordIn(out, src, prov); err != nil {
		t.Fatal(err)
	}
	pts, _, err := Run(pts, scs, out, Options{Run: runRows, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if err := FinishShard(&sc, out, s, pts, total); err != nil {
		t.Fatal(err)
	}
}

var testProv = scenarios.Provenance{Version: "test", Revision: "r1", Modified: "false", GoVersion: "go-test"}

func shardProv(s Shard, out string) scenarios.Provenance {
	p := testProv
	p.CommandLine = []string{"nocsim", "sweep", "--quiet", "--jobs", "3", "--shard", s.String(), "--out=" + out, "s.toml"}
	return p
}

// Merging the shards of a sweep gives exactly the files of the sweep run
// on one machine, for any number of shards (more shards than points
// included), whatever order the shard directories are given in.
func TestMergeEqualsLocalRun(t *testing.T) {
	base := t.TempDir()
	pts, scs := expand(t, base, resumeBase)
	local := filepath.Join(base, "local")
	sc, src, err := scenarios.LoadFile(filepath.Join(base, "s.toml"))
	if err != nil {
		t.Fatal(err)
	}
	prov := testProv
	prov.CommandLine = []string{"nocsim", "sweep", "--quiet", "s.toml"}
	if err := sc.WriteRecordIn(local, src, prov); err != nil {
		t.Fatal(err)
	}
	lpts, _, err := Run(pts, scs, local, Options{Run: runRows, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	ch, ok := Chart(lpts, sc.Name, &sc)
	if !ok {
		t.Fatal("the local sweep draws no chart")
	}
	if err := ch.Save(filepath.Join(local, "sweep.png"), 0, 0); err != nil {
		t.Fatal(err)
	}
	want := readDir(t, local)
	for _, n := range []int{1, 2, 3, 11} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			dir := t.TempDir()
			var shards []string
			for i := n - 1; i >= 0; i-- { // given in reverse: order must not matter
				s := Shard{i, n}
				d := filepath.Join(dir, s.DirName())
				runShard(t, dir, resumeBase, s, d, shardProv(s, d))
				shards = append(shards, d)
			}
			out := filepath.Join(dir, "merged")
			res, err := Merge(shards, out)
			if err != nil {
				t.Fatal(err)
			}
			if res.Points != len(pts) || !res.Chart || len(res.Files) != len(want) {
				t.Errorf("merge result %+v; want %d points, a chart and %d files", res, len(pts), len(want))
			}
			got := readDir(t, out)
			for name, w := range want {
				g := got[name]
				if name == "meta.json" {
					g, w = withoutDate(t, g), withoutDate(t, w)
				}
				if g == "" || g != w {
					t.Errorf("%s of the merged shards differs from the local run:\n%.600s\nlocal:\n%.600s", name, g, w)
				}
			}
			if len(got) != len(want) {
				t.Errorf("merged files %v, local %v", keys(got), keys(want))
			}
		})
	}
}

func readDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, e := range es {
		if e.Type().IsRegular() {
			b, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			m[e.Name()] = string(b)
		}
	}
	return m
}

func keys(m map[string]string) []string {
	var k []string
	for n := range m {
		k = append(k, n)
	}
	slices.Sort(k)
	return k
}

// withoutDate blanks meta.json's wall-clock fields.
func withoutDate(t *testing.T, s string) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("meta.json: %v", err)
	}
	if _, ok := m["date"]; !ok {
		t.Fatal("meta.json has no date")
	}
	// speed is written only by the command, once its run is done.
	for _, k := range scenarios.MetaWallClockKeys {
		delete(m, k)
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// A merge that cannot give the whole sweep refuses, names what is wrong,
// and writes nothing.
func TestMergeRefusals(t *testing.T) {
	dir := t.TempDir()
	shard := func(name, text string, s Shard, prov func(Shard, string) scenarios.Provenance) string {
		d := filepath.Join(dir, name)
		runShard(t, filepath.Join(dir), text, s, d, prov(s, d))
		return d
	}
	s0 := shard("a0", resumeBase, Shard{0, 2}, shardProv)
	s1 := shard("a1", resumeBase, Shard{1, 2}, shardProv)
	edited := strings.Replace(resumeBase, "measure_cycles = 600", "measure_cycles = 700", 1)
	e1 := shard("e1", edited, Shard{1, 2}, shardProv)
	t1 := shard("t1", resumeBase, Shard{1, 3}, shardProv)
	other := shard("b1", resumeBase, Shard{1, 2}, func(s Shard, d string) scenarios.Provenance {
		p := shardProv(s, d)
		p.Revision = "r2"
		return p
	})
	copyDir := func(from, name string, edit func(d string)) string {
		d := filepath.Join(dir, name)
		os.MkdirAll(d, 0o755)
		for n, text := range readDir(t, from) {
			os.WriteFile(filepath.Join(d, n), []byte(text), 0o644)
		}
		edit(d)
		return d
	}
	unfinished := copyDir(s1, "unfinished", func(d string) { os.Remove(filepath.Join(d, ShardManifestFile)) })
	short := copyDir(s1, "short", func(d string) {
		b, _ := os.ReadFile(filepath.Join(d, "points.jsonl"))
		lines := strings.SplitAfter(string(b), "\n")
		os.WriteFile(filepath.Join(d, "points.jsonl"), []byte(strings.Join(lines[1:], "")), 0o644)
	})
	foreign := copyDir(s1, "foreign", func(d string) {
		b0, _ := os.ReadFile(filepath.Join(s0, "points.jsonl"))
		b1, _ := os.ReadFile(filepath.Join(d, "points.jsonl"))
		first, _, _ := strings.Cut(string(b0), "\n")
		os.WriteFile(filepath.Join(d, "points.jsonl"), []byte(first+"\n"+string(b1)), 0o644)
	})
	editedConfig := copyDir(s1, "config", func(d string) {
		os.WriteFile(filepath.Join(d, "config.toml"), []byte("name = \"x\"\n"), 0o644)
	})
	for _, c := range []struct {
		name string
		dirs []string
		want []string
	}{
		{"missing shard", []string{s0}, []string{"shard 1/2", "missing"}},
		{"into a shard", []string{s0, s1}, []string{"one of the shard directories"}},
		{"none", nil, []string{"shard directories"}},
		{"unfinished", []string{s0, unfinished}, []string{unfinished, "not a finished shard", ShardManifestFile}},
		{"no such directory", []string{s0, filepath.Join(dir, "nope")}, []string{"nope", "no such directory"}},
		{"other scenario", []string{s0, e1}, []string{s0, e1, "not shards of one sweep"}},
		{"other shard count", []string{s0, t1}, []string{"0/2", "1/3", "not shards of one sweep"}},
		{"other build", []string{s0, other}, []string{"r1", "r2", "one nocsim build"}},
		{"twice", []string{s0, s1, s1}, []string{"shard 1/2 given twice"}},
		{"points lost", []string{s0, short}, []string{short, "3 points recorded", "4"}},
		{"point of another shard", []string{s0, foreign}, []string{foreign, "line 1", "point 0", "1/2"}},
		{"config edited", []string{s0, editedConfig}, []string{editedConfig, "config.toml does not match"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(dir, "out-"+strings.ReplaceAll(c.name, " ", "-"))
			if c.name == "into a shard" {
				out = s1 + "/."
			}
			_, err := Merge(c.dirs, out)
			var r *MergeRefusal
			if !errors.As(err, &r) {
				t.Fatalf("error %v, want a refusal", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q does not name %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("%q: more than one line", err)
			}
			if _, err := os.Stat(filepath.Join(out, "points.csv")); c.name == "into a shard" && err != nil {
				t.Errorf("the refused merge into a shard touched it: %v", err)
			} else if _, err := os.Stat(out); c.name != "into a shard" && !os.IsNotExist(err) {
				t.Errorf("a refused merge created %s", out)
			}
		})
	}
	// And the same shards, all given, merge.
	if _, err := Merge([]string{s1, s0}, filepath.Join(dir, "ok")); err != nil {
		t.Errorf("the good shards: %v", err)
	}
}

func TestWithoutShardFlags(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"nocsim sweep --shard 1/2 f.toml", "nocsim sweep f.toml"},
		{"nocsim sweep --quiet --resume --jobs 4 --shard=0/3 --out /x/shard-0-of-3 f.toml", "nocsim sweep --quiet --resume f.toml"},
		{"nocsim sweep -shard 1/2 -out=d -jobs=2 f.toml", "nocsim sweep f.toml"},
		{"nocsim sweep f.toml", "nocsim sweep f.toml"},
		{"nocsim sweep --shards-file f.toml", "nocsim sweep --shards-file f.toml"},
	} {
		if got := strings.Join(withoutShardFlags(strings.Fields(c.in)), " "); got != c.want {
			t.Errorf("%q -> %q, want %q", c.in, got, c.want)
		}
	}
}
