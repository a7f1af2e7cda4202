package plots

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// maxPerPanel is how many measured series one panel holds: past it lines
// crowd and the palette's colours are hard to tell apart, so a larger
// chart is drawn as small multiples.
const maxPerPanel = 8

// panel is one small multiple: its title ("" for a chart of one panel)
// and the indices of the series drawn in it.
type panel struct {
	title  string
	series []int
}

// prepared is c as it is drawn: each series' points sorted by x (a line
// through unsorted points doubles back), and each measured series whose
// points are exactly those of an earlier one in its panel named SameAs it.
func (c Chart) prepared() Chart {
	out := c
	out.Series = make([]Series, len(c.Series))
	for i, s := range c.Series {
		out.Series[i] = s.sortedByX()
	}
	out.panelByKey()
	found := make([]string, len(out.Series)) // the series each lies on, by name
	for i, s := range out.Series {
		if !s.measured() || s.SameAs != "" {
			continue
		}
		for _, p := range out.Series[:i] {
			if p.measured() && p.Panel == s.Panel && p.Name != s.Name && slices.Equal(p.X, s.X) && slices.Equal(p.Y, s.Y) {
				found[i] = p.Name
				break
			}
		}
	}
	// A name that lies on the same other name in every panel it is drawn
	// in gets one legend entry saying so; otherwise each panel's says
	// where.
	on, everywhere := map[string]string{}, map[string]bool{}
	for i, s := range out.Series {
		if !s.measured() {
			continue
		}
		prev, seen := on[s.Name]
		switch {
		case !seen:
			on[s.Name], everywhere[s.Name] = found[i], found[i] != ""
		case prev != found[i]:
			everywhere[s.Name] = false
		}
	}
	for i := range out.Series {
		s := &out.Series[i]
		if found[i] == "" {
			continue
		}
		s.SameAs = found[i]
		if s.Panel != "" && !everywhere[s.Name] {
			s.SameAs += " at " + s.Panel
		}
	}
	return out
}

// sortedByX is a copy of s with its points (and their marks and error
// bars) in ascending x, points of equal x in their given order.
func (s Series) sortedByX() Series {
	idx := make([]int, len(s.X))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case s.X[a] < s.X[b]:
			return -1
		case s.X[a] > s.X[b]:
			return 1
		}
		return 0
	})
	pick := func(v []float64) []float64 {
		if len(v) != len(idx) {
			return v
		}
		out := make([]float64, len(v))
		for i, j := range idx {
			out[i] = v[j]
		}
		return out
	}
	out := s
	out.X, out.Y, out.YErr = pick(s.X), pick(s.Y), pick(s.YErr)
	if len(s.Marks) == len(idx) {
		out.Marks = make([]bool, len(idx))
		for i, j := range idx {
			out.Marks[i] = s.Marks[j]
		}
	}
	return out
}

// panels are the small multiples c is drawn as: one per Panel name, in
// the order the names first appear, when any series names one, else one
// for all; each of them, past maxPerPanel measured series, split into as
// few as hold at most maxPerPanel, in even shares, each measured series
// with the companions that follow it. References without a Panel go in
// every panel.
func (c Chart) panels() []panel {
	var refs []int
	for i, s := range c.Series {
		if s.Reference && s.Panel == "" {
			refs = append(refs, i)
		}
	}
	var named []panel
	at := map[string]int{}
	for i, s := range c.Series {
		if s.Reference && s.Panel == "" {
			continue
		}
		k, ok := at[s.Panel]
		if !ok {
			k, at[s.Panel] = len(named), len(named)
			named = append(named, panel{title: s.Panel})
		}
		named[k].series = append(named[k].series, i)
	}
	if len(named) == 0 {
		named = []panel{{}}
	}
	// Panels named "key=number" (a sweep's settings, "P=16") go in
	// ascending order, whatever order the values were run in.
	if nums, ok := panelValues(named); ok {
		slices.SortStableFunc(named, func(a, b panel) int { return cmp.Compare(nums[a.title], nums[b.title]) })
	}
	var ps []panel
	for _, p := range named {
		ps = append(ps, c.split(p)...)
	}
	for i := range ps {
		ps[i].series = append(ps[i].series, refs...)
	}
	return ps
}

