#!/usr/bin/env python3
"""Writes the seed corpora of tests/fuzz/corpus/<target>/ (small inputs made by this script, no
fixture bytes). Deterministic: running it again rewrites the same files. Inputs a campaign finds
(crashes, new coverage worth keeping) are added next to these by hand, named crash-* / cov-*."""
import io, json, os, pickle, struct, sys, types, zipfile

HERE = os.path.dirname(os.path.abspath(__file__))

def put(target, name, data):
    d = os.path.join(HERE, "corpus", target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)

def f32(n, start=0.0):
    return b"".join(struct.pack("<f", start + 0.25 * i) for i in range(n))

# ---- weights: one tiny file of each format -------------------------------------------------
def safetensors():
    tensors = {"emb.weight": (4, 2), "blocks.0.ln1.weight": (2,), "head.weight": (4, 2)}
    header, data = {"__metadata__": {"format": "pt"}}, b""
    for name, shape in tensors.items():
        n = 1
        for s in shape: n *= s
        header[name] = {"dtype": "F32", "shape": list(shape),
                        "data_offsets": [len(data), len(data) + 4 * n]}
        data += f32(n)
    h = json.dumps(header).encode()
    return struct.pack("<Q", len(h)) + h + data

def gguf():
    def s(x): x = x.encode(); return struct.pack("<Q", len(x)) + x
    kv = [(s("general.architecture"), 8, s("rwkv7")),
          (s("rwkv7.block_count"), 4, struct.pack("<I", 1)),
          (s("tokenizer.ggml.tokens"), 9,
           struct.pack("<IQ", 8, 4) + s("<s>") + s("a") + s("\\x41") + s("\\n"))]
    out = b"GGUF" + struct.pack("<IQQ", 3, 1, len(kv))
    for k, t, v in kv: out += k + struct.pack("<I", t) + v
    out += s("token_embd.weight") + struct.pack("<IQQIQ", 2, 2, 4, 0, 0)
    out += b"\0" * ((32 - len(out) % 32) % 32)
    return out + f32(8)

def rwkv_bin():
    out = struct.pack("<6I", 0x67676D66, 101, 4, 2, 1, 0)
    for name, dims in (("emb.weight", (2, 4)), ("blocks.0.ln1.weight", (2,))):
        n = 1
        for d in dims: n *= d
        out += struct.pack("<3I", len(dims), len(name), 0) + struct.pack("<%dI" % len(dims), *dims)
        out += name.encode() + f32(n)
    return out

def pth():
    # A fake `torch` module so pickle writes the globals torch.save uses.
    torch = types.ModuleType("torch"); utils = types.ModuleType("torch._utils")
    class FloatStorage: pass
    FloatStorage.__module__ = "torch"
    def _rebuild_tensor_v2(*a): pass
    _rebuild_tensor_v2.__module__ = "torch._utils"
    _rebuild_tensor_v2.__qualname__ = "_rebuild_tensor_v2"
    FloatStorage.__qualname__ = "FloatStorage"
    torch.FloatStorage = FloatStorage; torch._utils = utils; utils._rebuild_tensor_v2 = _rebuild_tensor_v2
    sys.modules["torch"] = torch; sys.modules["torch._utils"] = utils
    class T:
        def __init__(self, key, shape): self.key, self.shape = key, shape
        def __reduce__(self):
            n = 1
            for s in self.shape: n *= s
            stride = tuple(int(x) for x in ([self.shape[1], 1] if len(self.shape) == 2 else [1]))
            return (_rebuild_tensor_v2, (("storage", FloatStorage, self.key, "cpu", n), 0,
                                         tuple(self.shape), stride, False, {}))
    class P(pickle.Pickler):
        def persistent_id(self, obj):
            return obj if isinstance(obj, tuple) and obj and obj[0] == "storage" else None
    buf = io.BytesIO()
    P(buf, protocol=2).dump({"emb.weight": T("0", (4, 2)), "blocks.0.ln1.weight": T("1", (2,))})
    z = io.BytesIO()
    with zipfile.ZipFile(z, "w", zipfile.ZIP_STORED) as zf:
        zf.writestr("archive/data.pkl", buf.getvalue())
        zf.writestr("archive/data/0", f32(8))
        zf.writestr("archive/data/1", f32(2))
        zf.writestr("archive/version", "3\n")
    return z.getvalue(), buf.getvalue()

