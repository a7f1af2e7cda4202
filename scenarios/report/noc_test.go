package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"nocsim/endpoint/traffic"
)

// ---------------------------------------------------------------- outputs

// List-valued fields (per-VC shares, per-link counts) are JSON only: a CSV
// row has one value per column.
func jsonKeys(t reflect.Type) []string {
	var keys []string
	for i := 0; i < t.NumField(); i++ {
		tag, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if k := t.Field(i).Type.Kind(); tag == "-" || k == reflect.Slice || k == reflect.Pointer {
			continue
		}
		if tag == "" {
			tag = t.Field(i).Name
		}
		keys = append(keys, tag)
	}
	return keys
}

// distinctRow fills every field of a NocRow with a different value, so a
// swapped or shifted column cannot go unnoticed. Strings carry a comma and a
// quote to exercise CSV quoting.
func distinctRow(k int) NocRow {
	var r NocRow
	v := reflect.ValueOf(&r).Elem()
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		base := 100*k + i + 1
		switch f.Kind() {
		case reflect.String:
			f.SetString(fmt.Sprintf("s%d, \"q\"", base))
		case reflect.Int, reflect.Int64:
			f.SetInt(int64(base * 1000))
		case reflect.Uint64:
			f.SetUint(uint64(base*1000 + 1))
		case reflect.Float64:
			f.SetFloat(float64(base) + 0.25)
		case reflect.Bool:
			f.SetBool(k%2 == 0)
		case reflect.Pointer:
			// Energy: CSV columns of their own (TestWriteNocCSVEnergy).
		case reflect.Slice:
			switch f.Interface().(type) {
			case []int:
				f.Set(reflect.ValueOf([]int{base, base + 3}))
			case []float64:
				f.Set(reflect.ValueOf([]float64{float64(base) + 0.5, float64(base) + 0.75}))
			case []traffic.LinkVCFlits:
				f.Set(reflect.ValueOf([]traffic.LinkVCFlits{{From: base, To: base + 1, Dir: "E", VCFlits: []uint64{uint64(base), uint64(base + 2)}}}))
			case []traffic.RouterWindow:
				f.Set(reflect.ValueOf([]traffic.RouterWindow{{Router: base, Traversals: uint64(base + 1), BufferedFlitCycles: uint64(base + 2)}}))
			default:
				panic("unhandled NocRow slice field " + f.Type().String())
			}
		default:
			panic("unhandled NocRow field kind " + f.Kind().String())
		}
	}
	return r
}

func TestWriteNocCSV(t *testing.T) {
	// Rows as a run fills them: rates and latencies that are no short
	// decimal, which CSV writes to ten significant digits.
	real := []NocRow{distinctRow(2), distinctRow(3)}
	for i := range real {
		real[i].OfferedRate, real[i].AcceptedRate = 0.05*float64(i+1), 0.4/3
		real[i].AvgPacketLatency, real[i].P95PacketLatency = 100.0/3, 2000.0/7
	}
	rows := append([]NocRow{distinctRow(0), distinctRow(1)}, real...)

	var b bytes.Buffer
	if err := WriteNocCSV(&b, rows); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatalf("CSV does not parse: %v", err)
	}
	keys := jsonKeys(reflect.TypeFor[NocRow]())
	if len(recs) != len(rows)+1 {
		t.Fatalf("%d records, want a header and %d rows", len(recs), len(rows))
	}
	if !slices.Equal(recs[0], keys) {
		t.Fatalf("CSV header\n%q\nJSON keys\n%q", recs[0], keys)
	}
	for i, row := range rows {
		rec := recs[i+1]
		if len(rec) != len(keys) {
			t.Fatalf("row %d has %d fields, want %d", i, len(rec), len(keys))
		}
		js, err := json.Marshal(row)
		if err != nil {
			t.Fatal(err)
		}
		var obj map[string]any
		dec := json.NewDecoder(bytes.NewReader(js))
		dec.UseNumber()
		if err := dec.Decode(&obj); err != nil {
			t.Fatal(err)
		}
		exact := i < 2 // distinct rows hold values CSV writes exactly
		for c, key := range keys {
			if err := sameValue(obj[key], rec[c], exact); err != nil {
				t.Errorf("row %d column %s: %v", i, key, err)
			}
		}
	}
	// A few fields by name, read back as numbers.
	for i, row := range real {
		rec := recs[i+3]
		col := func(k string) string { return rec[slices.Index(keys, k)] }
		if n, _ := strconv.Atoi(col("measured_packets")); n != row.MeasuredPackets {
			t.Errorf("row %d measured_packets %q, want %d", i, col("measured_packets"), row.MeasuredPackets)
		}
		if n, _ := strconv.ParseInt(col("cycles"), 10, 64); n != row.Cycles {
			t.Errorf("row %d cycles %q, want %d", i, col("cycles"), row.Cycles)
		}
		if x, _ := strconv.ParseFloat(col("offered_flits_per_node_cycle"), 64); x != row.OfferedRate {
			t.Errorf("row %d offered_flits_per_node_cycle %q, want %v", i, col("offered_flits_per_node_cycle"), row.OfferedRate)
		}
		if x, _ := strconv.ParseFloat(col("avg_packet_latency_cycles"), 64); !near(x, row.AvgPacketLatency) {
			t.Errorf("row %d avg_packet_latency_cycles %q, want %v", i, col("avg_packet_latency_cycles"), row.AvgPacketLatency)
		}
		if col("saturated") != strconv.FormatBool(row.Saturated) || col("traffic") != row.Traffic {
			t.Errorf("row %d: saturated %q traffic %q, want %v %q", i, col("saturated"), col("traffic"), row.Saturated, row.Traffic)
		}
	}
}