// panelValues are the numbers in the panels' titles, "key=number"; ok
// only when every title is one.
func panelValues(ps []panel) (map[string]float64, bool) {
	nums := map[string]float64{}
	for _, p := range ps {
		_, v, found := strings.Cut(p.title, "=")
		f, err := strconv.ParseFloat(v, 64)
		if !found || err != nil {
			return nil, false
		}
		nums[p.title] = f
	}
	return nums, true
}

// split shares p's series among as few panels as hold at most
// maxPerPanel measured series each, a companion with the series before it.
func (c Chart) split(p panel) []panel {
	var groups [][]int
	for _, i := range p.series {
		if c.Series[i].measured() || len(groups) == 0 {
			groups = append(groups, []int{i})
		} else {
			groups[len(groups)-1] = append(groups[len(groups)-1], i)
		}
	}
	n := max(1, (len(groups)+maxPerPanel-1)/maxPerPanel)
	if n == 1 {
		return []panel{p}
	}
	var out []panel
	for k := range n {
		q := panel{title: fmt.Sprintf("part %d of %d", k+1, n)}
		if p.title != "" {
			q.title = p.title + ", " + q.title
		}
		for _, g := range groups[k*len(groups)/n : (k+1)*len(groups)/n] {
			q.series = append(q.series, g...)
		}
		out = append(out, q)
	}
	return out
}

// colourIndices is each series' place in the palette: one per measured
// series name (so a name drawn in several panels keeps its colour), its
// leader's for a companion (its own if it has none), -1 for a reference.
func (c Chart) colourIndices() []int {
	out := make([]int, len(c.Series))
	byName := map[string]int{}
	leader := -1
	for i, s := range c.Series {
		switch {
		case s.Reference:
			out[i] = -1
			continue
		case s.Companion && leader >= 0:
			out[i] = leader
			continue
		}
		k, ok := byName[s.Name]
		if !ok {
			k = len(byName)
			byName[s.Name] = k
		}
		out[i], leader = k, k
	}
	return out
}

// panelByKey splits a chart of more than maxPerPanel measured series,
// none with a Panel, whose names are all "key=value" settings (a sweep's
// lines: "traffic=uniform offered_flits_per_node_cycle=0.4") into a panel
// per value of one key, the one giving the fewest panels of at most
// maxPerPanel series; the series keep the other settings as their names,
// so that a setting has one colour and one legend entry in every panel.
// A companion goes with the series before it, its name shortened alike.
func (c *Chart) panelByKey() {
	if c.Diff != nil {
		return // it names its series as given
	}
	var fields [][]string
	for _, s := range c.Series {
		if s.Panel != "" {
			return
		}
		if s.measured() {
			f := strings.Fields(s.Name)
			if len(f) < 2 || len(fields) > 0 && len(f) != len(fields[0]) || slices.ContainsFunc(f, func(t string) bool { return !strings.Contains(t, "=") }) {
				return
			}
			fields = append(fields, f)
		}
	}
	if len(fields) <= maxPerPanel {
		return
	}
	best, bestPanels := -1, 0
	for k := range fields[0] {
		count := map[string]int{}
		ok := true
		for _, f := range fields {
			count[f[k]]++
			ok = ok && count[f[k]] <= maxPerPanel
		}
		if ok && len(count) > 1 && (best < 0 || len(count) < bestPanels) {
			best, bestPanels = k, len(count)
		}
	}
	if best < 0 {
		return
	}
	leader, leaderName := "", ""
	for i := range c.Series {
		s := &c.Series[i]
		switch {
		case s.measured():
			f := strings.Fields(s.Name)
			leaderName, leader = s.Name, f[best]
			s.Panel, s.Name = leader, strings.Join(slices.Delete(f, best, best+1), " ")
		case s.Companion && leader != "":
			s.Panel = leader
			if rest, ok := strings.CutPrefix(s.Name, leaderName); ok {
				f := strings.Fields(leaderName)
				s.Name = strings.Join(slices.Delete(f, best, best+1), " ") + rest
			}
		}
	}
}
