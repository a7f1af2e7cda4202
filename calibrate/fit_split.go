package calibrate

import "math"

// oneWayFit is c + h·Lh + (m-1)·G fitted to one segment's points.
type oneWayFit struct {
	f               linfit
	hopCol, sizeCol int // column of the hop and size terms, -1 if absent
	sse, worst      float64
}

// fitOneWay fits the points with relative weights. The hop term needs two
// distances and the size term two sizes: without them they are left out
// (the caller warns). ok is false when the points cannot determine the
// parameters, or leave none of the degrees of freedom a segmentation
// needs to judge a split.
func fitOneWay(pts []onePoint) (oneWayFit, bool) {
	hops, sizes := map[int]bool{}, map[int]bool{}
	for _, p := range pts {
		hops[p.h], sizes[p.m] = true, true
	}
	ow := oneWayFit{hopCol: -1, sizeCol: -1}
	cols := 1
	if len(hops) > 1 {
		ow.hopCol, cols = cols, cols+1
	}
	if len(sizes) > 1 {
		ow.sizeCol, cols = cols, cols+1
	}
	x := make([][]float64, len(pts))
	y := make([]float64, len(pts))
	w := make([]float64, len(pts))
	for i, p := range pts {
		x[i] = make([]float64, cols)
		x[i][0] = 1
		if ow.hopCol >= 0 {
			x[i][ow.hopCol] = float64(p.h)
		}
		if ow.sizeCol >= 0 {
			x[i][ow.sizeCol] = float64(max(p.m, 1) - 1)
		}
		y[i], w[i] = p.t, relWeight(p.t)
	}
	f, err := wls(x, y, w)
	if err != nil {
		return ow, false
	}
	ow.f = f
	for i, r := range f.resid {
		rel := r * math.Sqrt(w[i])
		ow.sse += rel * rel
		ow.worst = max(ow.worst, math.Abs(rel))
	}
	return ow, true
}

// split cuts the points (sorted by size) into segments of consecutive
// sizes by binary segmentation: the best single cut between measured
// sizes, if it pays (see Options), then the same on each side. Each side
// must keep two sizes and more points than parameters, so that its fit
// is judged on residuals and not fitted exactly by construction.
func split(pts []onePoint, opt Options) [][]onePoint {
	whole, ok := fitOneWay(pts)
	if !ok || whole.worst <= opt.SplitTolerance {
		return [][]onePoint{pts}
	}
	best, bestSSE := -1, math.Inf(1)
	for i := 1; i < len(pts); i++ {
		if pts[i].m == pts[i-1].m {
			continue
		}
		l, lok := fitOneWay(pts[:i])
		r, rok := fitOneWay(pts[i:])
		if !lok || !rok || l.f.dof < 1 || r.f.dof < 1 || l.sizeCol < 0 || r.sizeCol < 0 {
			continue
		}
		if s := l.sse + r.sse; s < bestSSE {
			best, bestSSE = i, s
		}
	}
	if best < 0 || whole.sse < opt.SplitFactor*bestSSE {
		return [][]onePoint{pts}
	}
	return append(split(pts[:best], opt), split(pts[best:], opt)...)
}
