package ai00

// #include <ai00/ai00.h>
import "C"

import "runtime/cgo"

// deltaSink is the Go side of a push callback; a panic in fn is kept and re-raised after the
// C call returns (it must not unwind through the library).
type deltaSink struct {
	fn    func(Delta) bool
	panic interface{}
}

//export goAi00Delta
func goAi00Delta(d *C.ai00_delta, handle C.uintptr_t) C.int32_t {
	sink := cgo.Handle(handle).Value().(*deltaSink)
	if sink.panic != nil {
		return 1
	}
	stop := C.int32_t(1)
	func() {
		defer func() {
			if r := recover(); r != nil {
				sink.panic = r
			}
		}()
		if sink.fn(deltaFromC(d)) {
			stop = 0
		}
	}()
	return stop
}

// progressSink is the Go side of a conversion or load progress callback (see deltaSink).
type progressSink struct {
	fn    func(done, total uint64) bool
	panic interface{}
}

//export goAi00Progress
func goAi00Progress(done, total C.uint64_t, handle C.uintptr_t) C.int32_t {
	sink := cgo.Handle(handle).Value().(*progressSink)
	if sink.panic != nil {
		return 1
	}
	stop := C.int32_t(1)
	func() {
		defer func() {
			if r := recover(); r != nil {
				sink.panic = r
			}
		}()
		if sink.fn(uint64(done), uint64(total)) {
			stop = 0
		}
	}()
	return stop
}
