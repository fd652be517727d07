package ai00

// #include <stdlib.h>
// #include <ai00/ai00.h>
import "C"

import (
	"runtime"
	"unsafe"
)

// The chat formats the library knows (names for NewChatTemplate).
const (
	FormatAi00V1     = "ai00-v1"
	FormatAi00V0     = "ai00-v0"
	FormatGoose      = "goose"
	FormatOpenChatML = "openchatml"
)

// Formats lists every format.
var Formats = []string{FormatAi00V1, FormatAi00V0, FormatGoose, FormatOpenChatML}

// Thinking is the thinking effort asked of the model (ai00_thinking).
type Thinking int32

// Thinking levels.
const (
	ThinkingOff  Thinking = C.AI00_THINKING_OFF
	ThinkingOn   Thinking = C.AI00_THINKING_ON
	ThinkingABit Thinking = C.AI00_THINKING_A_BIT
	ThinkingALot Thinking = C.AI00_THINKING_A_LOT
)

// RenderOptions are render options (ai00_render_options); nil means the defaults.
type RenderOptions struct {
	// NoGenerationPrompt leaves out the assistant prefix (the default adds it).
	NoGenerationPrompt bool
	Thinking           Thinking
	// ToolsJSON is a JSON array of tools ({name, description?, parameters}), or "".
	ToolsJSON string
	// AssistantName is the speaker name of the generated turn, or "".
	AssistantName string
	// Reflect and Introspect set the OpenChatML <|reflect|> / <|introspect|> flags in the
	// system message; other formats refuse them (ErrUnsupported).
	Reflect, Introspect bool
	// PrependToken0 feeds token 0 before the prompt when true, never when false; nil keeps the
	// template's own setting.
	PrependToken0 *bool
}

// toC is a C-allocated copy (nil for nil options) and the function that frees it.
func (o *RenderOptions) toC() (*C.ai00_render_options, func()) {
	if o == nil {
		return nil, func() {}
	}
	p := (*C.ai00_render_options)(C.calloc(1, C.sizeof_ai00_render_options))
	C.ai00_render_options_default(p)
	p.add_generation_prompt = boolInt(!o.NoGenerationPrompt)
	p.thinking = C.int32_t(o.Thinking)
	p.tools_json, p.tools_json_len = cstr(o.ToolsJSON)
	p.assistant_name, p.assistant_name_len = cstr(o.AssistantName)
	p.reflect = boolInt(o.Reflect)
	p.introspect = boolInt(o.Introspect)
	if o.PrependToken0 != nil {
		p.prepend_token0 = boolInt(*o.PrependToken0)
	}
	return p, func() {
		freeStr(p.tools_json)
		freeStr(p.assistant_name)
		C.free(unsafe.Pointer(p))
	}
}

// ChatTemplate is a chat format plus its last render. One goroutine at a time (make one per
// goroutine; they are cheap).
type ChatTemplate struct {
	ptr *C.ai00_chat_template
}

// NewChatTemplate is a template for a format name; an unknown name is an error listing the
// known ones.
func NewChatTemplate(format string) (*ChatTemplate, error) {
	name, n := cbytes([]byte(format))
	var p *C.ai00_chat_template
	if err := call(func() C.ai00_status { return C.ai00_chat_template_new(&p, name, n) }); err != nil {
		return nil, err
	}
	t := &ChatTemplate{ptr: p}
	runtime.SetFinalizer(t, (*ChatTemplate).Close)
	return t, nil
}

// NewChatTemplateWithConfig is a template for a format name configured by TOML text
// (docs/chat-formats.md "Configuration": [prompts], [prompts.goose], [presets.NAME], ...). A TOML
// error is ErrFormat with "config:LINE:COLUMN: ...".
func NewChatTemplateWithConfig(format, configTOML string) (*ChatTemplate, error) {
	name, n := cbytes([]byte(format))
	cfg, cn := cbytesNonNil([]byte(configTOML))
	var p *C.ai00_chat_template
	if err := call(func() C.ai00_status {
		return C.ai00_chat_template_new_with_config(&p, name, n, cfg, cn)
	}); err != nil {
		return nil, err
	}
	t := &ChatTemplate{ptr: p}
	runtime.SetFinalizer(t, (*ChatTemplate).Close)
	return t, nil
}

// SamplerPreset is the sampling preset name of the template's configuration ("math", "chat",
// "creative", or a [presets.NAME] the configuration adds); an unknown name is an error listing
// the known ones.
func (t *ChatTemplate) SamplerPreset(name string) (SamplerParams, error) {
	if t.ptr == nil {
		return SamplerParams{}, closedError("chat template")
	}
	c, n := cbytes([]byte(name))
	var sp C.ai00_sampler_params
	if err := call(func() C.ai00_status {
		return C.ai00_chat_template_sampler_preset(&sp, t.ptr, c, n)
	}); err != nil {
		return SamplerParams{}, err
	}
	return samplerFromC(&sp), nil
}

