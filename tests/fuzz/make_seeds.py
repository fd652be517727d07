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
# generate (16): operand, then the prompt byte (length % 16, chunk 1 + (byte >> 4) % 8) and the prompt
put("c_abi", "seed-generate",
    bytes([0, 1, 2, 0, 10, 0, 16, 0x40, 0x25]) + b"hello" + bytes([18, 2, 18, 2, 18, 2, 20, 0]))
put("c_abi", "seed-chat", bytes([0, 0, 2, 0, 14, 0, 15, 16, 17, 16, 18, 1, 19, 0, 18, 1, 20, 0]))
put("c_abi", "seed-stale-model", bytes([0, 0x40, 2, 0, 10, 4, 1, 0, 4, 0, 5, 1, 12, 3, 0x61, 0x62, 0x63, 7, 40, 3, 1, 3, 0]))
put("c_abi", "seed-sample", bytes([0, 0, 2, 0, 5, 0x81, 1, 2, 3, 6, 0, 6, 255, 21, 200, 0x68, 0x69]))
