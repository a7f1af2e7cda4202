package mpi

import (
	"math/rand/v2"

	"nocsim/mpi/datatype"
)

// redKind is an element type with an op and its serial definition.
type redKind struct {
	name string
	dt   *datatype.Datatype
	op   *datatype.Op
	gen  func(rng *rand.Rand) []int64
	fold func(a, b []int64) []int64 // a op b, a from the lower ranks
	put  func(b []byte, i int, e []int64)
	get  func(b []byte, i int) []int64
}

func i32(v int64) int64 { return int64(int32(v)) }

func put32(b []byte, at int, v int64) { le.PutUint32(b[at:], uint32(v)) }
func get32(b []byte, at int) int64    { return int64(int32(le.Uint32(b[at:]))) }

var redSum32 = &redKind{
	name: "sum32", dt: datatype.Int32, op: datatype.OpSum,
	gen:  func(rng *rand.Rand) []int64 { return []int64{int64(int32(rng.Uint32()))} },
	fold: func(a, b []int64) []int64 { return []int64{i32(a[0] + b[0])} },
	put:  func(b []byte, i int, e []int64) { put32(b, 4*i, e[0]) },
	get:  func(b []byte, i int) []int64 { return []int64{get32(b, 4*i)} },
}

// Single bytes: blocks of odd sizes start off word boundaries.
var redBytes = &redKind{
	name: "byte", dt: datatype.Byte, op: datatype.OpSum,
	gen:  func(rng *rand.Rand) []int64 { return []int64{int64(rng.IntN(256))} },
	fold: func(a, b []int64) []int64 { return []int64{int64(uint8(a[0] + b[0]))} },
	put:  func(b []byte, i int, e []int64) { b[i] = byte(e[0]) },
	get:  func(b []byte, i int) []int64 { return []int64{int64(b[i])} },
}

// 2x2 int32 matrix products: non-commutative.
var redMatType = func() *datatype.Datatype {
	t, err := datatype.TypeContiguous(4, datatype.Int32)
	if err != nil {
		panic(err)
	}
	t.Commit()
	return t
}()

func matMul(a, b []int64) []int64 {
	return []int64{
		i32(a[0]*b[0] + a[1]*b[2]), i32(a[0]*b[1] + a[1]*b[3]),
		i32(a[2]*b[0] + a[3]*b[2]), i32(a[2]*b[1] + a[3]*b[3]),
	}
}

var redMat = &redKind{
	name: "matrix", dt: redMatType,
	op: datatype.OpCreate(func(in, inout datatype.Buffer, count int, t *datatype.Datatype) {
		for i := range count {
			a, b := make([]int64, 4), make([]int64, 4)
			for j := range 4 {
				a[j], b[j] = int64(in.Int32(4*i+j)), int64(inout.Int32(4*i+j))
			}
			for j, v := range matMul(a, b) {
				inout.SetInt32(4*i+j, int32(v))
			}
		}
	}, false),
	gen: func(rng *rand.Rand) []int64 {
		return []int64{int64(rng.IntN(5) - 2), int64(rng.IntN(5) - 2), int64(rng.IntN(5) - 2), int64(rng.IntN(5) - 2)}
	},
	fold: matMul,
	put: func(b []byte, i int, e []int64) {
		for j := range 4 {
			put32(b, 16*i+4*j, e[j])
		}
	},
	get: func(b []byte, i int) []int64 {
		return []int64{get32(b, 16*i), get32(b, 16*i+4), get32(b, 16*i+8), get32(b, 16*i+12)}
	},
}

// Affine maps x -> a*x + b in a non-contiguous type (a at byte 0, b at
// byte 8, extent 12): composition is non-commutative and the user
// function must see the type's layout.
var redAffType = func() *datatype.Datatype {
	t, err := datatype.TypeVector(2, 1, 2, datatype.Int32)
	if err != nil {
		panic(err)
	}
	t.Commit()
	return t
}()

func affine(f, g []int64) []int64 { return []int64{i32(f[0] * g[0]), i32(g[0]*f[1] + g[1])} }

var redAff = &redKind{
	name: "affine", dt: redAffType,
	op: datatype.OpCreate(func(in, inout datatype.Buffer, count int, t *datatype.Datatype) {
		for i := range count {
			v := affine([]int64{int64(in.Int32(3 * i)), int64(in.Int32(3*i + 2))},
				[]int64{int64(inout.Int32(3 * i)), int64(inout.Int32(3*i + 2))})
			inout.SetInt32(3*i, int32(v[0]))
			inout.SetInt32(3*i+2, int32(v[1]))
		}
	}, false),
	gen:  func(rng *rand.Rand) []int64 { return []int64{int64(rng.IntN(7) - 3), int64(rng.IntN(201) - 100)} },
	fold: affine,
	put:  func(b []byte, i int, e []int64) { put32(b, 12*i, e[0]); put32(b, 12*i+8, e[1]) },
	get:  func(b []byte, i int) []int64 { return []int64{get32(b, 12*i), get32(b, 12*i+8)} },
}

// A commutative user op (int32 sum), for the paths that need commutativity.
var redUsum = &redKind{
	name: "usum", dt: datatype.Int32,
	op: datatype.OpCreate(func(in, inout datatype.Buffer, count int, t *datatype.Datatype) {
		for i := range count {
			inout.SetInt32(i, in.Int32(i)+inout.Int32(i))
		}
	}, true),
	gen: redSum32.gen, fold: redSum32.fold, put: redSum32.put, get: redSum32.get,
}
