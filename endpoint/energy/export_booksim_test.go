package energy

// LoadBookSim loads the built-in booksim model with p (its Model is not
// read), for the external tests: Load names the built-in models it
// dispatches to, and this reaches the booksim one directly.
func LoadBookSim(p Params) (Model, error) {
	data, err := builtin.ReadFile("models/booksim.toml")
	if err != nil {
		return nil, err
	}
	return loadBookSim("booksim", data, p)
}

// BookSimWire is the channel wire the booksim model m sized: its length
// (mm), repeater size K, stages M and repeaters per stage N.
func BookSimWire(m Model) (L, K, M, N float64) {
	w := m.(*bookSim).wire
	return w.L, w.K, w.M, w.N
}
