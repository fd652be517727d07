"""The behaviours every ai00 binding shows (issue 14): load, the C example's tokens, tool
calls, JSON Schema replies, State save/load, cancel from another thread, errors."""
import json
import os
import subprocess
import threading

import pytest

import ai00
from conftest import CHAT, MODEL, SHARED, TINY, TOOLS, VOCAB


def test_versions_and_status():
    assert ai00.version() == "0.5.0"
    assert ai00.abi_version() == 0
    assert ai00.status_string(ai00.Status.GRAMMAR) != ai00.status_string(ai00.Status.IO)
    assert ai00.finish_reason_name(ai00.FinishReason.TOOL_CALLS) == "tool_calls"
    with pytest.raises(ai00.InvalidArgumentError):
        ai00.finish_reason_name(99)
    assert "99" in ai00.last_error() or ai00.last_error() != ""


def test_model_load_and_info(model):
    info = model.info
    assert (info.n_embd, info.n_layer, info.n_vocab, info.n_tokens) == (128, 3, 512, 512)
    with model.new_state() as fresh:
        # The recurrent floats (L * C * (N + 2) * 4); a saved State adds its header and sampler.
        assert info.state_bytes == model.info_json()["state_bytes"] == 3 * 128 * 66 * 4
        assert fresh.size > info.state_bytes
    assert model.isa in ("scalar", "sse2", "avx2", "avx512", "avx512_vnni", "avx512_bf16", "neon64")
    j = model.info_json()
    assert j["format"] == "gguf" and j["n_embd"] == 128
    ids = model.tokenize("hello\n\n")
    assert ids[0] == 105 and ids[-1] == 261
    assert model.detokenize(ids) == "hello\n\n"
    with ai00.Model(MODEL, n_threads=2, forced_isa="scalar") as m2:
        assert m2.isa == "scalar" and m2.info.n_threads == 2


def test_same_tokens_as_the_c_example(model, state):
    """The turn of examples/c/chat_turn.c: same model, conversation, seed and budget."""
    with ai00.ChatTemplate("goose") as goose, \
            ai00.Generator.chat(model, state, goose, CHAT, max_tokens=32, seed=2024) as gen:
        text = gen.text()
        tokens = gen.tokens
        assert gen.finish_reason == ai00.FinishReason.LENGTH
    assert len(tokens) == 32
    ref = os.environ.get("AI00_REFERENCE_TURN")
    if ref:
        out = subprocess.run([ref, str(MODEL)], check=True, capture_output=True, text=True)
        assert tokens == [int(t) for t in out.stdout.strip().split(",")]
    example = os.environ.get("AI00_EXAMPLE_CHAT_TURN")
    if example:
        out = subprocess.run([example, str(MODEL)], check=True, capture_output=True)
        streamed = out.stdout.split(b"Assistant:", 1)[1].split(b"\n[finish reason", 1)[0]
        assert streamed.decode("utf-8") == text
    if not ref and not example:
        pytest.skip("AI00_REFERENCE_TURN / AI00_EXAMPLE_CHAT_TURN not set (ctest sets them)")


def test_push_pull_and_step_agree(model):
    def turn(drive):
        with model.new_state() as s, ai00.ChatTemplate("goose") as t, \
                ai00.Generator.chat(model, s, t, CHAT, max_tokens=12, seed=5) as g:
            return drive(g), g.tokens

    def pull(g):
        return [d for d in g]

    def push(g):
        got = []
        assert g.run(got.append) == ai00.FinishReason.LENGTH
        return got

    def step(g):
        got = []
        while not g.finished:
            got += g.step(2)
        return got

    a, b, c = turn(pull), turn(push), turn(step)
    assert a == b == c
    assert a[0][-1].kind == ai00.DeltaKind.FINISH


def test_callback_stops_turn_and_exceptions_propagate(model, state):
    with ai00.ChatTemplate("goose") as t:
        with ai00.Generator.chat(model, state, t, CHAT, max_tokens=50, seed=1) as g:
            assert g.run(lambda d: True) in (ai00.FinishReason.CANCELLED, ai00.FinishReason.STOP)
        state.reset()

        def boom(d):
            raise KeyError("from the callback")
        with ai00.Generator.chat(model, state, t, CHAT, max_tokens=50, seed=1) as g:
            with pytest.raises(KeyError):
                g.run(boom)


