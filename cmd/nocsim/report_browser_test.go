package main

import (
	"context"
	"encoding/json"
	stdhtml "html"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The report page opened in a real browser, headless Chromium (Debian's
// chromium, which .ci/run installs; the test skips, saying why, where
// there is none): it loads with no console message and no request
// leaving the machine, shows every section, refers to nothing outside
// the page and its directory, and draws a screenshot that is not blank.
// Each check is first shown to catch a page made to fail it.

// chromiumBinary is the browser to run, or why there is none.
func chromiumBinary() (string, string) {
	for _, n := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(n); err == nil {
			return p, ""
		}
	}
	return "", "no chromium, chromium-browser or google-chrome on PATH (.ci/run installs the Debian package chromium; apt-get install -y chromium)"
}

// browse opens the file page in headless Chromium with args (--dump-dom,
// --screenshot=...) and returns its stdout, its log (stderr: console
// messages are logged there) and the path of its network log.
func browse(t *testing.T, bin, page string, args ...string) (stdout, log, netlog string) {
	t.Helper()
	tmp := t.TempDir()
	netlog = filepath.Join(tmp, "netlog.json")
	abs, err := filepath.Abs(page)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	all := append([]string{
		"--headless", "--disable-gpu", "--no-sandbox", "--hide-scrollbars",
		"--enable-logging=stderr", "--v=0",
		"--user-data-dir=" + filepath.Join(tmp, "profile"),
		"--no-first-run", "--disable-extensions", "--disable-sync", "--disable-background-networking",
		"--log-net-log=" + netlog,
	}, args...)
	cmd := exec.CommandContext(ctx, bin, append(all, "file://"+abs)...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %v: %v\n%s", bin, args, err, errb.String())
	}
	return out.String(), errb.String(), netlog
}

// consoleMessages are the page's console messages in Chromium's log: the
// report has no script, so any (an error, a failed load) is a fault.
func consoleMessages(log string) []string {
	var out []string
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, ":CONSOLE") {
			out = append(out, l)
		}
	}
	return out
}

// pageRequests are the network requests the page made, from Chromium's
// network log: every URL request started on behalf of a file:// page
// (the browser's own requests, for updates and accounts, have no page
// and are left out).
func pageRequests(t *testing.T, netlog string) []string {
	t.Helper()
	b, err := os.ReadFile(netlog)
	if err != nil {
		t.Fatal(err)
	}
	var nl struct {
		Constants struct {
			LogEventTypes map[string]int `json:"logEventTypes"`
		} `json:"constants"`
		Events []struct {
			Type   int `json:"type"`
			Params struct {
				URL       string `json:"url"`
				Initiator string `json:"initiator"`
				NIK       string `json:"network_isolation_key"`
			} `json:"params"`
		} `json:"events"`
	}
	if err := json.Unmarshal(b, &nl); err != nil {
		t.Fatalf("network log %s: %v", netlog, err)
	}
	start, ok := nl.Constants.LogEventTypes["URL_REQUEST_START_JOB"]
	if !ok {
		t.Fatalf("network log %s names no URL_REQUEST_START_JOB events", netlog)
	}
	var out []string
	for _, e := range nl.Events {
		p := e.Params
		if e.Type == start && (p.Initiator == "null" || strings.HasPrefix(p.NIK, "file://")) {
			out = append(out, p.URL)
		}
	}
	return out
}

// externalRefs scans HTML for anything that would fetch from elsewhere:
// an element that loads or runs something (script, link, iframe, object,
// embed, base), and a URL attribute or CSS url() with a scheme other
// than data: or a network path (//host).
func externalRefs(page string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`(?i)<(script|link|iframe|object|embed|base|frame|meta\s+http-equiv)\b`).FindAllString(page, -1) {
		out = append(out, m)
	}
	attr := regexp.MustCompile(`(?is)\b(src|href|srcset|action|formaction|poster|data|background|cite|xlink:href)\s*=\s*("[^"]*"|'[^']*'|[^\s>]+)`)
	scheme := regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
	check := func(v string) {
		v = strings.TrimSpace(stdhtml.UnescapeString(strings.Trim(v, `"'`)))
		if strings.HasPrefix(v, "//") || (scheme.MatchString(v) && !strings.HasPrefix(strings.ToLower(v), "data:")) {
			out = append(out, v)
		}
	}
	for _, m := range attr.FindAllStringSubmatch(page, -1) {
		check(m[2])
	}
	for _, m := range regexp.MustCompile(`(?i)(?:url\(|@import)\s*("[^"]*"|'[^']*'|[^)\s;]+)`).FindAllStringSubmatch(page, -1) {
		check(m[1])
	}
	return out
}

