package ai00

// #include <stdlib.h>
// #include <ai00/ai00.h>
import "C"

import (
	"runtime"
	"unsafe"
)

// ParseOptions are output parser options (ai00_parse_options); nil means the defaults.
type ParseOptions struct {
	Thinking  Thinking // the thinking level the prompt was rendered with
	ToolsJSON string   // JSON array of the tools the prompt offered, or ""
	IDSeed    uint64   // tool call ids are "call_<8 hex>" of (IDSeed, position)
	// StreamToolCalls also emits DeltaToolCallStart and DeltaToolCallArguments as each call
	// streams (OpenAI-style streaming tool calls).
	StreamToolCalls bool
}

// OutputParser parses a reply produced elsewhere (a server, a log) into deltas and a message,
// as a chat generator would. One goroutine at a time. It keeps its own reference to the
// template's format.
type OutputParser struct {
	ptr *C.ai00_output_parser
}

// NewOutputParser is a parser for replies in the template's format.
func NewOutputParser(t *ChatTemplate, opts *ParseOptions) (*OutputParser, error) {
	o := (*C.ai00_parse_options)(C.calloc(1, C.sizeof_ai00_parse_options))
	defer C.free(unsafe.Pointer(o))
	C.ai00_parse_options_default(o)
	if opts != nil {
		o.thinking = C.int32_t(opts.Thinking)
		o.tools_json, o.tools_json_len = cstr(opts.ToolsJSON)
		defer freeStr(o.tools_json)
		o.id_seed = C.uint64_t(opts.IDSeed)
		o.stream_tool_calls = boolInt(opts.StreamToolCalls)
	}
	var p *C.ai00_output_parser
	if err := call(func() C.ai00_status { return C.ai00_output_parser_new(&p, t.raw(), o) }); err != nil {
		return nil, err
	}
	op := &OutputParser{ptr: p}
	runtime.SetFinalizer(op, (*OutputParser).Close)
	return op, nil
}

// Close frees the parser. Idempotent.
func (o *OutputParser) Close() error {
	if o.ptr != nil {
		C.ai00_output_parser_free(o.ptr)
		o.ptr = nil
		runtime.SetFinalizer(o, nil)
	}
	return nil
}

// Push feeds output text (chunks of any size); returns the number of queued deltas.
func (o *OutputParser) Push(text string) (int, error) {
	var n C.size_t
	b, l := cbytes([]byte(text))
	err := call(func() C.ai00_status { return C.ai00_output_parser_push(&n, o.ptr, b, l) })
	return int(n), err
}

// Finish ends the output; the last queued delta is DeltaFinish.
func (o *OutputParser) Finish(reason FinishReason) error {
	return call(func() C.ai00_status { return C.ai00_output_parser_finish(o.ptr, C.int32_t(reason)) })
}

// Pending is the number of queued deltas.
func (o *OutputParser) Pending() (int, error) {
	var n C.size_t
	err := call(func() C.ai00_status { return C.ai00_output_parser_pending(&n, o.ptr) })
	return int(n), err
}

// Next takes the oldest queued delta; ok is false when none is queued.
func (o *OutputParser) Next() (d Delta, ok bool, err error) {
	n, err := o.Pending()
	if err != nil || n == 0 {
		return Delta{}, false, err
	}
	cd := newCDelta()
	if err := call(func() C.ai00_status { return C.ai00_output_parser_next(&cd, o.ptr) }); err != nil {
		return Delta{}, false, err
	}
	return deltaFromC(&cd), true, nil
}

// Drain takes every queued delta.
func (o *OutputParser) Drain() ([]Delta, error) {
	var out []Delta
	for {
		d, ok, err := o.Next()
		if err != nil || !ok {
			return out, err
		}
		out = append(out, d)
	}
}

// FinishReason is FinishNone before Finish.
func (o *OutputParser) FinishReason() (FinishReason, error) {
	var r C.int32_t
	err := call(func() C.ai00_status { return C.ai00_output_parser_finish_reason(&r, o.ptr) })
	return FinishReason(r), err
}

// MessageJSON is the parsed message as seed 004 JSON (only after Finish).
func (o *OutputParser) MessageJSON() (string, error) {
	return ownedText(func(p **C.char, n *C.size_t) C.ai00_status {
		return C.ai00_output_parser_message_json(p, n, o.ptr)
	})
}

// Warnings of the parse (known after Finish).
func (o *OutputParser) Warnings() ([]string, error) {
	var n C.size_t
	if err := call(func() C.ai00_status { return C.ai00_output_parser_warning_count(&n, o.ptr) }); err != nil {
		return nil, err
	}
	var out []string
	for i := C.size_t(0); i < n; i++ {
		w, err := ownedText(func(p **C.char, l *C.size_t) C.ai00_status {
			return C.ai00_output_parser_warning(p, l, o.ptr, i)
		})
		if err != nil {
			return nil, err
		}
		out = append(out, w)
	}
	return out, nil
}

// LastError is the message of the last failed call on this parser.
func (o *OutputParser) LastError() string {
	return C.GoString(C.ai00_output_parser_last_error(o.ptr))
}
