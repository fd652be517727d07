"""Chat templates (every format and option), tokenizers and grammars without a model."""
import pytest

import ai00
from conftest import TOOLS, VOCAB

CONV = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}]


@pytest.mark.parametrize("name", ai00.FORMATS)
def test_every_format_renders(name):
    with ai00.ChatTemplate(name) as t:
        r = t.render(CONV)
        assert "Hi" in r.prompt and "Be brief." in r.prompt
        no_prompt = t.render(CONV, add_generation_prompt=False)
        assert no_prompt.prompt != r.prompt
        if name == "ai00-v0":
            with pytest.raises(ai00.UnsupportedError, match="no thinking syntax"):
                t.render(CONV, thinking=ai00.Thinking.ON)
        else:
            assert t.render(CONV, thinking=ai00.Thinking.A_LOT).prompt
        named = t.render(CONV, assistant_name="Ann")
        assert named.prompt
        assert t.last_render()["prompt"] == named.prompt
        assert isinstance(r.stop_sequences, list)


def test_goose_stop_and_tools_options():
    with ai00.ChatTemplate("goose") as t:
        assert "\n\n" in t.render(CONV).stop_sequences
    with ai00.ChatTemplate("ai00-v1") as t:
        r = t.render(CONV, tools=TOOLS, thinking=ai00.Thinking.ON)
        assert "get_weather" in r.prompt
        hints = t.last_render()
        assert hints["constraints"]["tool_syntax"] == "ai00_v1_xml"
        assert hints["constraints"]["thinking_open_in_prompt"] is True
    with ai00.ChatTemplate("openchatml") as t:
        assert "get_weather" in t.render(CONV, tools=TOOLS).prompt


def test_last_render_before_any_render_fails():
    with ai00.ChatTemplate("ai00-v0") as t:
        with pytest.raises(ai00.InvalidArgumentError) as e:
            t.last_render()
        assert "not rendered" in e.value.message
        assert "not rendered" in t.last_error


def test_tokenizer_file_and_model():
    with ai00.Tokenizer(VOCAB) as tok:
        assert tok.vocab_size > 65000
        assert tok.encode("Hello, 你好") == [33155, 45, 33, 10464, 11685]
        raw = b"caf\xc3\xa9 \xff\xfe\x80"
        assert tok.decode(tok.encode(raw)) == raw
        with pytest.raises(ai00.InvalidArgumentError) as e:
            tok.decode([5, 70000])
        assert "token id 70000 at position 1" in e.value.message
        with ai00.Grammar.from_kbnf("start ::= #ex'</a>' '</a>';", tokenizer=tok) as g:
            assert g.check("Hello world, how are you?</a>").accepted
            r = g.check("Hello</a>x")
            assert r.verdict == ai00.CheckVerdict.BYTES and r.byte_offset == 9
    with pytest.raises(ai00.Ai00IOError) as e:
        ai00.Tokenizer("/nonexistent/vocab.txt")
    assert "/nonexistent/vocab.txt" in e.value.message


def test_model_tokenizer_outlives_model():
    from conftest import MODEL
    m = ai00.Model(MODEL)
    tok = m.tokenizer()
    m.close()
    assert tok.vocab_size == 512 and tok.encode("hello\n\n")[0] == 105
    tok.close()


def test_grammars_without_a_model():
    yes_no = "start ::= 'yes' | 'no';\nalt ::= 'ok';"
    with ai00.Grammar.from_kbnf(yes_no) as g:
        assert g.check("yes").accepted and g.accepts("no") and not g.accepts("yeah")
        assert g.check("yeah").byte_offset == 2
    with ai00.Grammar.from_kbnf(yes_no, start_rule="alt") as g:
        assert g.accepts("ok") and not g.accepts("yes")
    with pytest.raises(ai00.GrammarError, match="undefined rule"):
        ai00.Grammar.from_kbnf("start ::= a;")
    schema = {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}
    with ai00.Grammar.from_json_schema(schema) as g:
        assert g.accepts('{"x": 12}') and not g.accepts('{"x": "a"}')
        assert "start" in g.kbnf and g.warnings == []
    lenient = ai00.SchemaOptions(lenient=True)
    with ai00.Grammar.from_json_schema({"type": "array", "unevaluatedItems": {}}, options=lenient) as g:
        assert len(g.warnings) == 1 and "unevaluatedItems" in g.warnings[0]
    with ai00.Grammar.from_json_schema(schema, options=ai00.SchemaOptions(
            flexible_whitespace=True, max_whitespace=2)) as g:
        assert g.accepts('{ "x" : 1 }')
    with pytest.raises(ai00.InvalidArgumentError, match="max_whitespace = 65"):
        ai00.Grammar.from_json_schema(schema, options=ai00.SchemaOptions(max_whitespace=65))
    with ai00.ChatTemplate("ai00-v1") as v1, ai00.ChatTemplate("goose") as goose:
        with ai00.Grammar.for_tools(v1, TOOLS, thinking_start=ai00.ThinkingStart.OPTIONAL,
                                    allow_eos_end=True, schema=ai00.SchemaOptions()) as g:
            assert "<ai00:function_calls>" in g.kbnf
        with pytest.raises(ai00.InvalidArgumentError):
            ai00.Grammar.for_tools(goose, TOOLS)
        with pytest.raises(ai00.FormatError, match="/0/name"):
            ai00.Grammar.for_tools(v1, [{"name": 3}])


