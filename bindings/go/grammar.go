package ai00

// #include <stdlib.h>
// #include <ai00/ai00.h>
import "C"

import (
	"runtime"
	"unsafe"
)

// GrammarMode is how a generator constrains the output (ai00_grammar_mode); also the level of
// tool grammars.
type GrammarMode int32

// Grammar modes.
const (
	GrammarAutomatic   GrammarMode = C.AI00_GRAMMAR_AUTOMATIC
	GrammarNone        GrammarMode = C.AI00_GRAMMAR_NONE
	GrammarStructural  GrammarMode = C.AI00_GRAMMAR_STRUCTURAL
	GrammarSchemaAware GrammarMode = C.AI00_GRAMMAR_SCHEMA_AWARE
)

// ThinkingStart is where a reply starts relative to a thinking block (ai00_thinking_start).
type ThinkingStart int32

// Thinking starts.
const (
	ThinkingStartOptional      ThinkingStart = C.AI00_THINKING_START_OPTIONAL
	ThinkingStartForced        ThinkingStart = C.AI00_THINKING_START_FORCED
	ThinkingStartForcedPartial ThinkingStart = C.AI00_THINKING_START_FORCED_PARTIAL
)

// GrammarOptions are KBNF compile options (ai00_grammar_params); nil means the defaults.
type GrammarOptions struct {
	StartRule string // "" for "start"
}

// SchemaOptions are JSON Schema conversion options (ai00_schema_options).
type SchemaOptions struct {
	Lenient bool // unsupported keywords become warnings
	// StrictProperties: no keys beyond properties unless additionalProperties says so (the
	// default, false, is JSON Schema's: any).
	StrictProperties bool
	// FlexibleWhitespace: JSON whitespace wherever JSON allows it, as validators read it (the
	// default); false: one canonical layout.
	FlexibleWhitespace bool
	MaxWhitespace      uint32 // longest run with FlexibleWhitespace (<= 64; 0 = unbounded)
	// Compact, with FlexibleWhitespace false: the canonical layout without spaces,
	// {"a":1,"b":[1,2]}.
	Compact bool
}

// DefaultSchemaOptions are the library's defaults.
func DefaultSchemaOptions() SchemaOptions {
	var o C.ai00_schema_options
	C.ai00_schema_options_default(&o)
	return SchemaOptions{Lenient: o.lenient != 0, StrictProperties: o.strict_properties != 0,
		FlexibleWhitespace: o.flexible_whitespace != 0, MaxWhitespace: uint32(o.max_whitespace),
		Compact: o.compact != 0}
}

func (s *SchemaOptions) toC() *C.ai00_schema_options {
	if s == nil {
		return nil
	}
	o := (*C.ai00_schema_options)(C.calloc(1, C.sizeof_ai00_schema_options))
	C.ai00_schema_options_default(o)
	o.lenient = boolInt(s.Lenient)
	o.strict_properties = boolInt(s.StrictProperties)
	o.flexible_whitespace = boolInt(s.FlexibleWhitespace)
	o.max_whitespace = C.uint32_t(s.MaxWhitespace)
	o.compact = boolInt(s.Compact)
	return o
}

// ToolGrammarOptions are tool-call grammar options (ai00_tool_grammar_params); nil means the
// defaults.
type ToolGrammarOptions struct {
	Level         GrammarMode // GrammarStructural (0 means it too) or GrammarSchemaAware
	ThinkingStart ThinkingStart
	AllowEOSEnd   bool           // a text answer may also end at end of text
	Schema        *SchemaOptions // argument schemas (schema aware); nil = defaults
}

// CheckVerdict is why Grammar.Check rejected a text (ai00_check_verdict).
type CheckVerdict int32

// Verdicts.
const (
	CheckAccepted CheckVerdict = C.AI00_CHECK_ACCEPTED
	CheckBytes    CheckVerdict = C.AI00_CHECK_BYTES
	CheckToken    CheckVerdict = C.AI00_CHECK_TOKEN
	CheckEndToken CheckVerdict = C.AI00_CHECK_END_TOKEN
)

// CheckResult is the outcome of Grammar.Check.
type CheckResult struct {
	Verdict    CheckVerdict
	ByteOffset uint64
	TokenIndex uint64
	TokenID    uint32
}

// Grammar is a compiled grammar: immutable, safe for concurrent use by any number of
// goroutines and generators.
type Grammar struct {
	ptr *C.ai00_grammar
}

func newGrammar(f func(out **C.ai00_grammar) C.ai00_status) (*Grammar, error) {
	var p *C.ai00_grammar
	if err := call(func() C.ai00_status { return f(&p) }); err != nil {
		return nil, err
	}
	g := &Grammar{ptr: p}
	runtime.SetFinalizer(g, (*Grammar).Close)
	return g, nil
}

// CompileGrammar compiles KBNF (start rule "start") against the model's vocabulary, for
// generation.
func CompileGrammar(m *Model, kbnf string) (*Grammar, error) {
	mp, err := m.raw()
	if err != nil {
		return nil, err
	}
	k, n := cbytes([]byte(kbnf))
	return newGrammar(func(out **C.ai00_grammar) C.ai00_status { return C.ai00_grammar_compile(out, mp, k, n) })
}

// GrammarFromJSONSchema compiles a JSON Schema against the model's vocabulary, for generation.
func GrammarFromJSONSchema(m *Model, schema string) (*Grammar, error) {
	mp, err := m.raw()
	if err != nil {
		return nil, err
	}
	s, n := cbytes([]byte(schema))
	return newGrammar(func(out **C.ai00_grammar) C.ai00_status {
		return C.ai00_grammar_from_json_schema(out, mp, s, n)
	})
}