pth_zip, pth_pickle = pth()
put("weights", "seed-safetensors.st", safetensors())
put("weights", "seed-gguf.gguf", gguf())
put("weights", "seed-rwkv-cpp.bin", rwkv_bin())
put("weights", "seed-pth.pth", pth_zip)
put("pickle", "seed-pickle", b"\0" + pth_pickle)
put("pickle", "seed-zip", b"\1" + pth_zip)
put("pickle", "seed-deep-marks", b"\0\x80\x02" + b"(" * 300 + b".")

# ---- State files (tiny fixture model: 12 layers, C = 64, 1 head of 64) -----------------------
H, N, L = 1, 64, 12
def state_file(bad=None):
    header, data = {}, b""
    for l in range(L):
        vals = [0.001 * i for i in range(H * N * N)]
        if bad is not None and l == 0: vals[5] = bad
        blob = struct.pack("<%de" % len(vals), *vals)
        header["blocks.%d.att.time_state" % l] = {"dtype": "F16", "shape": [H, N, N],
                                                   "data_offsets": [len(data), len(data) + len(blob)]}
        data += blob
    h = json.dumps(header).encode()
    return b"\0" + struct.pack("<Q", len(h)) + h + data
put("state", "seed-state-file", state_file())
put("state", "seed-state-file-nan", state_file(float("nan")))
put("state", "seed-record-header", b"\1AI00STAT" + struct.pack("<IIQIIIIQQQ", 2, 64, 0, 12, 64, 1, 64, 0, 0, 0))

# ---- vocabularies --------------------------------------------------------------------------
put("vocab", "seed-txt", "\0" + "".join("%d %r %d\n" % (i, chr(96 + i), 1) for i in range(1, 27))
    + "27 b'\\xff' 1\n28 '\\u4f60' 3\n")
put("vocab", "seed-json", "\1" + json.dumps({str(i): chr(96 + i) for i in range(1, 27)} | {"27": [255]}))
put("vocab", "seed-gguf", "\2a\nb\n\\x41\n\\t\n\\\\\nab\n\\x4")

# ---- tokenizer -----------------------------------------------------------------------------
put("tokenizer", "seed-text", "Hello, 你好! The quick brown fox.\n\tdef f(x): return x**2")
put("tokenizer", "seed-bytes", bytes(range(256)))

# ---- KBNF ----------------------------------------------------------------------------------
put("kbnf", "seed-json-like", "start ::= value;\nvalue ::= object | array | #'-?[0-9]+' | '\"' #'[^\"]*' '\"';\n"
    "object ::= '{' (pair (',' pair)*)? '}';\npair ::= '\"' #'[a-z]+' '\"' ':' value;\n"
    "array ::= '[' (value (',' value)*)? ']';\0{\"a\":[1,2,{\"b\":-3}]}")
put("kbnf", "seed-regex", "start ::= #'(?i)[a-z&&[^q]]{2,5}\\\\d+' #e'x+y' #ex'ab' #substrs'hello';\0Ab1")
put("kbnf", "seed-nesting", "start ::= " + "(" * 70 + "'a'" + ")" * 70 + ";\0a")
put("kbnf", "seed-chain", "".join("r%d ::= 'a' r%d | 'c';\n" % (i, i + 1) for i in range(50)) + "r50 ::= 'b';\nstart ::= r0;\0aac")

# ---- JSON Schema ---------------------------------------------------------------------------
put("json_schema", "seed-object", json.dumps({"type": "object", "properties": {
    "name": {"type": "string", "minLength": 1, "maxLength": 8},
    "age": {"type": "integer", "minimum": 0, "maximum": 150},
    "tags": {"type": "array", "items": {"enum": ["a", "b"]}, "maxItems": 3}},
    "required": ["name"], "additionalProperties": False}))