def test_tool_call_parsed_into_a_structured_call():
    reply = ('<ai00:function_calls>\n  <invoke name="get_weather">\n    <parameter '
             'name="city">Tokyo</parameter>\n  </invoke>\n</ai00:function_calls>')
    with ai00.ChatTemplate("ai00-v1") as v1, v1.output_parser(tools=TOOLS) as p:
        deltas = []
        for i in range(0, len(reply), 7):  # markers split anywhere
            deltas += p.push(reply[i:i + 7])
        deltas += p.finish(ai00.FinishReason.STOP)
        calls = [d for d in deltas if d.kind == ai00.DeltaKind.TOOL_CALL]
        assert len(calls) == 1 and calls[0].name == "get_weather" and calls[0].valid
        assert calls[0].arguments == {"city": "Tokyo"}
        assert calls[0].id.startswith("call_")
        assert deltas[-1].kind == ai00.DeltaKind.FINISH
        assert p.finish_reason == ai00.FinishReason.TOOL_CALLS
        msg = p.message
        assert msg["tool_calls"][0]["function"] == {"name": "get_weather",
                                                   "arguments": {"city": "Tokyo"}}
        assert p.warnings == []
        # The tool grammar accepts that reply and refuses an unknown tool.
        with ai00.Grammar.for_tools(v1, TOOLS, level=ai00.GrammarMode.SCHEMA_AWARE) as g:
            assert "get_weather" in g.kbnf
            assert g.check(reply).accepted
            assert g.check(reply.replace("get_weather", "get_time")).verdict == \
                ai00.CheckVerdict.BYTES


def test_streamed_tool_call_deltas():
    reply = ('<ai00:function_calls>\n  <invoke name="get_weather">\n    <parameter '
             'name="city">Tokyo</parameter>\n  </invoke>\n</ai00:function_calls>')
    with ai00.ChatTemplate("ai00-v1") as v1:
        with v1.output_parser(tools=TOOLS, stream_tool_calls=True) as p:
            deltas = list(p.parse(reply))
        with v1.output_parser(tools=TOOLS) as plain:
            assert ai00.DeltaKind.TOOL_CALL_START not in [d.kind for d in plain.parse(reply)]
    kinds = [d.kind for d in deltas]
    start = deltas[kinds.index(ai00.DeltaKind.TOOL_CALL_START)]
    assert start.name == "get_weather" and start.id.startswith("call_") and start.call == 0
    pieces = "".join(d.text for d in deltas if d.kind == ai00.DeltaKind.TOOL_CALL_ARGUMENTS)
    call = deltas[kinds.index(ai00.DeltaKind.TOOL_CALL)]
    assert kinds.index(ai00.DeltaKind.TOOL_CALL_START) < kinds.index(ai00.DeltaKind.TOOL_CALL)
    assert json.loads(pieces) == call.arguments == {"city": "Tokyo"}
    assert call.id == start.id and kinds[-1] == ai00.DeltaKind.FINISH


def test_limits_get_set_and_bad_values():
    default = ai00.Limits.default()
    assert default.max_nesting_depth == 256 and default.max_threads == 1024
    assert ai00.Limits.current() == default
    try:
        low = ai00.Limits.default()
        low.max_nesting_depth = 3
        low.apply()
        assert ai00.Limits.current().max_nesting_depth == 3
        with pytest.raises(ai00.GrammarError, match="max_nesting_depth"):
            ai00.Grammar.from_kbnf("start ::= ((((('a')))));")
        bad = ai00.Limits.default()
        bad.max_tokens = 0
        with pytest.raises(ai00.InvalidArgumentError, match="max_tokens"):
            bad.apply()
        assert ai00.Limits.current().max_nesting_depth == 3  # nothing changed
    finally:
        default.apply()
    assert ai00.Limits.current() == default


def test_convert_model_with_progress(tmp_path):
    src = SHARED / "models" / "rand-rwkv7-c128-l3-v512-FP32.bin"
    dst = tmp_path / "m.gguf"
    seen = []
    ai00.convert_model(src, dst, weight_type=ai00.WeightType.Q8_0,
                       progress=lambda done, total: seen.append((done, total)))
    assert seen and seen[-1][0] == seen[-1][1] > 0
    with ai00.Model(dst) as m:
        assert m.info.n_embd == 128
    with pytest.raises(ai00.Ai00IOError, match="exists"):
        ai00.convert_model(src, dst)
    st = tmp_path / "m.st"
    with pytest.raises(ai00.UnsupportedError, match="Q4_0"):
        ai00.convert_model(src, st, file_format=ai00.FileFormat.SAFETENSORS,
                           weight_type=ai00.WeightType.Q4_0)
    with pytest.raises(ai00.InvalidArgumentError, match="weight_type"):
        ai00.convert_model(src, st, weight_type=99)
    with pytest.raises(ai00.CancelledError):
        ai00.convert_model(src, st, progress=lambda done, total: True)
    assert not st.exists()

    def boom(done, total):
        raise KeyError("stop")
    with pytest.raises(KeyError):
        ai00.convert_model(src, st, progress=boom)
    assert not st.exists()