def test_grammar_of_another_model_is_refused(model, state):
    with ai00.Grammar.from_kbnf("start ::= 'yes';") as g:
        with pytest.raises(ai00.MismatchError, match="ai00_grammar_compile"):
            ai00.Generator.raw(model, state, "Q", grammar=g)


TOML = ('[prompts]\nrole_user = "human"\n[prompts.goose]\nprepend_token0 = true\n'
        '[presets.math]\ntemperature = 0.25\n')


def test_template_configuration_and_presets():
    with ai00.ChatTemplate.with_config("ai00-v1", TOML) as t:
        assert t.render([{"role": "user", "content": "Hi"}]).prompt.startswith(
            "<ai00:human>\nHi\n</ai00:human>")
        math = t.sampler_preset("math")
        assert isinstance(math, ai00.SamplerParams)
        assert abs(math.temperature - 0.25) < 1e-6 and abs(math.top_p - 0.3) < 1e-6
        with pytest.raises(ai00.InvalidArgumentError, match="known: math, chat, creative"):
            t.sampler_preset("wild")
    with pytest.raises(ai00.FormatError, match="config:2:13: prompts.role_user"):
        ai00.ChatTemplate("goose", config='[prompts]\nrole_user = 3\n')
    with ai00.ChatTemplate("goose", config=TOML) as g:
        g.render([])
        assert g.last_render()["prepend_token0"] is True
        g.render([], prepend_token0=False)
        assert g.last_render()["prepend_token0"] is False
        with pytest.raises(ai00.UnsupportedError):
            g.render([], reflect=True)
        with pytest.raises(ai00.UnsupportedError):
            g.render_fim("a", "b")


def test_openchatml_flags_fim_files_and_transcript():
    with ai00.ChatTemplate("openchatml") as o:
        assert "<|reflect|>" in o.render([], reflect=True).prompt
        assert "<|introspect|>" in o.render([], introspect=True).prompt
        assert o.render_fim("ab", "cd") == "<|fim_prefix|>ab<|fim_middle|><|fim_suffix|>cd"
        with pytest.raises(ai00.FormatError, match="prefix: contains"):
            o.render_fim("<|im_end|>", "")
        assert o.render_files(["one", b"two"]) == "one\n<|file_separator|>\ntwo"
        assert o.render_files(["x"], leading_separator=True) == "<|file_separator|>\nx"
        msgs = o.parse_transcript("<|im_start|>user name=Eric\nHi\n<|im_end|>\n"
                                  "<|im_start|>assistant\nHello\n<|im_end|>")
        assert msgs[0]["name"] == "Eric" and msgs[1]["role"] == "assistant"
        with pytest.raises(ai00.FormatError, match='byte 12: unknown role "bot"'):
            o.parse_transcript("<|im_start|>bot\nx<|im_end|>")


def test_schema_options_defaults_and_compact(model):
    d = ai00.SchemaOptions()
    assert d.flexible_whitespace and not d.strict_properties and d.max_whitespace == 0
    assert not d.compact
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}}
    with model.json_schema_grammar(schema) as g:
        assert g.accepts('{ "a" : 1.0 ,\n "b": [] }')
    strict = ai00.SchemaOptions(flexible_whitespace=False, compact=True, strict_properties=True)
    with model.json_schema_grammar(schema, strict) as g:
        assert g.accepts('{"a":1}') and not g.accepts('{"a": 1}')
        assert not g.accepts('{"a":1,"b":2}')
    with model.json_schema_grammar(schema, ai00.SchemaOptions(flexible_whitespace=False)) as g:
        assert g.accepts('{"a": 1}')
    with pytest.raises(ai00.InvalidArgumentError, match="max_whitespace = 65"):
        model.json_schema_grammar(schema, ai00.SchemaOptions(max_whitespace=65))
