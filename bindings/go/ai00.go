// Package ai00 is the Go binding of libai00 — RWKV-7 on the CPU with the whole chat pipeline —
// over its C ABI, include/ai00/ai00.h (whose comments are the reference for every call).
//
// Every handle type has Close, which frees its C handle exactly once; a finalizer calls Close as a
// safety net when a handle is garbage collected without it. Library-owned strings are copied into
// Go strings before the next call on their handle.
//
// Goroutines (header rule 10): a Model, Grammar and Tokenizer are immutable and may be used by
// any number of goroutines at once. A State, ChatTemplate, OutputParser and Generator belong to
// one goroutine at a time. Generator.Cancel (and a cancelled context.Context) may be used from any
// goroutine. A PrefixCache (every function thread-safe) and an opened Bundle (immutable) may be
// shared by any number of goroutines; a Batch belongs to one goroutine at a time, with its
// members.
//
// Errors are *Error values carrying the library's Status and message. The library keeps the
// message of a failed call per OS thread, so each call and the read of its message run with the
// goroutine locked to its thread.
//
// Build: the package includes the repository's include/ai00/ai00.h and links -lai00; point cgo at
// the library with CGO_LDFLAGS="-L<dir> -Wl,-rpath,<dir>" (a build tree's lib/) or with
// CGO_LDFLAGS="$(pkg-config --libs ai00)" for an installed one.
package ai00

// #cgo CFLAGS: -I${SRCDIR}/../../include
// #cgo LDFLAGS: -lai00
// #include <stdlib.h>
// #include <ai00/ai00.h>
import "C"

import (
	"fmt"
	"runtime"
	"unsafe"
)

// Status is an ai00_status error code; values are never renumbered.
type Status int32

// The library's status codes.
const (
	ErrInvalidArgument Status = C.AI00_ERR_INVALID_ARGUMENT
	ErrIO              Status = C.AI00_ERR_IO
	ErrModelFile       Status = C.AI00_ERR_MODEL_FILE
	ErrFormat          Status = C.AI00_ERR_FORMAT
	ErrGrammar         Status = C.AI00_ERR_GRAMMAR
	ErrMismatch        Status = C.AI00_ERR_MISMATCH
	ErrUnsupported     Status = C.AI00_ERR_UNSUPPORTED
	ErrCancelled       Status = C.AI00_ERR_CANCELLED
	ErrBufferTooSmall  Status = C.AI00_ERR_BUFFER_TOO_SMALL
	ErrOutOfMemory     Status = C.AI00_ERR_OUT_OF_MEMORY
	ErrInternal        Status = C.AI00_ERR_INTERNAL
)

// String is the library's English description (ai00_status_string).
func (s Status) String() string {
	return C.GoString(C.ai00_status_string(C.ai00_status(s)))
}

// Error is a failed call: the status and the library's message (what and where: path,
// line:column, JSON pointer).
type Error struct {
	Status  Status
	Message string
}

func (e *Error) Error() string {
	return fmt.Sprintf("ai00: %s (%d): %s", e.Status, int32(e.Status), e.Message)
}

// Is makes errors.Is(err, &ai00.Error{Status: s}) match on the status alone.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Status == e.Status && t.Message == ""
}

// LastError is the message of the calling OS thread's last failed call (ai00_last_error). Calls
// of this package return it in their *Error already; this is for code that mixes in raw calls.
func LastError() string {
	return C.GoString(C.ai00_last_error())
}

// Version is the library's version, major*10000 + minor*100 + patch (ai00_version_number).
func Version() uint32 {
	var v C.uint32_t
	C.ai00_version_number(&v)
	return uint32(v)
}

// CapabilitiesJSON describes what this build can do on this CPU as one JSON object
// (ai00_capabilities_json): the ISA a load would choose, the ISAs compiled in and runnable here,
// native int8/bf16 dot products, hardware threads, weight types, containers, chat formats and
// grammar inputs.
func CapabilitiesJSON() (string, error) {
	b, err := twoCallBytes(func(out *C.size_t, buf unsafe.Pointer, c C.size_t) C.ai00_status {
		return C.ai00_capabilities_json(out, (*C.char)(buf), c)
	})
	return string(b), err
}

