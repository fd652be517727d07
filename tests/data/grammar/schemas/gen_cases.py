# Generates cases.json for tests/grammar/test_json_schema.cpp (run from any directory:
#   python3 tests/data/grammar/schemas/gen_cases.py).
# Instances are Python values written with json.dumps, whose separators (", " and ": ") are the
# converter's canonical layout; "RAW:" strings are exact instance texts (malformed JSON, other
# layouts). Cases are written for this project; the integer/number/pattern/object shapes follow
# the JSON-Schema-Test-Suite draft 2020-12 keyword groups and docs/grammar.md "JSON Schema".
import json
import os

D = json.dumps
cases = []


# These cases pin the generation layout (strict properties, the canonical layout of json.dumps,
# properties in schema order); validator_cases.json holds the validator-semantics corpus.
GENERATION = {"strict_properties": True, "flexible_whitespace": False}


def case(name, schema, valid, invalid, opts=None):
    opts = dict(GENERATION, **(opts or {}))
    c = {"name": name, "schema": schema}
    c["valid"] = [x[4:] if isinstance(x, str) and x.startswith("RAW:") else D(x) for x in valid]
    c["invalid"] = [x[4:] if isinstance(x, str) and x.startswith("RAW:") else D(x) for x in invalid]
    if opts: c["options"] = opts
    cases.append(c)

case("integer", {"type": "integer"}, [0, -7, 123456789], [1.5, "RAW:01", "RAW:+1", "1", "RAW:1e-3", "RAW:-"])
case("integer range 3..250", {"type": "integer", "minimum": 3, "maximum": 250}, [3, 9, 10, 99, 100, 199, 249, 250], [2, 0, 251, 300, 1000, -5, "RAW:003"])
case("integer negative range", {"type": "integer", "minimum": -120, "maximum": -7}, [-7, -8, -99, -100, -120], [-6, -121, 0, 7, -200])
case("integer exclusive", {"type": "integer", "exclusiveMinimum": 0, "exclusiveMaximum": 10}, [1, 5, 9], [0, 10, -1, 11])
case("integer min only", {"type": "integer", "minimum": 17}, [17, 18, 99, 100, 123456], [16, 0, -17, 9])
case("integer max only", {"type": "integer", "maximum": -3}, [-3, -4, -1000], [-2, 0, 5])
case("integer fractional bounds", {"type": "integer", "minimum": 1.5, "maximum": 4.5}, [2, 3, 4], [1, 5])
case("number unbounded", {"type": "number"}, [0, -1.5, 3.25, 1e10, "RAW:2E-3", "RAW:-0.0"], ["RAW:.5", "RAW:1.", "RAW:01.5", "RAW:--1", "x"])
case("number min 0", {"type": "number", "minimum": 0}, [0, 0.0, 0.5, 12.75], [-0.5, -1, "RAW:-0.1"])
case("number exclusive 0..1", {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1}, [0.5, 0.001, 0.999], [0, 1, 1.0, "RAW:0.000", 1.5, -0.5])
case("number -2..3", {"type": "number", "minimum": -2, "maximum": 3}, [-2, -2.0, -1.5, 0, 2.99, 3, 3.0], [-2.01, 3.01, 4, -3])
case("boolean", {"type": "boolean"}, [True, False], ["RAW:True", 0, "true"])
case("null", {"type": "null"}, [None], ["RAW:nul", 0, "null"])
case("string plain", {"type": "string"}, ["", "hello", "quote \" and \\ backslash", "line\nbreak", "caf\u00e9"], ["RAW:\"unterminated", "RAW:\"raw\nnewline\"", "RAW:\"bad \\x escape\"", 5])
case("string lengths", {"type": "string", "minLength": 2, "maxLength": 4}, ["ab", "abcd", "\u00e9\u00e9\u00e9", "a\nb"], ["a", "abcde", ""])
case("string pattern unanchored", {"type": "string", "pattern": "[0-9]{3}"}, ["123", "ab123cd", "x999"], ["12", "abc", ""])
case("string pattern anchored", {"type": "string", "pattern": "^[A-Z][a-z]+$"}, ["Hello", "Ab"], ["hello", "Hello!", "A", " Hello"])
case("string pattern with quote", {"type": "string", "pattern": "^a\"b$"}, ["a\"b"], ["RAW:\"a\"b\"", "ab"])
case("string pattern alternation", {"type": "string", "pattern": "^(cat|dog)s?$"}, ["cat", "dogs"], ["cow", "cats!"])
case("string format date", {"type": "string", "format": "date"}, ["2024-02-29", "1999-12-31"], ["2024-13-01", "24-01-01", "2024-01-32"])
case("string format uuid", {"type": "string", "format": "uuid"}, ["123e4567-e89b-12d3-a456-426614174000"], ["123e4567e89b12d3a456426614174000", "xyz"])
case("enum mixed", {"enum": ["red", "green", 3, None, 1.5]}, ["red", "green", 3, None, 1.5], ["blue", 4, "RAW:\"Red\""])
case("enum typed filters", {"type": "string", "enum": ["a", 1]}, ["a"], [1, "b"])
case("const object", {"const": {"a": [1, 2], "b": "x"}}, [{"a": [1, 2], "b": "x"}, {"b": "x", "a": [1, 2]}, "RAW:{\"a\": [1.0, 2], \"b\": \"x\"}"], [{"a": [1, 2]}, {"a": [2, 1], "b": "x"}, {"a": [1, 2], "b": "x", "c": 1}])
case("type array", {"type": ["string", "null"]}, ["x", None], [1, True])
case("untyped accepts all", {"minimum": 1.1}, ["x", True, None, [1], {"a": 1}, 1.1, 2], ["RAW:nope", 1.09, 1])
case("number decimal bounds", {"type": "number", "minimum": 0.25, "exclusiveMaximum": 2.5}, [0.25, 0.3, 1, 2.499, "RAW:0.250"], [0.2, 2.5, "RAW:2.50", 3, -1])
case("object required and optional", {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "string"}, "c": {"type": "boolean"}}, "required": ["b"]},
     [{"b": "x"}, {"a": 1, "b": "x"}, {"b": "x", "c": True}, {"a": 1, "b": "x", "c": False}, {"b": "x", "a": 1}, {"c": True, "a": 1, "b": "x"}],
     [{}, {"a": 1}, {"b": 1}, "RAW:{\"b\": \"x\", \"b\": \"x\"}", "RAW:{\"a\": , \"b\": \"x\"}", "RAW:{, \"b\": \"x\"}", {"b": "x", "d": 1}])
