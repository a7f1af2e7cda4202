package endpoint

import "nocsim/router"

// Spec is the immutable NIU and memory configuration.
type Spec struct {
	QueueFlits  int `toml:"niu_queue_flits"`
	MemoryWords int `toml:"memory_words"`
}

// DefaultSpec gives an NIU queue of 64 flits and 8 MiB (2 Mi words) of
// local memory per tile, the top of SCMP's 2-8 MB range.
func DefaultSpec() Spec { return Spec{QueueFlits: 64, MemoryWords: 2 << 20} }

// Key documents one configuration key.
type Key struct{ Name, Unit, Default, Allowed, Doc string }

// Keys lists the endpoint keys.
var Keys = []Key{
	{"niu_queue_flits", "flits", "64", "1..65536", "NIU injection queue for processor-built messages; a message must fit whole"},
	{"memory_words", "32-bit words", "2097152", "1..268435456", "local memory per tile (8 MiB); allocated in pages on first touch"},
}

// Validate checks every field against Keys.
func (s Spec) Validate() error {
	if err := router.CheckRange("niu_queue_flits", int64(s.QueueFlits), 1, 65536); err != nil {
		return err
	}
	return router.CheckRange("memory_words", int64(s.MemoryWords), 1, 1<<28)
}
