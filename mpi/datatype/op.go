package datatype

import (
	"math"

	"nocsim/mpi/mpierr"
)

// Op is a reduction operation (MPI_Op).
type Op struct {
	name    string
	commute bool
	basic   func(k Kind, a, b []byte) // b = a op b for one element of a basic kind
	loc     int                       // +1 MAXLOC, -1 MINLOC, 0 otherwise
	user    func(in, inout Buffer, count int, t *Datatype)
}

// Name is the operation's MPI name.
func (o *Op) Name() string { return o.name }

// Commutative reports whether the order of operands does not matter.
func (o *Op) Commutative() bool { return o.commute }

// OpCreate is MPI_Op_create: fn combines count elements of t, inout =
// in op inout. Non-commutative operations are applied in rank order.
func OpCreate(fn func(in, inout Buffer, count int, t *Datatype), commute bool) *Op {
	return &Op{name: "user", commute: commute, user: fn}
}

func arith(name string, i func(a, b int64) int64, f func(a, b float64) float64) *Op {
	return &Op{name: name, commute: true, basic: func(k Kind, a, b []byte) {
		switch k {
		case kInt32:
			le.PutUint32(b, uint32(int32(i(int64(int32(le.Uint32(a))), int64(int32(le.Uint32(b)))))))
		case kUint32:
			le.PutUint32(b, uint32(i(int64(le.Uint32(a)), int64(le.Uint32(b)))))
		case kInt64:
			le.PutUint64(b, uint64(i(int64(le.Uint64(a)), int64(le.Uint64(b)))))
		case kByte, kPacked:
			b[0] = byte(i(int64(a[0]), int64(b[0])))
		case kFloat32:
			le.PutUint32(b, math.Float32bits(float32(f(float64(math.Float32frombits(le.Uint32(a))), float64(math.Float32frombits(le.Uint32(b)))))))
		case kFloat64:
			le.PutUint64(b, math.Float64bits(f(math.Float64frombits(le.Uint64(a)), math.Float64frombits(le.Uint64(b)))))
		}
	}}
}

func b2i(v bool) int64 {
	if v {
		return 1
	}
	return 0
}

// The predefined operations. Logical and bitwise ones on floating-point
// types are erroneous in MPI; here they act on the values as integers.
var (
	OpSum  = arith("MPI_SUM", func(a, b int64) int64 { return a + b }, func(a, b float64) float64 { return a + b })
	OpProd = arith("MPI_PROD", func(a, b int64) int64 { return a * b }, func(a, b float64) float64 { return a * b })
	OpMax  = arith("MPI_MAX", func(a, b int64) int64 { return max(a, b) }, math.Max)
	OpMin  = arith("MPI_MIN", func(a, b int64) int64 { return min(a, b) }, math.Min)
	OpLand = arith("MPI_LAND", func(a, b int64) int64 { return b2i(a != 0 && b != 0) }, func(a, b float64) float64 { return float64(b2i(a != 0 && b != 0)) })
	OpLor  = arith("MPI_LOR", func(a, b int64) int64 { return b2i(a != 0 || b != 0) }, func(a, b float64) float64 { return float64(b2i(a != 0 || b != 0)) })
	OpLxor = arith("MPI_LXOR", func(a, b int64) int64 { return b2i((a != 0) != (b != 0)) }, func(a, b float64) float64 { return float64(b2i((a != 0) != (b != 0))) })
	OpBand = arith("MPI_BAND", func(a, b int64) int64 { return a & b }, func(a, b float64) float64 { return float64(int64(a) & int64(b)) })
	OpBor  = arith("MPI_BOR", func(a, b int64) int64 { return a | b }, func(a, b float64) float64 { return float64(int64(a) | int64(b)) })
	OpBxor = arith("MPI_BXOR", func(a, b int64) int64 { return a ^ b }, func(a, b float64) float64 { return float64(int64(a) ^ int64(b)) })
	// MAXLOC and MINLOC work on (value, int32 index) pairs: Float64Int32,
	// Float32Int32, TwoInt32. Ties keep the smaller index.
	OpMaxloc = &Op{name: "MPI_MAXLOC", commute: true, loc: 1}
	OpMinloc = &Op{name: "MPI_MINLOC", commute: true, loc: -1}
)

