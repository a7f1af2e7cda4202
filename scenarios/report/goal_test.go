package report

import (
	"bytes"
	"strings"
	"testing"
)

// countingWriter counts the writes it receives and their bytes.
type countingWriter struct{ writes, bytes int }

func (w *countingWriter) Write(p []byte) (int, error) {
	w.writes++
	w.bytes += len(p)
	return len(p), nil
}

// The table goes out in buffer-sized writes, not a few per rank: 20000
// ranks (about 300 KB) take at most bytes/64 KiB + 1 writes, and the text
// is the same as written unbuffered.
func TestGoalTableWritesInBlocks(t *testing.T) {
	const P = 20000
	r := &GoalResult{Tier: "loggops", Ranks: P, RankFinish: make([]float64, P), Params: &TierParamsJSON{L: 6}}
	for i := range r.RankFinish {
		r.RankFinish[i] = float64(i) * 1.5
	}
	r.MaxFinish = r.RankFinish[P-1]
	var w countingWriter
	if err := WriteGoalTable(&w, r); err != nil {
		t.Fatal(err)
	}
	if most := w.bytes/tableBuffer + 1; w.writes > most {
		t.Errorf("%d ranks, %d bytes: %d writes, want at most %d", P, w.bytes, w.writes, most)
	}
	var b bytes.Buffer
	if err := WriteGoalTable(&b, r); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != P+3 || b.Len() != w.bytes || !strings.HasSuffix(lines[P+1], "  29998.5") || !strings.HasPrefix(lines[P+2], "max finish 29998.5 cycles (rank 19999)") {
		t.Errorf("%d lines (want %d), %d bytes (counted %d); rank line %q, footer %q", len(lines), P+3, b.Len(), w.bytes, lines[min(P+1, len(lines)-1)], lines[len(lines)-1])
	}
}