put("json_schema", "seed-defs", json.dumps({"$defs": {"node": {"type": "object", "properties": {
    "next": {"anyOf": [{"$ref": "#/$defs/node"}, {"type": "null"}]}}}}, "$ref": "#/$defs/node"}))
put("json_schema", "seed-pattern", json.dumps({"type": "string", "pattern": "^[A-Z][a-z]+$"}))

# ---- message JSON --------------------------------------------------------------------------
conv = [{"role": "system", "content": "Be brief."},
        {"role": "user", "content": "What is 2+2?"},
        {"role": "assistant", "content": "4", "reasoning": "simple",
         "tool_calls": [{"id": "call_1", "name": "calc", "arguments": {"x": 2}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": {"result": 4}}]
put("message_json", "seed-conversation", b"\0" + json.dumps(conv).encode())
put("message_json", "seed-tools", b"\1" + json.dumps([{"name": "calc", "description": "adds",
    "parameters": {"type": "object", "properties": {"x": {"type": "integer"}}}}]).encode())
put("message_json", "seed-bad-utf8", b"\0" + b'[{"role":"user","content":"ab\xff"}]')
put("message_json", "seed-deep", b"\0" + b"[" * 80 + b"]" * 80)

# ---- format parsers (byte 0: format and options, 8 chunk sizes, then output) -----------------
outputs = ["Hello there.\n\nUser: next", "<think>hmm</think>The answer is 4.<|im_end|>",
           "Sure.<tool_call>{\"name\":\"calc\",\"arguments\":{\"x\":2}}</tool_call>",
           "Assistant: <think>\nx\n</think>\nok\n\n", "\xe4\xbd\xa0\xe5\xa5\xbd<|im_end|>"]
for i, o in enumerate(outputs):
    for fmt in range(4):
        put("format_parser", "seed-%d-%d" % (i, fmt), bytes([fmt | (i & 1) << 4]) + bytes([1, 3, 7, 2, 15, 5, 0, 9]) + o.encode())

# ---- C ABI call sequences ------------------------------------------------------------------
# A call is a family byte (fuzz_c_abi.cpp kFamilies: byte % 16) and an operation byte `a`, then
# its operands. op(family, **bits) finds the smallest `a` whose fields have the given values.
FAM = dict(model=0, state=1, eval=2, save=3, bundle=4, tok=5, misc=6, grammar=7, tmpl=8,
           parser=9, gen_new=10, gen=11, batch=12, cache=13)

def op(family, mod, sub, **fields):
    """The call bytes: a % mod == sub and, for each (div, m, value) in fields, a / div % m == value."""
    for a in range(256):
        if a % mod == sub and all(a // d % m == v for d, m, v in fields.values()):
            return bytes([FAM[family], a])
    raise ValueError(family)

BORROW = op("model", 8, 0) + bytes([1])
def state_new(slot): return op("state", 6, 0, s=(8, 3, slot))
def text_in(t): return bytes([12 + 16 * ((len(t) - 12) // 16)]) + t if len(t) % 16 == 12 else None

put("c_abi", "seed-generate-raw",  # a raw turn stepped, pulled, inspected, freed
    BORROW + state_new(0) + op("gen_new", 2, 1) + bytes([3 + 4 * 4, 0, 0x20, 5]) + b"hello"
    + op("gen", 4, 0) + b"\0" + op("gen", 4, 0) + b"\0"
    + op("gen", 4, 1, k=(8, 4, 1)) + b"\0\0" + op("gen", 4, 2) + b"\0" + op("gen", 4, 3))
put("c_abi", "seed-chat",  # a goose chat turn run to its end, then a render with tools
    BORROW + op("tmpl", 7, 0) + state_new(0) + op("gen_new", 2, 0) + bytes([2 + 4 * 8, 0, 0x20])
    + bytes([4, 0]) + op("gen", 4, 0, k=(8, 4, 2)) + b"\x01" + op("gen", 4, 2) + b"\0"
    + op("tmpl", 7, 1) + bytes([5, 0x18, 0xff]) + op("tmpl", 7, 3) + b"\0")
put("c_abi", "seed-stale-model",  # a fresh model freed under a State, grammar, batch, tokenizer
    op("model", 8, 0) + bytes([0, 0, 0, 0, 0]) + state_new(0) + op("grammar", 6, 0) + bytes([0, 0])
    + op("tok", 6, 1) + op("batch", 7, 0) + b"\0"
    + op("gen_new", 2, 1) + bytes([3 + 4 * 4, 8, 0x20, 3]) + b"yes" + op("model", 8, 1)
    + op("batch", 7, 1) + op("batch", 7, 3) + bytes([1, 0, 0]) + op("batch", 7, 4) + b"\0"
    + op("tok", 6, 3, n=(8, 16, 4)) + text_in(b"stale parent") + op("gen", 4, 3)
    + state_new(1) + op("batch", 7, 5))
put("c_abi", "seed-sample-score",  # eval, sample with fields and biases, score tokens and texts
    BORROW + state_new(0) + op("eval", 4, 0) + bytes([3, 1, 2, 3])
    + op("eval", 4, 2) + bytes([5 | 0x40, 0, 2, 0, 1, 3, 7, 40, 9, 2, 65, 3, 200, 6])
    + bytes([255, 7, 0, 1, 10, 2, 20, 13])
    + op("eval", 4, 3) + bytes([0x4a, 2, 1, 2, 1, 3, 1, 9]) + op("eval", 4, 3, t=(128, 2, 1))
    + bytes([0x52, 0]))
put("c_abi", "seed-save-bundle",  # save and load in memory and files, a bundle of two States
    BORROW + state_new(0) + state_new(1) + op("eval", 4, 0) + bytes([2, 7, 8])
    + op("save", 4, 0) + bytes([255]) + op("save", 4, 1, f=(128, 2, 1))
    + op("save", 4, 2, f=(128, 2, 1)) + op("save", 4, 3, f=(128, 2, 1))
    + op("bundle", 6, 0, n=(64, 4, 2)) + bytes([160]) + op("bundle", 6, 3) + bytes([1, 0])
    + op("bundle", 6, 4, s=(8, 3, 2)) + b"\1" + op("bundle", 6, 1, n=(64, 4, 1))
    + op("bundle", 6, 5) + op("bundle", 6, 2, f=(8, 2, 1)))
put("c_abi", "seed-grammar-parser",  # byte-level KBNF checked; an ai00-v1 parser; a tool grammar
    op("grammar", 6, 0, k=(8, 6, 3)) + bytes([1, 0, 0]) + op("grammar", 6, 4) + b"\0"
    + text_in(b"abcd efg end") + op("grammar", 6, 2) + b"\0"
    + op("tmpl", 7, 0, f=(8, 6, 1)) + op("parser", 7, 0) + bytes([0x38])
    + op("parser", 7, 1) + bytes([9]) + op("parser", 7, 2) + b"\0" + op("parser", 7, 3) + b"\0"
    + op("parser", 7, 4) + b"\0" + op("grammar", 6, 0, k=(8, 6, 5), s=(64, 2, 1)) + bytes([6, 0, 0x42]))
put("c_abi", "seed-cache-limits",  # prefix cache warmed, limits and defaults, a schema
    op("grammar", 6, 1, k=(8, 6, 4), s=(64, 2, 1)) + bytes([3, 0x0d]) + BORROW + op("cache", 6, 0) + b"\0" + op("cache", 6, 3, n=(8, 8, 5)) + b"hello"
    + op("cache", 6, 4) + bytes([4]) + op("cache", 6, 1) + b"\0" + state_new(0)
    + op("gen_new", 2, 1) + bytes([1 + 4 * 2, 0x80, 0x20, 5]) + b"hello" + op("gen", 4, 0)
    + b"\0" + op("misc", 8, 4) + bytes([0, 0x41, 3, 1, 2]) + op("misc", 8, 1) + b"\0"
    + op("misc", 8, 6, k=(8, 15, 3)) + b"\0" + op("misc", 8, 2) + b"\xf7" + op("cache", 6, 5))