// screenshotStats decodes a screenshot: its size, how many distinct
// colours it has and how many pixels are not white.
func screenshotStats(t *testing.T, path string) (w, h, colours, nonWhite int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot %s: %v", path, err)
	}
	b := img.Bounds()
	seen := map[[3]uint32]bool{}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			seen[[3]uint32{r, g, bl}] = true
			if r < 0xf000 || g < 0xf000 || bl < 0xf000 {
				nonWhite++
			}
		}
	}
	return b.Dx(), b.Dy(), len(seen), nonWhite
}

func TestReportInBrowser(t *testing.T) {
	bin, why := chromiumBinary()
	if bin == "" {
		t.Skip(why)
	}
	start := time.Now()
	dir := t.TempDir()

	// The checks catch a page made to fail them: a script that logs an
	// error and an image from the network.
	bad := filepath.Join(dir, "bad.html")
	os.WriteFile(bad, []byte(`<!DOCTYPE html><html><body><p>bad</p><img src="http://127.0.0.1:9/x.png"><script>console.error("bad page")</script></body></html>`), 0o644)
	_, log, netlog := browse(t, bin, bad, "--dump-dom")
	if len(consoleMessages(log)) == 0 || len(pageRequests(t, netlog)) == 0 {
		t.Fatalf("a page with a console error and a network image: console %q, requests %q; the checks below would pass anything",
			consoleMessages(log), pageRequests(t, netlog))
	}
	if refs := externalRefs(readString(t, bad)); len(refs) != 2 {
		t.Errorf("the scan found %q in the bad page, want its script and its image", refs)
	}
	blank := filepath.Join(dir, "blank.html")
	os.WriteFile(blank, []byte(`<!DOCTYPE html><html><body></body></html>`), 0o644)
	blankShot := filepath.Join(dir, "blank.png")
	browse(t, bin, blank, "--screenshot="+blankShot, "--window-size=1280,4000")
	if _, _, colours, nonWhite := screenshotStats(t, blankShot); colours > 2 || nonWhite > 0 {
		t.Errorf("a blank page's screenshot: %d colours, %d non-white pixels; the screenshot check would pass a blank page", colours, nonWhite)
	}

	// A results directory of a run, with an SVG chart added, and its page.
	out := runTiny(t, dir)
	svg := filepath.Join(out, "noc-latency.svg")
	if code, _, stderr := nocsim(t, nocArgs("--plot", svg)...); code != 0 {
		t.Fatalf("noc --plot: exit %d: %s", code, stderr)
	}
	if code, _, stderr := nocsim(t, "report", out); code != 0 {
		t.Fatalf("report: exit %d: %s", code, stderr)
	}
	page := filepath.Join(out, "report.html")
	html := readString(t, page)
	if refs := externalRefs(html); len(refs) > 0 {
		t.Errorf("report.html refers outside itself and its directory: %q", refs)
	}

	dom, log, netlog := browse(t, bin, page, "--dump-dom")
	if m := consoleMessages(log); len(m) > 0 {
		t.Errorf("console messages loading report.html:\n%s", strings.Join(m, "\n"))
	}
	if r := pageRequests(t, netlog); len(r) > 0 {
		t.Errorf("report.html made network requests: %q", r)
	}
	for _, id := range []string{"contents", "configuration", "provenance", "tables", "file-results-json", "charts", "file-latency-png", "file-noc-latency-svg", "files"} {
		if !strings.Contains(dom, `id="`+id+`"`) {
			t.Errorf("the browser's DOM has no section %q", id)
		}
	}
	for _, m := range regexp.MustCompile(`href="#([^"]*)"`).FindAllStringSubmatch(dom, -1) {
		if !strings.Contains(dom, `id="`+m[1]+`"`) {
			t.Errorf("contents link #%s: no such section in the DOM", m[1])
		}
	}
	if n := strings.Count(dom, `<img src="data:image/`); n != 2 {
		t.Errorf("the DOM holds %d embedded charts, want 2 (latency.png, noc-latency.svg)", n)
	}

	shot := filepath.Join(dir, "report.png")
	browse(t, bin, page, "--screenshot="+shot, "--window-size=1280,4000")
	w, h, colours, nonWhite := screenshotStats(t, shot)
	if w != 1280 || h != 4000 {
		t.Errorf("screenshot %dx%d, want 1280x4000", w, h)
	}
	// Text, tables and a chart: many shades, and well over 1% of the
	// pixels drawn.
	if colours < 50 || nonWhite < w*h/100 {
		t.Errorf("screenshot: %d colours, %d of %d pixels not white: looks blank", colours, nonWhite, w*h)
	}
	t.Logf("%s: page %d bytes, screenshot %dx%d, %d colours, %.1f%% of pixels not white; %.1f s",
		bin, len(html), w, h, colours, 100*float64(nonWhite)/float64(w*h), time.Since(start).Seconds())
}

func readString(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
