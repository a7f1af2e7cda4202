package endpoint

// Test helpers shared with the external tests (network_test.go).
var (
	MustRing = mustRing
	MustBus  = mustBus
)