def test_reasoning_and_warnings_from_the_parser():
    with ai00.ChatTemplate("goose") as goose, \
            goose.output_parser(thinking=ai00.Thinking.ON) as p:
        deltas = list(p.parse(">\nI think.\n</think>\nHi!\n\nUser: x"))
    kinds = {d.kind: "".join(x.text for x in deltas if x.kind == d.kind) for d in deltas}
    assert kinds[ai00.DeltaKind.REASONING] == "I think."
    assert kinds[ai00.DeltaKind.TEXT] == "Hi!"


def test_tool_call_generation_is_constrained(model, state):
    """A schema-aware turn with a tool: whatever the model writes parses (text or a call)."""
    with ai00.ChatTemplate("ai00-v1") as v1:
        msgs = [{"role": "user", "content": "Weather in Paris?"}]
        with ai00.Generator.chat(model, state, v1, msgs, tools=TOOLS, max_tokens=64, seed=3,
                                 grammar_mode=ai00.GrammarMode.SCHEMA_AWARE) as g:
            deltas = list(g)
            msg = g.message
        for d in deltas:
            if d.kind == ai00.DeltaKind.TOOL_CALL:
                assert d.name == "get_weather" and "city" in d.arguments
        assert msg["role"] == "assistant"


TOOL_CHOICE_TOOLS = [  # as tests/c/test_c_tool_choice.c: finite arguments, so a forced call closes
    {"name": "get_weather", "parameters": {
        "type": "object", "properties": {"location": {"enum": ["Oslo", "Tokyo"]},
                                         "unit": {"enum": ["c", "f"]}},
        "required": ["location", "unit"], "additionalProperties": False}},
    {"name": "get_time", "parameters": {"type": "object", "additionalProperties": False}}]


def test_tool_choice_named_and_streamed(model):
    msgs = [{"role": "user", "content": "Weather in Oslo?"}]
    common = dict(tools=TOOL_CHOICE_TOOLS, max_tokens=200, seed=7,
                  grammar_mode=ai00.GrammarMode.SCHEMA_AWARE, parallel_tool_calls=False)
    with ai00.ChatTemplate("ai00-v1") as v1:
        with model.new_state() as st, ai00.Generator.chat(
                model, st, v1, msgs, stream_tool_calls=True, tool_choice="get_weather",
                **common) as g:
            deltas = list(g)
            msg = g.message
            assert g.finish_reason == ai00.FinishReason.TOOL_CALLS
        starts = [d for d in deltas if d.kind == ai00.DeltaKind.TOOL_CALL_START]
        pieces = [d.text for d in deltas if d.kind == ai00.DeltaKind.TOOL_CALL_ARGUMENTS]
        calls = [d for d in deltas if d.kind == ai00.DeltaKind.TOOL_CALL]
        assert [d.name for d in starts] == ["get_weather"]
        assert [d.name for d in calls] == ["get_weather"]
        assert "".join(pieces) == calls[0].text
        assert msg["tool_calls"][0]["function"]["name"] == "get_weather"
        # Without streaming: the whole call only.
        with model.new_state() as st, ai00.Generator.chat(
                model, st, v1, msgs, tool_choice="get_time", **common) as g:
            deltas = list(g)
        kinds = [d.kind for d in deltas]
        assert ai00.DeltaKind.TOOL_CALL_START not in kinds
        assert [d.name for d in deltas if d.kind == ai00.DeltaKind.TOOL_CALL] == ["get_time"]
        # none: no call.
        with model.new_state() as st, ai00.Generator.chat(
                model, st, v1, msgs, tool_choice=ai00.ToolChoice.NONE,
                **dict(common, max_tokens=24)) as g:
            assert all(d.kind != ai00.DeltaKind.TOOL_CALL for d in g)
        # An unknown tool: InvalidArgumentError naming it.
        with model.new_state() as st:
            with pytest.raises(ai00.InvalidArgumentError, match="`get_wether`"):
                ai00.Generator.chat(model, st, v1, msgs, tool_choice="get_wether", **common)