// With energy, the CSV has seven more columns after the others: each row's
// model, energy, power, energy per delivered flit and energy by kind, as
// its JSON "energy" object holds them, empty for a row without; without
// energy in any row the header is the one of old.
func TestWriteNocCSVEnergy(t *testing.T) {
	e := &Energy{Model: "dsent", TotalPJ: 1234.5, PowerMW: 600.25, PerFlitPJ: 187.125, DynamicPJ: 100.5, ClockPJ: 34, LeakagePJ: 1100}
	rows := []NocRow{distinctRow(0), distinctRow(1)}
	rows[0].Energy = e
	var b bytes.Buffer
	if err := WriteNocCSV(&b, rows); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	keys := jsonKeys(reflect.TypeFor[NocRow]())
	if want := append(slices.Clip(keys), energyColumns...); !slices.Equal(recs[0], want) {
		t.Fatalf("header %q, want %q", recs[0], want)
	}
	got := recs[1][len(keys):]
	want := []string{"dsent", "1234.5", "600.25", "187.125", "100.5", "34", "1100"}
	if !slices.Equal(got, want) || slices.ContainsFunc(recs[2][len(keys):], func(s string) bool { return s != "" }) {
		t.Errorf("energy cells %q and %q, want %q and empty", got, recs[2][len(keys):], want)
	}
	b.Reset()
	if err := WriteNocCSV(&b, rows[1:]); err != nil {
		t.Fatal(err)
	}
	recs, _ = csv.NewReader(&b).ReadAll()
	if !slices.Equal(recs[0], keys) {
		t.Errorf("without energy the header is %q", recs[0])
	}
}

func near(a, b float64) bool {
	return a == b || math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))
}

// sameValue compares a JSON value with the CSV text of the same field.
func sameValue(j any, text string, exact bool) error {
	switch v := j.(type) {
	case string:
		if v != text {
			return fmt.Errorf("CSV %q, JSON %q", text, v)
		}
	case bool:
		if strconv.FormatBool(v) != text {
			return fmt.Errorf("CSV %q, JSON %v", text, v)
		}
	case json.Number:
		if i, err := v.Int64(); err == nil {
			if c, err := strconv.ParseInt(text, 10, 64); err != nil || c != i {
				// an integral float may print as an integer in JSON
				if f, err := strconv.ParseFloat(text, 64); err != nil || f != float64(i) {
					return fmt.Errorf("CSV %q, JSON %v", text, v)
				}
			}
			return nil
		}
		if u, err := strconv.ParseUint(v.String(), 10, 64); err == nil {
			if c, err := strconv.ParseUint(text, 10, 64); err != nil || c != u {
				return fmt.Errorf("CSV %q, JSON %v", text, v)
			}
			return nil
		}
		jf, _ := v.Float64()
		cf, err := strconv.ParseFloat(text, 64)
		if err != nil || (exact && cf != jf) || !near(cf, jf) {
			return fmt.Errorf("CSV %q, JSON %v", text, v)
		}
	default:
		return fmt.Errorf("unexpected JSON value %v (%T)", j, j)
	}
	return nil
}

func TestWriteJSONKeys(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJSON(&b, []NocRow{distinctRow(0)}); err != nil {
		t.Fatal(err)
	}
	var back []NocRow
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if len(back) != 1 || !reflect.DeepEqual(back[0], distinctRow(0)) {
		t.Fatalf("JSON does not round-trip: %+v", back)
	}
}

