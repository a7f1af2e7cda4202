package datatype

import (
	"encoding/binary"
	"math"

	"nocsim/mpi/mpierr"
)

// Buffer is a block of a tile's memory: its first word's address and its
// bytes. Programs read and write it directly; the DMA engine moves its
// words.
type Buffer struct {
	Addr  uint32 // word address of Bytes[0]
	Bytes []byte
}

// Len is the buffer's size in bytes.
func (b Buffer) Len() int { return len(b.Bytes) }

// Slice is the part of b from byte off, n bytes long. off must be a
// multiple of 4, since the DMA engine moves whole words.
func (b Buffer) Slice(off, n int) (Buffer, error) {
	if off%4 != 0 || off < 0 || n < 0 || off+n > len(b.Bytes) {
		return Buffer{}, mpierr.Errorf(mpierr.ErrBuffer, "Buffer.Slice", "bytes %d..%d of a %d-byte buffer (the start must be a multiple of 4)", off, off+n, len(b.Bytes))
	}
	return Buffer{Addr: b.Addr + uint32(off/4), Bytes: b.Bytes[off : off+n]}, nil
}

var le = binary.LittleEndian

// Float64 is element i of the buffer seen as float64s.
func (b Buffer) Float64(i int) float64 { return math.Float64frombits(le.Uint64(b.Bytes[8*i:])) }

// SetFloat64 stores v as element i of the buffer seen as float64s.
func (b Buffer) SetFloat64(i int, v float64) { le.PutUint64(b.Bytes[8*i:], math.Float64bits(v)) }

// Float32 is element i of the buffer seen as float32s.
func (b Buffer) Float32(i int) float32 { return math.Float32frombits(le.Uint32(b.Bytes[4*i:])) }

// SetFloat32 stores v as element i of the buffer seen as float32s.
func (b Buffer) SetFloat32(i int, v float32) { le.PutUint32(b.Bytes[4*i:], math.Float32bits(v)) }

// Int32 is element i of the buffer seen as int32s.
func (b Buffer) Int32(i int) int32 { return int32(le.Uint32(b.Bytes[4*i:])) }

// SetInt32 stores v as element i of the buffer seen as int32s.
func (b Buffer) SetInt32(i int, v int32) { le.PutUint32(b.Bytes[4*i:], uint32(v)) }

// Int64 is element i of the buffer seen as int64s.
func (b Buffer) Int64(i int) int64 { return int64(le.Uint64(b.Bytes[8*i:])) }

// SetInt64 stores v as element i of the buffer seen as int64s.
func (b Buffer) SetInt64(i int, v int64) { le.PutUint64(b.Bytes[8*i:], uint64(v)) }

// Uint32 is element i of the buffer seen as uint32s.
func (b Buffer) Uint32(i int) uint32 { return le.Uint32(b.Bytes[4*i:]) }

// SetUint32 stores v as element i of the buffer seen as uint32s.
func (b Buffer) SetUint32(i int, v uint32) { le.PutUint32(b.Bytes[4*i:], v) }
