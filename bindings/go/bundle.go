package ai00

// #include <stdlib.h>
// #include <ai00/ai00.h>
import "C"

import (
	"runtime"
	"unsafe"
)

// BundleEntry is one named State of a bundle to save.
type BundleEntry struct {
	Name  string
	State *State
}

// bundleArgs copies the States' handles and the names into C memory; free releases them.
func bundleArgs(entries []BundleEntry) (**C.ai00_state, **C.char, *C.size_t, C.size_t, func(), error) {
	n := len(entries)
	states := (**C.ai00_state)(cArray(n, unsafe.Sizeof((*C.ai00_state)(nil))))
	names := (**C.char)(cArray(n, unsafe.Sizeof((*C.char)(nil))))
	lens := (*C.size_t)(cArray(n, unsafe.Sizeof(C.size_t(0))))
	sv, nv, lv := unsafe.Slice(states, n), unsafe.Slice(names, n), unsafe.Slice(lens, n)
	free := func() {
		for i := range nv {
			C.free(unsafe.Pointer(nv[i]))
		}
		C.free(unsafe.Pointer(states))
		C.free(unsafe.Pointer(names))
		C.free(unsafe.Pointer(lens))
	}
	for i, e := range entries {
		sp, err := e.State.raw()
		if err != nil {
			free()
			return nil, nil, nil, 0, nil, err
		}
		sv[i], nv[i], lv[i] = sp, C.CString(e.Name), C.size_t(len(e.Name))
	}
	return states, names, lens, C.size_t(n), free, nil
}

// SaveBundle serializes named States into one buffer (names unique, 1..4096 UTF-8 bytes; a bad
// one is ErrInvalidArgument naming its index).
func SaveBundle(entries []BundleEntry) ([]byte, error) {
	states, names, lens, n, free, err := bundleArgs(entries)
	if err != nil {
		return nil, err
	}
	defer free()
	return twoCallBytes(func(out *C.size_t, buf unsafe.Pointer, c C.size_t) C.ai00_status {
		return C.ai00_state_bundle_save(out, buf, c, states, names, lens, n)
	})
}

// SaveBundleFile writes the same bytes to path (through a temporary file renamed into place).
func SaveBundleFile(entries []BundleEntry, path string) error {
	states, names, lens, n, free, err := bundleArgs(entries)
	if err != nil {
		return err
	}
	defer free()
	p, pn := cbytes([]byte(path))
	return call(func() C.ai00_status {
		return C.ai00_state_bundle_save_file(states, names, lens, n, p, pn)
	})
}

// Bundle is an opened State bundle: immutable, any number of goroutines may read it.
type Bundle struct {
	ptr *C.ai00_state_bundle
}

func wrapBundle(f func(out **C.ai00_state_bundle) C.ai00_status) (*Bundle, error) {
	var p *C.ai00_state_bundle
	if err := call(func() C.ai00_status { return f(&p) }); err != nil {
		return nil, err
	}
	b := &Bundle{ptr: p}
	runtime.SetFinalizer(b, (*Bundle).Close)
	return b, nil
}

// OpenBundle opens bundle bytes (copied), checking every entry: truncated or corrupt data is
// ErrModelFile naming the entry and byte offset.
func OpenBundle(data []byte) (*Bundle, error) {
	d, n := cbytesNonNil(data)
	b, err := wrapBundle(func(out **C.ai00_state_bundle) C.ai00_status {
		return C.ai00_state_bundle_open(out, unsafe.Pointer(d), n)
	})
	runtime.KeepAlive(data)
	return b, err
}

// OpenBundleFile opens a bundle file.
func OpenBundleFile(path string) (*Bundle, error) {
	p, n := cbytes([]byte(path))
	return wrapBundle(func(out **C.ai00_state_bundle) C.ai00_status {
		return C.ai00_state_bundle_open_file(out, p, n)
	})
}

// Close frees the bundle (States loaded from it stay valid). Idempotent.
func (b *Bundle) Close() error {
	if b.ptr != nil {
		C.ai00_state_bundle_free(b.ptr)
		b.ptr = nil
		runtime.SetFinalizer(b, nil)
	}
	return nil
}

func (b *Bundle) raw() (*C.ai00_state_bundle, error) {
	if b.ptr == nil {
		return nil, closedError("bundle")
	}
	return b.ptr, nil
}

// Len is the number of entries.
func (b *Bundle) Len() (int, error) {
	p, err := b.raw()
	if err != nil {
		return 0, err
	}
	var n C.size_t
	err = call(func() C.ai00_status { return C.ai00_state_bundle_count(&n, p) })
	return int(n), err
}

// Name is entry index's name.
func (b *Bundle) Name(index int) (string, error) {
	p, err := b.raw()
	if err != nil {
		return "", err
	}
	var s *C.char
	var n C.size_t
	if err := call(func() C.ai00_status { return C.ai00_state_bundle_name(&s, &n, p, C.size_t(index)) }); err != nil {
		return "", err
	}
	return C.GoStringN(s, C.int(n)), nil
}

// Names are the entries' names in order.
func (b *Bundle) Names() ([]string, error) {
	n, err := b.Len()
	if err != nil {
		return nil, err
	}
	out := make([]string, n)
	for i := range out {
		if out[i], err = b.Name(i); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Find is the index of the entry named name (none is ErrInvalidArgument).
func (b *Bundle) Find(name string) (int, error) {
	p, err := b.raw()
	if err != nil {
		return 0, err
	}
	nb := []byte(name)
	s, sn := cbytesNonNil(nb)
	var i C.size_t
	err = call(func() C.ai00_status { return C.ai00_state_bundle_find(&i, p, s, sn) })
	runtime.KeepAlive(nb)
	return int(i), err
}

// Load is a new State of m from entry index (a State of another model is ErrMismatch).
func (b *Bundle) Load(m *Model, index int) (*State, error) {
	p, err := b.raw()
	if err != nil {
		return nil, err
	}
	return newState(m, func(out **C.ai00_state, mp *C.ai00_model) C.ai00_status {
		return C.ai00_state_bundle_load(out, p, mp, C.size_t(index))
	})
}

// LastError is the message of the last failed call on the bundle.
func (b *Bundle) LastError() string {
	return C.GoString(C.ai00_state_bundle_last_error(b.ptr))
}