// RenderFIM is a fill-in-the-middle prompt: the model writes the middle between prefix and
// suffix. ErrUnsupported for formats without FIM.
func (t *ChatTemplate) RenderFIM(prefix, suffix string) (string, error) {
	if t.ptr == nil {
		return "", closedError("chat template")
	}
	a, an := cbytesNonNil([]byte(prefix))
	b, bn := cbytesNonNil([]byte(suffix))
	return ownedText(func(p **C.char, l *C.size_t) C.ai00_status {
		return C.ai00_chat_template_render_fim(p, l, t.ptr, a, an, b, bn)
	})
}

// RenderFiles is a multi-file sequence: the files joined by file separators, starting with one
// when leadingSeparator is set.
func (t *ChatTemplate) RenderFiles(files []string, leadingSeparator bool) (string, error) {
	if t.ptr == nil {
		return "", closedError("chat template")
	}
	// cgo forbids Go pointers inside memory passed to C: the array and its texts are C copies.
	n := len(files)
	if n == 0 {
		n = 1
	}
	ptrs := (*[1 << 28]*C.char)(C.calloc(C.size_t(n), C.size_t(unsafe.Sizeof((*C.char)(nil)))))[:n:n]
	lens := (*[1 << 28]C.size_t)(C.calloc(C.size_t(n), C.size_t(unsafe.Sizeof(C.size_t(0)))))[:n:n]
	defer C.free(unsafe.Pointer(&ptrs[0]))
	defer C.free(unsafe.Pointer(&lens[0]))
	for i, f := range files {
		ptrs[i] = (*C.char)(C.CBytes(append([]byte(f), 0)))
		lens[i] = C.size_t(len(f))
		defer C.free(unsafe.Pointer(ptrs[i]))
	}
	return ownedText(func(p **C.char, l *C.size_t) C.ai00_status {
		return C.ai00_chat_template_render_files(p, l, t.ptr, &ptrs[0], &lens[0],
			C.size_t(len(files)), boolInt(leadingSeparator))
	})
}

// ParseTranscript reads a whole rendered conversation back into a JSON array of seed 004
// messages (OpenChatML). ErrFormat names the byte offset; ErrUnsupported for formats without a
// transcript parser.
func (t *ChatTemplate) ParseTranscript(text string) (string, error) {
	if t.ptr == nil {
		return "", closedError("chat template")
	}
	c, n := cbytesNonNil([]byte(text))
	return ownedText(func(p **C.char, l *C.size_t) C.ai00_status {
		return C.ai00_chat_template_parse_transcript(p, l, t.ptr, c, n)
	})
}

// Close frees the template. Idempotent.
func (t *ChatTemplate) Close() error {
	if t.ptr != nil {
		C.ai00_chat_template_free(t.ptr)
		t.ptr = nil
		runtime.SetFinalizer(t, nil)
	}
	return nil
}

// Render renders a conversation (JSON array of seed 004 messages) into a prompt.
func (t *ChatTemplate) Render(conversationJSON string, opts *RenderOptions) (string, error) {
	if t.ptr == nil {
		return "", closedError("chat template")
	}
	o, free := opts.toC()
	defer free()
	c, n := cbytes([]byte(conversationJSON))
	return ownedText(func(p **C.char, l *C.size_t) C.ai00_status {
		return C.ai00_chat_template_render(p, l, t.ptr, c, n, o)
	})
}

// StopSequences are the stop strings of the last render.
func (t *ChatTemplate) StopSequences() ([]string, error) {
	if t.ptr == nil {
		return nil, closedError("chat template")
	}
	var n C.size_t
	if err := call(func() C.ai00_status { return C.ai00_chat_template_stop_count(&n, t.ptr) }); err != nil {
		return nil, err
	}
	out := make([]string, 0, int(n))
	for i := C.size_t(0); i < n; i++ {
		s, err := ownedText(func(p **C.char, l *C.size_t) C.ai00_status {
			return C.ai00_chat_template_stop(p, l, t.ptr, i)
		})
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// LastRenderJSON is the last render with the hints a constrained decoder needs, as JSON.
func (t *ChatTemplate) LastRenderJSON() (string, error) {
	if t.ptr == nil {
		return "", closedError("chat template")
	}
	return ownedText(func(p **C.char, l *C.size_t) C.ai00_status {
		return C.ai00_chat_template_last_render_json(p, l, t.ptr)
	})
}

func (t *ChatTemplate) raw() *C.ai00_chat_template {
	if t == nil {
		return nil
	}
	return t.ptr
}

// LastError is the message of the last failed call on this template.
func (t *ChatTemplate) LastError() string {
	return C.GoString(C.ai00_chat_template_last_error(t.ptr))
}