def test_json_schema_constrained_reply_parses(model, state):
    schema = {"type": "object", "properties": {"ok": {"type": "boolean"},
                                               "mood": {"enum": ["calm", "angry"]}},
              "required": ["ok", "mood"]}
    # The canonical layout and strict keys: a random model would otherwise write whitespace.
    layout = ai00.SchemaOptions(flexible_whitespace=False, strict_properties=True)
    with model.json_schema_grammar(schema, layout) as g:
        with ai00.Generator.raw(model, state, "Answer in JSON: ", grammar=g, max_tokens=40,
                                seed=11) as gen:
            text = gen.text()
            assert gen.finish_reason in (ai00.FinishReason.GRAMMAR_DONE, ai00.FinishReason.STOP)
        value = json.loads(text)
        assert isinstance(value["ok"], bool) and value["mood"] in ("calm", "angry")
        assert g.accepts(text)


def test_state_save_load_continues_identically(model, tmp_path):
    with model.new_state() as s, ai00.ChatTemplate("goose") as t:
        with ai00.Generator.chat(model, s, t, CHAT, max_tokens=8, seed=9) as g:
            g.text()
        data = s.save()
        assert len(data) == s.size > model.info.state_bytes
        path = tmp_path / "turn.state"
        s.save_file(path)
        follow = CHAT + [{"role": "user", "content": "And then?"}]

        def cont(st):
            with ai00.Generator.chat(model, st, t, follow, max_tokens=10) as g2:
                return g2.text(), g2.tokens

        with ai00.State.load(model, data) as a, ai00.State.load_file(model, path) as b, \
                s.clone() as c:
            expected = cont(s)
            assert cont(a) == expected
            assert cont(b) == expected
            assert cont(c) == expected
        s.reset()
        assert s.size <= len(data)


def test_eval_sample_and_sampler_params(model, state):
    p = ai00.SamplerParams.preset(ai00.Preset.MATH)
    assert abs(p.temperature - 0.3) < 1e-6 and p.presence_penalty == 0
    assert ai00.SamplerParams.default() == ai00.SamplerParams()
    logits = state.eval([0, 69, 66])
    assert len(logits) == 512
    greedy = ai00.SamplerParams(method=ai00.SamplerMethod.GREEDY)
    top = max(range(512), key=lambda i: logits[i])
    assert state.sample(logits, greedy) == top
    banned = ai00.SamplerParams(method=ai00.SamplerMethod.GREEDY, logit_bias={top: float("-inf")})
    assert state.sample(logits, banned) != top
    state.set_seed(4)
    assert 0 <= state.sample(logits) < 512
    with pytest.raises(ai00.InvalidArgumentError) as e:
        state.sample(logits, ai00.SamplerParams(top_p=2.0))
    assert "top_p" in e.value.message
    with model.new_state() as s2:
        rows = s2.eval_all([0, 69, 66])
        assert len(rows) == 3 and max(abs(x - y) for x, y in zip(rows[2], logits)) < 1e-3
        assert s2.eval([1], logits=False) is None
    with ai00.State.load_initial(model, SHARED / "models" / "rand-rwkv7-c128-l3-v512-init.state") as s3:
        assert s3.size >= model.info.state_bytes


def test_cancel_from_another_thread(model, state):
    never_stop = ai00.SamplerParams(ban_eos=True)
    with ai00.Generator.raw(model, state, "Once upon a time", max_tokens=100000, seed=1,
                            sampler=never_stop) as g:
        t = None
        n = 0
        for d in g:
            n += 1
            if t is None:
                t = threading.Thread(target=g.cancel)
                t.start()
        t.join()
        assert g.finish_reason == ai00.FinishReason.CANCELLED
        assert d.kind == ai00.DeltaKind.FINISH and d.finish_reason == ai00.FinishReason.CANCELLED
        assert len(g.tokens) < 100000