case("object all optional", {"type": "object", "properties": {"x": {"type": "integer"}, "y": {"type": "integer"}}},
     [{}, {"x": 1}, {"y": 2}, {"x": 1, "y": 2}, {"y": 2, "x": 1}], ["RAW:{\"x\": 1, \"x\": 1}", "RAW:{\"x\": 1, }", "RAW:{, \"y\": 2}", {"z": 1}])
case("object additional schema", {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"], "additionalProperties": {"type": "string"}},
     [{"id": 1}, {"id": 1, "k": "v"}, {"id": 1, "k": "v", "l": "w"}], [{"id": 1, "k": 2}, {"k": "v"}])
case("object additional true", {"type": "object", "additionalProperties": True}, [{}, {"any": [1, {"b": None}]}], ["RAW:{\"a\" 1}"])
case("object without properties is any object", {"type": "object"}, [{}, {"a": 1, "b": [True]}], [[], "RAW:{\"a\": }"])
case("object strict_properties off", {"type": "object", "properties": {"a": {"type": "integer"}}}, [{"a": 1}, {"a": 1, "b": "x"}, {"zz": True}], [{"a": "x"}], {"strict_properties": False})
case("array items", {"type": "array", "items": {"type": "integer"}}, [[], [1], [1, 2, 3]], [["a"], "RAW:[1,2]", "RAW:[, 1]", "RAW:[1, ]"])
case("array min max", {"type": "array", "items": {"type": "boolean"}, "minItems": 2, "maxItems": 3}, [[True, False], [True, True, True]], [[], [True], [True, True, True, True]])
case("array prefixItems", {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}], "items": False}, [[], ["a"], ["a", 1]], [[1], ["a", 1, 2], ["a", "b"]])
case("array prefix min", {"type": "array", "prefixItems": [{"type": "string"}], "items": {"type": "null"}, "minItems": 1}, [["a"], ["a", None], ["a", None, None]], [[], [None], ["a", "b"]])
case("array maxItems 20", {"type": "array", "items": {"type": "integer"}, "maxItems": 20}, [list(range(20)), []], [list(range(21))])
case("anyOf", {"anyOf": [{"type": "integer", "minimum": 10}, {"type": "string", "maxLength": 1}]}, [10, 99, "a", ""], [9, "ab"])
case("oneOf as anyOf", {"oneOf": [{"type": "boolean"}, {"type": "null"}]}, [True, None], [0])
case("ref and defs", {"$defs": {"pos": {"type": "integer", "minimum": 1}}, "type": "object", "properties": {"n": {"$ref": "#/$defs/pos"}}, "required": ["n"]}, [{"n": 1}, {"n": 50}], [{"n": 0}, {}])
case("recursive ref", {"$defs": {"node": {"type": "object", "properties": {"v": {"type": "integer"}, "next": {"$ref": "#/$defs/node"}}, "required": ["v"]}}, "$ref": "#/$defs/node"},
     [{"v": 1}, {"v": 1, "next": {"v": 2}}, {"v": 1, "next": {"v": 2, "next": {"v": 3}}}], [{"v": 1, "next": {}}, {"next": {"v": 1}}])
