package logp

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzReadParams feeds arbitrary bytes to the parameters reader (the
// files `nocsim calibrate --out` writes and --params reads), as TOML and
// as JSON. It must not panic; what it accepts must validate; and written
// back as calibrate writes it (EncodeParams, TOML or JSON) the parameters
// must read back and write out to the same bytes again, so nothing a
// user's file sets is lost or changed on the way through.
func FuzzReadParams(f *testing.F) {
	f.Add([]byte(fixtureParams), false)
	f.Add([]byte(`{"P": 16, "protocol": "scmp", "clock_hz": 1e9, "segment": [{"max_bytes": 0, "L": 100, "o_s": 40, "o_r": 20, "g": 150, "G": 0.25}]}`), true)
	f.Add([]byte("P = 16\nprotocol = \"scmp\"\n[[segment]]\nL = -1\n"), false)
	f.Add([]byte("P = 16\nbogus = 1\n"), false)
	f.Add([]byte("{"), true)
	f.Fuzz(func(t *testing.T, data []byte, asJSON bool) {
		dir := t.TempDir()
		name := "p.toml"
		if asJSON {
			name = "p.json"
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		p, err := ReadParams(path)
		if err != nil {
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("accepted parameters do not validate: %v", err)
		}
		for _, ext := range []string{".toml", ".json"} {
			out := filepath.Join(dir, "out"+ext)
			encode := func(v Params) []byte {
				var b bytes.Buffer
				if err := EncodeParams(&b, out, v); err != nil {
					t.Fatal(err)
				}
				return b.Bytes()
			}
			first := encode(p)
			if err := os.WriteFile(out, first, 0o644); err != nil {
				t.Fatal(err)
			}
			back, err := ReadParams(out)
			if err != nil {
				t.Fatalf("written as %s, the parameters do not read back: %v\n%s", ext, err, first)
			}
			if again := encode(back); !bytes.Equal(again, first) {
				t.Fatalf("%s changed on a round trip:\n%s\nthen\n%s", ext, first, again)
			}
		}
	})
}
