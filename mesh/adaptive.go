package mesh

// Routing algorithms for a mesh beyond dimension order. Routers know only
// a head's offsets, so each is a function of (dx, dy): the ports a head
// may take next, of which the router's selection picks one each cycle.

// Routing names.
const (
	// RoutingXY is dimension order (RouteXY): X, then Y.
	RoutingXY = "xy"
	// RoutingWestFirst is Glass and Ni's west-first turn model: a packet
	// that must go West goes West first, all the way; otherwise it may
	// take any productive direction. No turn into West is ever made, so
	// the channel dependencies have no cycle and any VC serves.
	RoutingWestFirst = "west_first"
	// RoutingAdaptive is minimal fully adaptive routing with Duato's
	// escape channel: VC 0 of every link is the escape network, used
	// only along the XY route; the other VCs take any productive
	// direction. The escape network is XY's, acyclic and connected, so
	// a head that cannot advance adaptively can always wait for it.
	RoutingAdaptive = "adaptive"
)

// RoutingNames lists the routing values, the default first.
var RoutingNames = []string{RoutingXY, RoutingWestFirst, RoutingAdaptive}

// Productive is the ports that bring a head with offsets (dx, dy) closer:
// x is East or West (Local when dx = 0), y is South or North (Local when
// dy = 0). Both Local: the head is home.
func Productive(dx, dy int) (x, y Port) {
	x, y = Local, Local
	switch {
	case dx > 0:
		x = East
	case dx < 0:
		x = West
	}
	switch {
	case dy > 0:
		y = South
	case dy < 0:
		y = North
	}
	return x, y
}

// Step is the offsets a head carries on after leaving by port p.
func Step(p Port, dx, dy int) (int, int) {
	switch p {
	case East:
		dx--
	case West:
		dx++
	case South:
		dy--
	case North:
		dy++
	}
	return dx, dy
}

// Choice is whether routing algorithm alg leaves a head with offsets
// (dx, dy) a choice of two ports, X's and Y's (Productive): under XY
// never; under west-first when it goes East and must also go North or
// South; fully adaptive whenever both offsets are non-zero.
func Choice(alg string, dx, dy int) bool {
	switch alg {
	case RoutingWestFirst:
		return dx > 0 && dy != 0
	case RoutingAdaptive:
		return dx != 0 && dy != 0
	}
	return false
}