case("recursive root ref", {"type": "array", "items": {"anyOf": [{"type": "integer"}, {"$ref": "#"}]}}, [[], [1, [2, [3]], []]], [[1, "x"]])
case("empty schema", {}, [1, "x", {"a": [None]}, [], True], ["RAW:{", "RAW:tru"])
case("flexible whitespace", {"type": "object", "properties": {"a": {"type": "array", "items": {"type": "integer"}}}, "required": ["a"]},
     ["RAW:{\"a\":[1,2]}", "RAW:{ \"a\" : [ 1 , 2 ] }", "RAW:{\n  \"a\": [\n    1\n  ]\n}", "RAW:{\"a\": []}", "RAW:{\"a\": [ ]}"], ["RAW:{\"a\":[1,2]}         ", "RAW:{         \"a\": []}", "RAW:{\"a\":[1,,2]}"], {"flexible_whitespace": True, "max_whitespace": 8})
case("nested object in array", {"type": "array", "items": {"type": "object", "properties": {"k": {"type": "string", "enum": ["x", "y"]}}, "required": ["k"]}}, [[{"k": "x"}, {"k": "y"}]], [[{"k": "z"}], [{}]])
case("escaped key", {"type": "object", "properties": {"we\"ird\\key": {"type": "integer"}}, "required": ["we\"ird\\key"]}, [{"we\"ird\\key": 1}], ["RAW:{\"we\"ird\\key\": 1}"])
props = {f"p{i}": {"type": "integer"} for i in range(10)}
case("object with many optional properties", {"type": "object", "properties": props, "required": ["p7"]},
     [{"p7": 1}, {"p0": 0, "p7": 7}, {f"p{i}": i for i in range(10)}, {"p3": 3, "p7": 7, "p9": 9},
      {"p7": 7, "p3": 3}, {"p9": 9, "p7": 7, "p0": 0}],
     [{}, {"p0": 0}, {"p0": 0, "p7": 1, "p10": 1}, {"p7": "x"}, {"p3": "x", "p7": 1}, "RAW:{, \"p7\": 1}",
      "RAW:{\"p7\": 1, \"p7\": 2}"])
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cases.json")
with open(out, "w") as f:
    json.dump(cases, f, indent=1, ensure_ascii=False)
print(len(cases))
