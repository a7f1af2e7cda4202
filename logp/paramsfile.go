package logp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/BurntSushi/toml"
)

// The parameters file: what `nocsim calibrate --out` writes and --params
// (and a scenario's [workload] params) reads. TOML, or JSON when the
// file's name ends in .json; its keys are Params' struct tags.

// ReadParams reads a parameters file: TOML, or JSON when the name ends in
// .json. Unknown keys are errors; the parameters must describe a machine
// (Params.Validate).
func ReadParams(path string) (Params, error) {
	var p Params
	data, err := os.ReadFile(path)
	if err != nil {
		return p, err
	}
	if strings.HasSuffix(path, ".json") {
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&p); err != nil {
			return p, fmt.Errorf("%s: %w", path, err)
		}
	} else {
		md, err := toml.Decode(string(data), &p)
		if err != nil {
			return p, fmt.Errorf("%s: %w", path, err)
		}
		if und := md.Undecoded(); len(und) > 0 {
			return p, fmt.Errorf("%s: unknown key %s (allowed: P, protocol, clock_hz, avg_hops, source, mesh, sizes, word_bytes, cooperative, [[segment]] with max_bytes, L, L_per_hop, o_s, o_r, g, G, O, handshake, L_post, L_cts, L_cts_per_hop, L_data, L_data_per_hop, o_cts, g_data, [energy] with model, static_mw, tiles, word_bytes, samples, max_residual_fraction, [[energy.segment]] with max_bytes, message_pj, hop_pj, byte_pj, byte_hop_pj, copy_byte_pj and their _ci95)", path, und[0])
		}
	}
	if err := p.Validate(); err != nil {
		return p, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// EncodeParams writes p as the parameters file path names: indented JSON
// when path ends in .json, TOML otherwise. The caller writes the bytes
// whole (calibrate --out), so a failed encoding leaves no file.
func EncodeParams(b *bytes.Buffer, path string, p Params) error {
	if strings.HasSuffix(path, ".json") {
		enc := json.NewEncoder(b)
		enc.SetIndent("", "  ")
		return enc.Encode(p)
	}
	return toml.NewEncoder(b).Encode(p)
}
