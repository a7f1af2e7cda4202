//go:build layout

// A layout test, behind the layout build tag (see router/layout_test.go):
// go test -tags layout ./router ./endpoint.

package endpoint

import (
	"testing"
	"unsafe"
)

// An NIU, with the 8-byte header the allocator gives objects over 512
// bytes that hold pointers, fits the 576-byte size class: one more field
// would take every tile's NIU to the 640-byte class.
func TestNIUFitsItsSizeClass(t *testing.T) {
	if s := unsafe.Sizeof(NIU{}) + 8; s > 576 {
		t.Errorf("an NIU takes %d bytes with its header, over the 576-byte size class", s)
	}
}
