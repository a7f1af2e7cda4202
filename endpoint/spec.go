package endpoint

import "nocsim/config"

// Spec is the immutable NIU and memory configuration.
type Spec struct {
	QueueFlits  int `toml:"niu_queue_flits"`
	MemoryWords int `toml:"memory_words"`
}

// DefaultSpec gives an NIU queue of 64 flits and 8 MiB (2 Mi words) of
// local memory per tile, the top of SCMP's 2-8 MB range.
func DefaultSpec() Spec { return Spec{QueueFlits: 64, MemoryWords: 2 << 20} }

// Keys lists the endpoint keys.
var Keys = []config.Key{
	config.Range("niu_queue_flits", "flits", "64", 1, 65536, "NIU injection queue for processor-built messages; a message must fit whole"),
	config.Range("memory_words", "32-bit words", "2097152", 1, 1<<28, "local memory per tile (8 MiB); allocated in pages on first touch"),
}

// Validate checks every field against Keys.
func (s Spec) Validate() error { return config.CheckStruct(s, Keys) }
