package mpierr

import "fmt"

// Class is an MPI error class.
type Class int

// The error classes nocsim reports, named after their MPI counterparts.
const (
	ErrOther    Class = iota + 1
	ErrType           // invalid datatype
	ErrCount          // invalid count
	ErrArg            // invalid argument
	ErrTruncate       // message truncated on receive
	ErrRank           // invalid rank
	ErrGroup          // invalid group
	ErrBuffer         // invalid buffer
	ErrRMARange       // RMA target outside the window
	ErrRMASync        // RMA call outside an access or exposure epoch
	ErrWin            // invalid or freed window
)

var classNames = [...]string{
	ErrOther:    "MPI_ERR_OTHER",
	ErrType:     "MPI_ERR_TYPE",
	ErrCount:    "MPI_ERR_COUNT",
	ErrArg:      "MPI_ERR_ARG",
	ErrTruncate: "MPI_ERR_TRUNCATE",
	ErrRank:     "MPI_ERR_RANK",
	ErrGroup:    "MPI_ERR_GROUP",
	ErrBuffer:   "MPI_ERR_BUFFER",
	ErrRMARange: "MPI_ERR_RMA_RANGE",
	ErrRMASync:  "MPI_ERR_RMA_SYNC",
	ErrWin:      "MPI_ERR_WIN",
}

func (c Class) String() string {
	if c > 0 && int(c) < len(classNames) {
		return classNames[c]
	}
	return fmt.Sprintf("MPI_ERR_CLASS(%d)", int(c))
}

// Error is an MPI error: its class and what went wrong, naming the call.
type Error struct {
	Class Class
	Op    string // the MPI call, e.g. "MPI_Type_vector"
	Msg   string
}

func (e *Error) Error() string {
	return e.Op + ": " + e.Class.String() + ": " + e.Msg
}

// Errorf is the Error of call op in class, its message formatted as
// fmt.Sprintf does.
func Errorf(class Class, op, format string, args ...any) *Error {
	return &Error{Class: class, Op: op, Msg: fmt.Sprintf(format, args...)}
}