// OpReplace is MPI_REPLACE: Accumulate with it stores the origin's data,
// as Put does, but element by element on the target's processor.
var OpReplace = &Op{name: "MPI_REPLACE", commute: false, basic: func(k Kind, a, b []byte) { copy(b[:kindSize[k]], a) }}

// Pair types for MAXLOC and MINLOC: a value then an int32 index, unpadded
// (resized to their size, so Float64Int32 has extent 12, not the 16 its
// alignment would give).
var (
	Float64Int32 = pairType(Float64)
	Float32Int32 = pairType(Float32)
	TwoInt32     = pairType(Int32)
)

func pairType(v *Datatype) *Datatype {
	t, err := TypeCreateStruct([]int{1, 1}, []int{0, v.Size()}, []*Datatype{v, Int32})
	if err == nil {
		t, err = TypeCreateResized(t, 0, t.Size())
	}
	if err != nil {
		panic(err)
	}
	t.Commit()
	return t
}

// Apply computes inout = in op inout for count elements of t.
func (o *Op) Apply(in, inout Buffer, count int, t *Datatype) error {
	if o.user != nil {
		o.user(in, inout, count, t)
		return nil
	}
	if err := o.Check(o.name, t); err != nil {
		return err
	}
	if o.loc != 0 {
		o.applyLoc(in.Bytes, inout.Bytes, count, t)
		return nil
	}
	k, n := t.runs[0].kind, t.Size()
	for i := 0; i < count; i++ {
		o.basic(k, in.Bytes[i*n:], inout.Bytes[i*n:])
	}
	return nil
}

// Check reports whether o can combine elements of t, the error naming
// call: a user operation takes any type, MAXLOC and MINLOC one of the
// pair types, the others a predefined type. Collectives check before any
// message moves.
func (o *Op) Check(call string, t *Datatype) error {
	switch {
	case o.user != nil:
	case o.loc != 0:
		if t != Float64Int32 && t != Float32Int32 && t != TwoInt32 {
			return mpierr.Errorf(mpierr.ErrType, call, "%s needs Float64Int32, Float32Int32 or TwoInt32", o.name)
		}
	case !t.predef || len(t.runs) != 1:
		return mpierr.Errorf(mpierr.ErrType, call, "%s needs a predefined datatype", o.name)
	}
	return nil
}

// UserDefined reports whether o was made by OpCreate: its function works
// on its datatype's layout, not on packed elements.
func (o *Op) UserDefined() bool { return o.user != nil }

// ApplyKind computes inout = in op inout for one element of kind k, as
// one-sided Accumulate does element by element. o must be a predefined
// arithmetic, logical or bitwise operation, or OpReplace.
func (o *Op) ApplyKind(k Kind, in, inout []byte) { o.basic(k, in, inout) }

// applyLoc is MAXLOC or MINLOC over count pairs of t, a pair type.
func (o *Op) applyLoc(in, inout []byte, count int, t *Datatype) {
	var val func(b []byte) float64
	switch t {
	case Float64Int32:
		val = func(b []byte) float64 { return math.Float64frombits(le.Uint64(b)) }
	case Float32Int32:
		val = func(b []byte) float64 { return float64(math.Float32frombits(le.Uint32(b))) }
	case TwoInt32:
		val = func(b []byte) float64 { return float64(int32(le.Uint32(b))) }
	}
	n, off := t.Size(), t.Size()-4
	for i := 0; i < count; i++ {
		a, b := in[i*n:(i+1)*n], inout[i*n:(i+1)*n]
		va, vb := val(a), val(b)
		ia, ib := int32(le.Uint32(a[off:])), int32(le.Uint32(b[off:]))
		if float64(o.loc)*(va-vb) > 0 || va == vb && ia < ib {
			copy(b, a)
		}
	}
}