def test_bad_input_errors(model, state, tmp_path):
    with pytest.raises(ai00.Ai00IOError) as e:
        ai00.Model("/nonexistent/model.gguf")
    assert e.value.status == ai00.Status.IO and "/nonexistent/model.gguf" in e.value.message
    assert isinstance(e.value, OSError)
    with pytest.raises(ai00.GrammarError) as e:
        model.grammar("start ::= 'a' |;")
    assert "line 1, column 16" in e.value.message
    with pytest.raises(ai00.GrammarError) as e:
        ai00.Grammar.from_json_schema({"type": "array", "unevaluatedItems": {}})
    assert "/unevaluatedItems" in e.value.message
    # A State of another model.
    with ai00.Model(TINY) as tiny, tiny.new_state() as other, ai00.ChatTemplate("goose") as t:
        with pytest.raises(ai00.MismatchError) as e:
            ai00.Generator.chat(model, other, t, CHAT)
        assert e.value.message
        with pytest.raises(ai00.MismatchError):
            ai00.State.load(model, other.save())
    with pytest.raises(ai00.ModelFileError):
        ai00.State.load(model, b"AI00STAT" + b"\0" * 64)
    with pytest.raises(ai00.Ai00IOError):
        ai00.State.load_file(model, tmp_path / "missing.state")
    with pytest.raises(ai00.FormatError) as e:
        with ai00.ChatTemplate("goose") as t:
            t.render([{"role": "nobody"}])
    with pytest.raises(ai00.InvalidArgumentError) as e:
        ai00.ChatTemplate("nope")
    assert "goose" in e.value.message
    with pytest.raises(ai00.InvalidArgumentError):
        ai00.Generator.raw(model, state, "")
    with pytest.raises(ai00.InvalidArgumentError):
        state.eval([600])
    assert "600" in state.last_error


def test_closed_handles_are_refused_and_close_is_idempotent(model):
    s = model.new_state()
    s.close()
    s.close()
    assert s.closed
    with pytest.raises(ai00.InvalidArgumentError):
        s.save()
    # Closing a State first closes the generator that borrows it.
    s = model.new_state()
    t = ai00.ChatTemplate("goose")
    g = ai00.Generator.chat(model, s, t, CHAT, max_tokens=2)
    s.close()
    assert g.closed
    t.close()


def test_model_load_progress_cancel_and_exception(tmp_path):
    src = SHARED / "models" / "rand-rwkv7-c128-l3-v512-F16.gguf"
    seen = []
    with ai00.Model(src, progress=lambda done, total: seen.append((done, total))) as m:
        assert m.info.n_vocab == 512
    assert len(seen) >= 3 and seen[0][0] == 0
    total = seen[0][1]
    assert total > 0 and all(t == total for _, t in seen)
    assert all(a[0] <= b[0] for a, b in zip(seen, seen[1:]))
    assert seen[-1] == (total, total) and sum(d == t for d, t in seen) == 1
    # Cancelled at half way (returning True cancels, as in convert_model).
    fractions = []

    def half(done, total):
        fractions.append(done / total)
        return done / total >= 0.5

    with pytest.raises(ai00.CancelledError, match="cancelled"):
        ai00.Model(src, progress=half)
    assert 0.5 <= fractions[-1] < 1.0
    # An exception in the callback cancels the load and is re-raised after it.

    def boom(done, total):
        raise KeyError("stop")

    with pytest.raises(KeyError, match="stop"):
        ai00.Model(src, progress=boom)
    # A broken file fails before any report.
    bad = tmp_path / "broken.gguf"
    bad.write_bytes(b"GGUF\x03\x00\x00\x00 truncated")
    calls = []
    with pytest.raises(ai00.ModelFileError):
        ai00.Model(bad, progress=lambda d, t: calls.append(d))
    assert calls == []


def test_capabilities():
    caps = ai00.capabilities()
    assert "scalar" in caps["isa_compiled"] and caps["isa_supported"]
    assert caps["isa"] in caps["isa_supported"]
    assert set(ai00.FORMATS) <= set(caps["chat_formats"])
    assert "Q8_0" in caps["weight_types"] and "json_schema" in caps["grammar"]
    assert isinstance(caps["int8_dot"], bool) and isinstance(caps["bf16_dot"], bool)


def test_exact_activations_give_the_reference_logits():
    """Activations.EXACT gives the fp64 reference logits of the Q8_0 fixture after its first
    three tokens, the default DOT does not; info_json says which; another value is refused."""
    import struct
    path = SHARED / "models" / "rand-rwkv7-c128-l3-v512-Q8_0.gguf"
    raw = (SHARED / "models" / "rand-rwkv7-c128-l3-v512-Q8_0-logits.bin").read_bytes()
    ref = struct.unpack("<512f", raw[2 * 512 * 4:3 * 512 * 4])

    def max_diff(activations):
        m = ai00.Model(path, activations=activations)
        name = "exact" if activations == ai00.Activations.EXACT else "dot"
        assert m.info_json()["activations"] == name
        logits = ai00.State(m).eval([0, 69, 66])
        return max(abs(a - b) for a, b in zip(logits, ref))

    assert max_diff(ai00.Activations.EXACT) <= 2e-5
    assert max_diff(ai00.Activations.DOT) > 1e-4
    with pytest.raises(ai00.InvalidArgumentError, match="ai00_model_params.activations"):
        ai00.Model(path, activations=7)
