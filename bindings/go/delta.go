package ai00

// #include <ai00/ai00.h>
import "C"

// DeltaKind is what a Delta carries (ai00_delta_kind).
type DeltaKind int32

// Delta kinds.
const (
	DeltaText      DeltaKind = C.AI00_DELTA_TEXT
	DeltaReasoning DeltaKind = C.AI00_DELTA_REASONING
	DeltaToolCall  DeltaKind = C.AI00_DELTA_TOOL_CALL
	DeltaFinish    DeltaKind = C.AI00_DELTA_FINISH
	// DeltaToolCallStart (only with ParseOptions.StreamToolCalls): a call starts; ToolCall
	// has Index, ID and Name. The DeltaToolCall of the same Index follows and stays the
	// authoritative whole call.
	DeltaToolCallStart DeltaKind = C.AI00_DELTA_TOOL_CALL_START
	// DeltaToolCallArguments (only with ParseOptions.StreamToolCalls): Text is the next piece
	// of the arguments JSON text of call ToolCall.Index; the pieces concatenate to the
	// DeltaToolCall's Arguments.
	DeltaToolCallArguments DeltaKind = C.AI00_DELTA_TOOL_CALL_ARGUMENTS
)

// FinishReason is why a turn ended (ai00_finish_reason).
type FinishReason int32

// Finish reasons.
const (
	FinishNone        FinishReason = C.AI00_FINISH_NONE
	FinishStop        FinishReason = C.AI00_FINISH_STOP
	FinishLength      FinishReason = C.AI00_FINISH_LENGTH
	FinishToolCalls   FinishReason = C.AI00_FINISH_TOOL_CALLS
	FinishCancelled   FinishReason = C.AI00_FINISH_CANCELLED
	FinishGrammarDone FinishReason = C.AI00_FINISH_GRAMMAR_DONE
	FinishError       FinishReason = C.AI00_FINISH_ERROR
)

// String is the library's name ("stop", "length", "tool_calls", ...; ai00_finish_reason_name),
// or "none" while running.
func (f FinishReason) String() string {
	var p *C.char
	if C.ai00_finish_reason_name(&p, C.int32_t(f)) != C.AI00_OK {
		return "none"
	}
	return C.GoString(p)
}

// ToolCall is one tool call of a reply.
type ToolCall struct {
	Index     int    // position of the call in the message
	ID        string // "call_<8 hex>", assigned by the library
	Name      string
	Arguments string // the complete arguments JSON text
	Valid     bool   // false when the call turned out malformed (its raw text is content)
}

// Delta is one streamed piece of a reply, copied out of the library.
type Delta struct {
	Kind         DeltaKind
	Text         string       // DeltaText / DeltaReasoning text, DeltaToolCallArguments piece
	ToolCall     *ToolCall    // DeltaToolCall, DeltaToolCallStart; Index only for arguments
	FinishReason FinishReason // DeltaFinish; FinishNone otherwise
	// Err is set on the last value of Generator.Stream when the stream ended with an error.
	Err error
}

func deltaFromC(d *C.ai00_delta) Delta {
	text := func(p *C.char, n C.size_t) string {
		if p == nil || n == 0 {
			return ""
		}
		return C.GoStringN(p, C.int(n))
	}
	out := Delta{Kind: DeltaKind(d.kind), FinishReason: FinishReason(d.finish_reason)}
	switch out.Kind {
	case DeltaText, DeltaReasoning:
		out.Text = text(d.text, d.text_len)
	case DeltaToolCall:
		out.ToolCall = &ToolCall{Index: int(d.call), ID: text(d.id, d.id_len),
			Name: text(d.name, d.name_len), Arguments: text(d.text, d.text_len), Valid: d.valid != 0}
	case DeltaToolCallStart:
		out.ToolCall = &ToolCall{Index: int(d.call), ID: text(d.id, d.id_len),
			Name: text(d.name, d.name_len), Valid: true}
	case DeltaToolCallArguments:
		out.Text = text(d.text, d.text_len)
		out.ToolCall = &ToolCall{Index: int(d.call), Valid: true}
	}
	return out
}

func newCDelta() C.ai00_delta {
	var d C.ai00_delta
	d.struct_size = C.sizeof_ai00_delta
	return d
}
