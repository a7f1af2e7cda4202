package energy

// Kinds of energy, for grouping a breakdown's components.
const (
	KindDynamic = "dynamic" // charged per event
	KindClock   = "clock"   // charged per router (or channel) per cycle
	KindLeakage = "leakage" // static power times time
)

// Component is one line of a breakdown: its energy over the activity's
// cycles, in picojoules.
type Component struct {
	Name string  `json:"name"`
	Kind string  `json:"kind"`
	PJ   float64 `json:"energy_pj"`
}

// Breakdown is a model's energy for one activity, by component, with the
// time the activity took at the model's clock and the area it prices.
type Breakdown struct {
	Model      string      `json:"model"`
	Tech       string      `json:"tech"`
	FlitBits   int         `json:"flit_bits"`
	ClockHz    float64     `json:"clock_hz"`
	Cycles     int64       `json:"cycles"`
	Components []Component `json:"components"`
	AreaMM2    float64     `json:"area_mm2"`
}

// TotalPJ is the components' energy summed (pJ).
func (b Breakdown) TotalPJ() float64 {
	s := 0.0
	for _, c := range b.Components {
		s += c.PJ
	}
	return s
}

// KindPJ is the energy of the components of one kind (pJ).
func (b Breakdown) KindPJ(kind string) float64 {
	s := 0.0
	for _, c := range b.Components {
		if c.Kind == kind {
			s += c.PJ
		}
	}
	return s
}

// Seconds is the activity's duration at the model's clock.
func (b Breakdown) Seconds() float64 { return float64(b.Cycles) / b.ClockHz }

// PowerW is the average power over the activity (W); 0 for no cycles.
func (b Breakdown) PowerW() float64 {
	if b.Cycles <= 0 {
		return 0
	}
	return b.TotalPJ() * 1e-12 / b.Seconds()
}

// ComponentPowerW is component c's average power (W).
func (b Breakdown) ComponentPowerW(c Component) float64 {
	if b.Cycles <= 0 {
		return 0
	}
	return c.PJ * 1e-12 / b.Seconds()
}