// ABIVersion is the library's ABI version, its SOVERSION (ai00_abi_version).
func ABIVersion() uint32 {
	var v C.uint32_t
	C.ai00_abi_version(&v)
	return uint32(v)
}

// HeaderVersion and HeaderABIVersion are the versions of the ai00.h this package was built with.
const (
	HeaderVersion    = uint32(C.AI00_VERSION_NUMBER)
	HeaderABIVersion = uint32(C.AI00_ABI_VERSION)
)

// call runs one ABI call with the goroutine locked to its OS thread, so the thread's error slot
// read after a failure is the one the call filled.
func call(f func() C.ai00_status) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if st := f(); st != C.AI00_OK {
		return &Error{Status: Status(st), Message: C.GoString(C.ai00_last_error())}
	}
	return nil
}

func closedError(what string) error {
	return &Error{Status: ErrInvalidArgument, Message: what + " is closed"}
}

// cbytes is (pointer, length) of Go bytes for a borrowed input argument.
func cbytes(b []byte) (*C.char, C.size_t) {
	if len(b) == 0 {
		return nil, 0
	}
	return (*C.char)(unsafe.Pointer(&b[0])), C.size_t(len(b))
}

// emptyC is a static "" for inputs that may be empty but not NULL.
var emptyC = C.CString("")

// cbytesNonNil is cbytes with a non-NULL pointer for an empty input.
func cbytesNonNil(b []byte) (*C.char, C.size_t) {
	if len(b) == 0 {
		return emptyC, 0
	}
	return cbytes(b)
}

// cstr is a C copy of s for struct fields (cgo forbids Go pointers inside C structs); nil for
// "". The caller frees it with freeStr.
func cstr(s string) (*C.char, C.size_t) {
	if s == "" {
		return nil, 0
	}
	return C.CString(s), C.size_t(len(s))
}

func freeStr(p *C.char) {
	if p != nil {
		C.free(unsafe.Pointer(p))
	}
}

// ownedText copies a library-owned (pointer, length) string.
func ownedText(f func(p **C.char, n *C.size_t) C.ai00_status) (string, error) {
	var p *C.char
	var n C.size_t
	if err := call(func() C.ai00_status { return f(&p, &n) }); err != nil {
		return "", err
	}
	if p == nil || n == 0 {
		return "", nil
	}
	return C.GoStringN(p, C.int(n)), nil
}

// twoCall runs the size-query idiom: a first call for the needed count, then alloc(count)
// gives the caller-owned buffer for the second; returns the count written.
func twoCall(f func(out *C.size_t, buf unsafe.Pointer, capacity C.size_t) C.ai00_status,
	alloc func(n int) unsafe.Pointer) (int, error) {
	var need C.size_t
	err := call(func() C.ai00_status { return f(&need, nil, 0) })
	if err == nil {
		return 0, nil
	}
	if e, ok := err.(*Error); !ok || e.Status != ErrBufferTooSmall {
		return 0, err
	}
	buf := alloc(int(need))
	var got C.size_t
	if err := call(func() C.ai00_status { return f(&got, buf, need) }); err != nil {
		return 0, err
	}
	return int(got), nil
}

// twoCallBytes is twoCall into a []byte.
func twoCallBytes(f func(out *C.size_t, buf unsafe.Pointer, capacity C.size_t) C.ai00_status) ([]byte, error) {
	var b []byte
	n, err := twoCall(f, func(n int) unsafe.Pointer {
		b = make([]byte, n+1)
		return unsafe.Pointer(&b[0])
	})
	if err != nil || b == nil {
		return []byte{}, err
	}
	return b[:n], nil
}

// twoCallTokens is twoCall into a []uint32.
func twoCallTokens(f func(out *C.size_t, buf unsafe.Pointer, capacity C.size_t) C.ai00_status) ([]uint32, error) {
	var t []uint32
	n, err := twoCall(f, func(n int) unsafe.Pointer {
		t = make([]uint32, n+1)
		return unsafe.Pointer(&t[0])
	})
	if err != nil || t == nil {
		return []uint32{}, err
	}
	return t[:n], nil
}

func boolInt(b bool) C.int32_t {
	if b {
		return 1
	}
	return 0
}