// GrammarFromJSONSchemaWithOptions is GrammarFromJSONSchema with conversion options (for
// generation e.g. the compact layout and strict properties); nil options are the defaults. Bad
// options are ErrInvalidArgument.
func GrammarFromJSONSchemaWithOptions(m *Model, schema string, opts *SchemaOptions) (*Grammar, error) {
	mp, err := m.raw()
	if err != nil {
		return nil, err
	}
	o := opts.toC()
	if o != nil {
		defer C.free(unsafe.Pointer(o))
	}
	s, n := cbytes([]byte(schema))
	return newGrammar(func(out **C.ai00_grammar) C.ai00_status {
		return C.ai00_grammar_from_json_schema_with_options(out, mp, s, n, o)
	})
}

// NewGrammar compiles KBNF at byte level (tok nil) or against a tokenizer, for checks.
func NewGrammar(tok *Tokenizer, kbnf string, opts *GrammarOptions) (*Grammar, error) {
	p := (*C.ai00_grammar_params)(C.calloc(1, C.sizeof_ai00_grammar_params))
	defer C.free(unsafe.Pointer(p))
	C.ai00_grammar_params_default(p)
	if opts != nil {
		p.start_rule, p.start_rule_len = cstr(opts.StartRule)
		defer freeStr(p.start_rule)
	}
	k, n := cbytes([]byte(kbnf))
	return newGrammar(func(out **C.ai00_grammar) C.ai00_status {
		return C.ai00_grammar_new(out, tok.raw(), k, n, p)
	})
}

// NewGrammarFromJSONSchema converts a JSON Schema to KBNF and compiles it, for checks; nil
// options are the defaults.
func NewGrammarFromJSONSchema(tok *Tokenizer, schema string, opts *SchemaOptions) (*Grammar, error) {
	o := opts.toC()
	if o != nil {
		defer C.free(unsafe.Pointer(o))
	}
	s, n := cbytes([]byte(schema))
	return newGrammar(func(out **C.ai00_grammar) C.ai00_status {
		return C.ai00_grammar_new_from_json_schema(out, tok.raw(), s, n, o)
	})
}

// NewToolGrammar is the tool-call grammar of the template's format for the tools in toolsJSON.
func NewToolGrammar(tok *Tokenizer, t *ChatTemplate, toolsJSON string, opts *ToolGrammarOptions) (*Grammar, error) {
	p := (*C.ai00_tool_grammar_params)(C.calloc(1, C.sizeof_ai00_tool_grammar_params))
	defer C.free(unsafe.Pointer(p))
	C.ai00_tool_grammar_params_default(p)
	if opts != nil {
		if opts.Level != GrammarAutomatic {
			p.level = C.int32_t(opts.Level)
		}
		p.thinking_start = C.int32_t(opts.ThinkingStart)
		p.allow_eos_end = boolInt(opts.AllowEOSEnd)
		if s := opts.Schema.toC(); s != nil {
			p.schema = s
			defer C.free(unsafe.Pointer(s))
		}
	}
	tools, n := cbytes([]byte(toolsJSON))
	return newGrammar(func(out **C.ai00_grammar) C.ai00_status {
		return C.ai00_grammar_new_for_tools(out, tok.raw(), t.raw(), tools, n, p)
	})
}

// Close frees the grammar (generators using it keep their own reference). Idempotent.
func (g *Grammar) Close() error {
	if g.ptr != nil {
		C.ai00_grammar_free(g.ptr)
		g.ptr = nil
		runtime.SetFinalizer(g, nil)
	}
	return nil
}

// Accepts says whether text is a complete sentence of the grammar.
func (g *Grammar) Accepts(text string) (bool, error) {
	var ok C.int32_t
	b, n := cbytes([]byte(text))
	err := call(func() C.ai00_status { return C.ai00_grammar_accepts(&ok, g.ptr, b, n) })
	return ok != 0, err
}

// Check checks text and says where it is rejected.
func (g *Grammar) Check(text string) (CheckResult, error) {
	var r C.ai00_grammar_check_result
	r.struct_size = C.sizeof_ai00_grammar_check_result
	b, n := cbytes([]byte(text))
	if err := call(func() C.ai00_status { return C.ai00_grammar_check(&r, g.ptr, b, n) }); err != nil {
		return CheckResult{}, err
	}
	return CheckResult{CheckVerdict(r.verdict), uint64(r.byte_offset), uint64(r.token_index),
		uint32(r.token_id)}, nil
}

// KBNF is the grammar's KBNF text (converted schemas and tool grammars included).
func (g *Grammar) KBNF() (string, error) {
	return ownedText(func(p **C.char, n *C.size_t) C.ai00_status { return C.ai00_grammar_kbnf(p, n, g.ptr) })
}

// Warnings of the construction (lenient schema conversion).
func (g *Grammar) Warnings() ([]string, error) {
	var n C.size_t
	if err := call(func() C.ai00_status { return C.ai00_grammar_warning_count(&n, g.ptr) }); err != nil {
		return nil, err
	}
	var out []string
	for i := C.size_t(0); i < n; i++ {
		w, err := ownedText(func(p **C.char, l *C.size_t) C.ai00_status {
			return C.ai00_grammar_warning(p, l, g.ptr, i)
		})
		if err != nil {
			return nil, err
		}
		out = append(out, w)
	}
	return out, nil
}

// LastError is the message of the last failed call on this grammar.
func (g *Grammar) LastError() string {
	return C.GoString(C.ai00_grammar_last_error(g.ptr))
}