func TestNocChart(t *testing.T) {
	row := func(traffic string, rate, lat, zl float64, sat bool, delivered int) NocRow {
		return NocRow{Traffic: traffic, OfferedRate: rate, AvgPacketLatency: lat, ZeroLoadLatency: zl,
			Saturated: sat, DeliveredPackets: delivered, MeasuredPackets: delivered + 1}
	}
	rows := []NocRow{
		row("uniform", 0.02, 36, 35, false, 10),
		row("uniform", 0.3, 48, 35, false, 10),
		row("transpose", 0.05, 37, 35, false, 10),
		row("uniform", 0.5, 1800, 35, true, 10),
		row("transpose", 0.1, 0, 35, true, 0), // nothing delivered: no point to draw
		row("transpose", 0.2, 2500, 35, true, 10),
	}
	c := NocChart(rows, "test chart")
	if err := c.Validate(); err != nil {
		t.Fatalf("chart does not validate: %v", err)
	}
	if c.Title != "test chart" || !strings.Contains(c.XLabel, "flits/node/cycle") || !strings.Contains(c.YLabel, "cycles") {
		t.Errorf("labels: %q / %q / %q", c.Title, c.XLabel, c.YLabel)
	}
	if len(c.Series) != 4 {
		t.Fatalf("%d series, want a solid and a dashed one per traffic pattern (4)", len(c.Series))
	}
	want := []struct {
		traffic string
		x, y    []float64
		marks   []bool
	}{
		{"uniform", []float64{0.02, 0.3, 0.5}, []float64{36, 48, 1800}, []bool{false, false, true}},
		{"transpose", []float64{0.05, 0.2}, []float64{37, 2500}, []bool{false, true}},
	}
	for i, w := range want {
		s, z := c.Series[2*i], c.Series[2*i+1]
		if s.Name != w.traffic || s.Dashed || s.Companion {
			t.Errorf("series %d: %q dashed=%v companion=%v, want solid %q", 2*i, s.Name, s.Dashed, s.Companion, w.traffic)
		}
		if !slices.Equal(s.X, w.x) || !slices.Equal(s.Y, w.y) || !slices.Equal(s.Marks, w.marks) {
			t.Errorf("series %q: X %v Y %v marks %v, want %v %v %v", s.Name, s.X, s.Y, s.Marks, w.x, w.y, w.marks)
		}
		if !z.Dashed || !z.Companion || !strings.Contains(z.Name, w.traffic) || !strings.Contains(z.Name, "zero-load") {
			t.Errorf("series %d: %q dashed=%v companion=%v, want a dashed companion zero-load series", 2*i+1, z.Name, z.Dashed, z.Companion)
		}
		// The model line covers every load, measured or not.
		var zx []float64
		for _, r := range rows {
			if r.Traffic == w.traffic {
				zx = append(zx, r.OfferedRate)
			}
		}
		if !slices.Equal(z.X, zx) || slices.ContainsFunc(z.Y, func(y float64) bool { return y != 35 }) || slices.Contains(z.Marks, true) {
			t.Errorf("zero-load series %q: X %v Y %v marks %v", z.Name, z.X, z.Y, z.Marks)
		}
	}
	if c.MarkLegend == "" {
		t.Error("saturated marks have no legend")
	}

	dir := t.TempDir()
	path := filepath.Join(dir, "chart.png")
	if err := c.Save(path, 0, 0); err != nil {
		t.Fatalf("Save: %v", err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() < 100 || b.Dy() < 100 {
		t.Errorf("PNG is %v", b)
	}
}

func TestWriteNocTable(t *testing.T) {
	rows := []NocRow{distinctRow(0), distinctRow(1)}
	rows[0].Saturated, rows[1].Saturated = true, false
	rows[0].SaturationReason = "too much"
	var b bytes.Buffer
	if err := WriteNocTable(&b, rows); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if !strings.Contains(lines[0], "saturated") || !strings.Contains(lines[0], "offered") {
		t.Errorf("header %q lacks columns", lines[0])
	}
	if len(lines) < 2+len(rows) {
		t.Fatalf("table has %d lines", len(lines))
	}
	if !strings.Contains(lines[2], "YES") || !strings.Contains(lines[3], "no") {
		t.Errorf("saturated column: %q / %q", lines[2], lines[3])
	}
	if !strings.Contains(out, "too much") {
		t.Error("saturation reason not shown")
	}
}

// The footer says what its seconds are, the runs' wall-clock times
// summed (not "simulation time"), and its rates are the summed counts over
// that sum.
func TestWriteNocTableFooter(t *testing.T) {
	rows := []NocRow{{Traffic: "uniform", Cycles: 3000, Events: 600, FlitHops: 900, WallSeconds: 1.25},
		{Traffic: "uniform", Cycles: 1500, Events: 300, FlitHops: 450, WallSeconds: 0.5}}
	var b bytes.Buffer
	if err := WriteNocTable(&b, rows); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	got := lines[len(lines)-1]
	want := "simulated 4500 cycles, 900 events, 1350 flit-hops in 1.75 s, the runs' wall-clock times summed (runs go in parallel): " +
		fmt.Sprintf("%.0f cycles/s, %.0f events/s, %.0f flit-hops/s", 4500/1.75, 900/1.75, 1350/1.75)
	if got != want {
		t.Errorf("footer\n%s\nwant\n%s", got, want)
	}
}

// The output page documents every noc column.
func TestDocsDocumentNocColumns(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "output.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, col := range nocColumns {
		if !strings.Contains(doc, "`"+col+"`") {
			t.Errorf("output.md does not document output column %s", col)
		}
	}
}
