# Generates validator_cases.json: a validator-style corpus for tests/grammar/test_json_schema.cpp
# (run: python3 tests/data/grammar/schemas/gen_validator_cases.py). Each group is a schema and
# instances with the verdict a JSON Schema (draft 2020-12) validator gives, written for this
# project from the specification, in the spirit of the JSON-Schema-Test-Suite keyword groups.
# The test converts each schema with the DEFAULT options and checks every instance in two layouts
# (minified and spaced); "raw" instances are exact texts. A group's "approximation" names the
# documented approximation (docs/grammar.md "JSON Schema") that makes some verdicts differ; such
# instances are marked "approx": true and count as misjudged in the reported rate.
import json
import os

groups = []


def group(description, schema, tests, approximation=None, refused=None):
    g = {"description": description, "schema": schema, "tests": []}
    if refused:
        g["refused"] = refused  # a documented error: the text its message contains
    for t in tests:
        data, valid = t[0], t[1]
        entry = {"data": data, "valid": valid}
        if len(t) > 2 and t[2] == "approx":
            entry["approx"] = True
        g["tests"].append(entry)
    if approximation:
        g["approximation"] = approximation
    groups.append(g)


def raw(text):
    return {"$raw": text}


# ---- type ---------------------------------------------------------------------------------
group("integer type", {"type": "integer"},
      [(1, True), (0, True), (-5, True), (1.0, True), (raw("1.0"), True), (raw("-2.000"), True),
       (raw("1e3"), True), (raw("1E+2"), True), (1.5, False), ("1", False), (None, False),
       ([], False), ({}, False), (True, False),
       (raw("1.5e1"), True, "approx"), (raw("100e-2"), True, "approx")],
      "integers written with a non-zero fraction and an exponent that cancels it are refused")
group("number type", {"type": "number"},
      [(1, True), (1.5, True), (-0.25, True), (raw("1e-7"), True), ("1", False), (None, False),
       (True, False), ([1], False)])
group("string type", {"type": "string"},
      [("foo", True), ("", True), ("1", True), (1, False), (None, False), ({}, False)])
group("object type", {"type": "object"},
      [({}, True), ({"a": 1}, True), ([], False), ("{}", False), (1, False)])
group("array type", {"type": "array"},
      [([], True), ([1, "a", None], True), ({}, False), ("[]", False)])
group("boolean type", {"type": "boolean"},
      [(True, True), (False, True), (0, False), ("true", False), (None, False)])
group("null type", {"type": "null"}, [(None, True), (0, False), ("", False), (False, False)])
group("multiple types", {"type": ["integer", "string"]},
      [(1, True), ("x", True), (1.5, False), (None, False), ({}, False)])
group("whitespace as JSON allows", {"type": "object", "properties": {"a": {"type": "array"}}},
      [(raw(' { "a" : [ 1 ,\n\t2 ] } '), True), (raw('{"a":[]}'), True), (raw('{\r\n}'), True),
       (raw('{"a": [1,]}'), False), (raw('{,}'), False)])

# ---- numbers ------------------------------------------------------------------------------
group("minimum", {"minimum": 1.1}, [(1.1, True), (2.6, True), (0.6, False), ("x", True), (1, False)])
group("maximum integer", {"type": "integer", "maximum": 3}, [(3, True), (-100, True), (4, False), (raw("3.0"), True)])
group("exclusiveMinimum", {"exclusiveMinimum": 1.1}, [(1.2, True), (1.1, False), (0.6, False)])
group("exclusiveMaximum", {"exclusiveMaximum": 3.0}, [(2.2, True), (3.0, False), (3.5, False)])
group("multipleOf integer", {"multipleOf": 2},
      [(10, True), (7, False), (0, True), (-4, True), (raw("4.0"), True), ("foo", True), (4.5, False)])
group("multipleOf number", {"multipleOf": 1.5}, [(0, True), (4.5, True), (35, False), (3, True), (raw("-1.50"), True)])
group("multipleOf small", {"multipleOf": 0.0001}, [(0.0075, True), (0.00751, False), (12, True)])
group("multipleOf integer type", {"type": "integer", "multipleOf": 3}, [(9, True), (10, False), (-3, True), (raw("6.00"), True), (6.5, False)])
group("multipleOf with bounds", {"type": "integer", "multipleOf": 5, "minimum": 0, "maximum": 20},
      [(0, True), (5, True), (20, True), (25, False), (-5, False), (7, False)])
group("multipleOf non-negative", {"type": "integer", "multipleOf": 7, "minimum": 0},
      [(0, True), (700, True), (-7, False), (8, False)])

# ---- strings ------------------------------------------------------------------------------
group("maxLength", {"maxLength": 2}, [("f", True), ("fo", True), ("foo", False), (100, True), ("\u00e9\u00e9", True)])
group("minLength", {"minLength": 2}, [("fo", True), ("f", False), (1, True), ("\U0001F4A9\U0001F4A9", True), ("\U0001F4A9", False)])
group("pattern", {"pattern": "^a*$"}, [("aaa", True), ("abc", False), (True, True), ("", True)])
group("pattern unanchored", {"pattern": "a+"}, [("xxaayy", True), ("xyz", False)])
group("pattern unicode letter", {"type": "string", "pattern": "^\\p{Letter}+$"},
      [("abc", True), ("\u00e9t\u00e9", True), ("\u4e2d\u6587", True), ("a1", False), ("", False)])
group("pattern han script", {"type": "string", "pattern": "^\\p{Han}+$"},
      [("\u4e2d\u6587", True), ("abc", False), ("\u3042", False)])
group("pattern general category short", {"type": "string", "pattern": "^\\p{Lu}\\p{Ll}*$"},
      [("Hello", True), ("hello", False), ("\u00c9t\u00e9", True)])
group("pattern negated property", {"type": "string", "pattern": "^\\P{Nd}+$"},
      [("abc", True), ("a1", False)])
group("format date", {"type": "string", "format": "date"}, [("2020-01-31", True), ("2020-1-31", False)])

# ---- enum / const -------------------------------------------------------------------------
group("enum", {"enum": [1, 2, 3]}, [(1, True), (4, False), (raw("2.0"), True), ("1", False)])
group("enum heterogeneous", {"enum": [6, "foo", [], True, {"foo": 12}]},
      [([], True), (None, False), ({"foo": 12}, True), (raw('{ "foo" : 12.0 }'), True), ({"foo": False}, False), ({"foo": 12, "boo": 42}, False)])
group("const object any key order", {"const": {"foo": "bar", "baz": "bax"}},
      [({"foo": "bar", "baz": "bax"}, True), ({"baz": "bax", "foo": "bar"}, True), ({"foo": "bar"}, False), ([1, 2], False)])
group("const array", {"const": [{"foo": "bar"}]}, [([{"foo": "bar"}], True), ([2], False), ({"foo": "bar"}, False)])
group("const number", {"const": 9007199254740992}, [(9007199254740992, True), (9007199254740991, False)])
group("const float and integer", {"const": 1}, [(raw("1.0"), True), (1, True), (raw("1.5"), False)])
group("const false", {"const": False}, [(False, True), (0, False), (None, False)])

# ---- objects ------------------------------------------------------------------------------
group("properties", {"properties": {"foo": {"type": "integer"}, "bar": {"type": "string"}}},
      [({"foo": 1, "bar": "baz"}, True), ({"bar": "baz", "foo": 1}, True), ({"foo": 1, "bar": {}}, False),
       ({"quux": []}, True), ([], True), ({"bar": "x", "quux": 1, "foo": 2}, True), ({"foo": "1"}, False)])
group("required", {"properties": {"foo": {}, "bar": {}}, "required": ["foo"]},
      [({"foo": 1}, True), ({"bar": 1}, False), ({}, False), ("x", True), ({"bar": 1, "foo": 2}, True)])
group("additionalProperties false", {"properties": {"foo": {}, "bar": {}}, "additionalProperties": False},
      [({"foo": 1}, True), ({"foo": 1, "bar": 2, "quux": "boom"}, False), ({"bar": 2, "foo": 1}, True)])
group("additionalProperties schema", {"properties": {"foo": {}}, "additionalProperties": {"type": "boolean"}},
      [({"foo": 1, "bar": True}, True), ({"foo": 1, "bar": 1}, False), ({"bar": False, "foo": "x"}, True)])
group("minProperties", {"minProperties": 1}, [({"foo": 1}, True), ({}, False), ([], True), ("", True)])
group("maxProperties", {"maxProperties": 2},
      [({"foo": 1}, True), ({"foo": 1, "bar": 2}, True), ({"foo": 1, "bar": 2, "baz": 3}, False), ({}, True)])
group("min and max properties with listed", {"properties": {"a": {}, "b": {}}, "minProperties": 1, "maxProperties": 2},
      [({"a": 1}, True), ({"b": 1, "x": 2}, True), ({}, False), ({"a": 1, "b": 2, "c": 3}, False)])
group("dependentRequired", {"dependentRequired": {"bar": ["foo"]}},
      [({}, True), ({"foo": 1}, True), ({"foo": 1, "bar": 2}, True), ({"bar": 2}, False), ({"bar": 2, "foo": 1}, True)])
group("dependentRequired listed", {"properties": {"a": {}, "b": {}, "c": {}}, "dependentRequired": {"a": ["b", "c"]}},
      [({"a": 1, "b": 2, "c": 3}, True), ({"a": 1, "b": 2}, False), ({"b": 2}, True), ({"c": 3, "b": 2, "a": 1}, True)])
group("propertyNames pattern", {"propertyNames": {"pattern": "^a+$"}},
      [({"a": {}, "aa": {}}, True), ({"aaA": {}}, False), ({}, True), ([1], True)])
group("propertyNames maxLength", {"propertyNames": {"maxLength": 3}},
      [({"f": {}, "foo": {}}, True), ({"foo": {}, "foobar": {}}, False)])
group("propertyNames false", {"propertyNames": False}, [({}, True), ({"a": 1}, False)])
group("patternProperties", {"patternProperties": {"f.*o": {"type": "integer"}}, "additionalProperties": False},
      [({"foo": 1}, True), ({"foo": 1, "foooooo": 2}, True), ({"foo": "bar"}, False), ({"bar": 1}, False)])
group("patternProperties open", {"patternProperties": {"^x-": {"type": "string"}}},
      [({"x-a": "s"}, True), ({"other": 1}, True), ({"x-a": 1}, False), ({"y-x-": 1}, True),
       ({"": 1}, True)])
group("patternProperties forbidden", {"patternProperties": {"b": False}, "properties": {"abc": {"type": "integer"}}},
      [({"a": 1}, True), ({"xbx": 1}, False), ({"abc": 1}, False, "approx"), ({"abc": "s"}, False)],
      "a listed property is checked against its `properties` schema only")
group("patternProperties matching the empty key", {"patternProperties": {"^$": {"type": "integer"}}},
      [({"": 1}, True), ({"": "s"}, False), ({"a": "s"}, True)])

# ---- arrays -------------------------------------------------------------------------------
group("items", {"items": {"type": "integer"}}, [([1, 2, 3], True), ([1, "x"], False), ({"foo": "bar"}, True)])
group("prefixItems", {"prefixItems": [{"type": "integer"}, {"type": "string"}]},
      [([1, "foo"], True), (["foo", 1], False), ([1], True), ([1, "foo", True], True), ([], True)])
group("minItems maxItems", {"minItems": 1, "maxItems": 2}, [([1], True), ([], False), ([1, 2, 3], False)])
group("uniqueItems", {"uniqueItems": True},
      [([1, 2], True), ([1, 1], False, "approx"), ([{"a": 1}, {"a": 2}], True), ([], True)],
      "uniqueItems over unbounded arrays is not enforced: duplicates are accepted")
group("uniqueItems short", {"uniqueItems": True, "maxItems": 1}, [([1], True), ([], True), ([1, 1], False)])
group("uniqueItems booleans", {"type": "array", "items": {"type": "boolean"}, "uniqueItems": True},
      [([True, False], True), ([True, True], False), ([False], True), ([True, False, True], False)])

# ---- combinators --------------------------------------------------------------------------
group("anyOf", {"anyOf": [{"type": "integer"}, {"minimum": 2}]}, [(1, True), (2.5, True), (1.5, False)])
group("type beside anyOf", {"type": "string", "anyOf": [{"maxLength": 2}, {"minLength": 4}]},
      [("ab", True), ("abcd", True), ("abc", False), (1, False)])
group("type beside oneOf", {"type": "integer", "oneOf": [{"minimum": 10}, {"maximum": 0}]},
      [(12, True), (-1, True), (5, False), ("x", False)])
group("oneOf exclusive types", {"oneOf": [{"type": "integer"}, {"type": "string"}]},
      [(1, True), ("a", True), (1.5, False), (None, False)])
group("oneOf overlapping", {"oneOf": [{"type": "integer"}, {"minimum": 2}]},
      [(1, True), (2.5, True), (3, False, "approx"), (1.5, False)],
      "oneOf whose exclusive form needs a non-integer number with bounds is an anyOf")
group("oneOf overlapping exact", {"oneOf": [{"type": "string", "maxLength": 3}, {"type": "string", "minLength": 2}]},
      [("a", True), ("abcd", True), ("ab", False), ("abc", False), (1, False)])
group("oneOf with required", {"oneOf": [{"required": ["a"]}, {"required": ["b"]}]},
      [({"a": 1}, True), ({"b": 1}, True), ({"a": 1, "b": 2}, False), ({}, False), ("x", False)])
group("allOf", {"allOf": [{"properties": {"bar": {"type": "integer"}}, "required": ["bar"]},
                          {"properties": {"foo": {"type": "string"}}, "required": ["foo"]}]},
      [({"foo": "baz", "bar": 2}, True), ({"foo": "baz"}, False), ({"bar": 2}, False), ({"foo": "baz", "bar": "quux"}, False)])
group("allOf with type", {"type": "integer", "allOf": [{"minimum": 1}, {"maximum": 5}]},
      [(1, True), (5, True), (0, False), (6, False)])
group("if then else", {"if": {"type": "integer"}, "then": {"minimum": 0}, "else": {"type": "string"}},
      [(5, True), (-1, False), ("x", True), (None, False)])
group("if then", {"if": {"properties": {"kind": {"const": "a"}}, "required": ["kind"]},
                  "then": {"required": ["a"]}},
      [({"kind": "a", "a": 1}, True), ({"kind": "b"}, True), ({"kind": "a"}, False), ({}, True)])
group("not type", {"not": {"type": "integer"}}, [("x", True), (1, False), (1.5, True), (None, True)])

# ---- references ---------------------------------------------------------------------------
group("$ref to $defs", {"$defs": {"a": {"type": "integer"}}, "properties": {"x": {"$ref": "#/$defs/a"}}},
      [({"x": 1}, True), ({"x": "a"}, False)])
group("recursive $ref", {"$defs": {"node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/node"}}, "additionalProperties": False}},
                         "$ref": "#/$defs/node"},
      [({}, True), ({"next": {"next": {}}}, True), ({"next": 1}, False)])

# ---- more combinations ---------------------------------------------------------------------
group("properties with boolean schemas", {"properties": {"foo": True, "bar": False}},
      [({}, True), ({"foo": 1}, True), ({"bar": 2}, False), ({"foo": 1, "bar": 2}, False), ({"x": 1}, True)])
group("nested anyOf in allOf", {"allOf": [{"anyOf": [{"type": "integer"}, {"type": "null"}]},
                                          {"anyOf": [{"minimum": 0}, {"type": "null"}]}]},
      [(1, True), (None, True), (-1, False), ("a", False), (0, True)])
group("enum with escapes", {"enum": ["a\"b", "c\\d", "line\nbreak"]},
      [("a\"b", True), ("c\\d", True), ("line\nbreak", True), ("ab", False)])
group("prefixItems closed", {"prefixItems": [{}], "items": False}, [([1], True), ([], True), ([1, 2], False)])
group("$ref with siblings", {"$defs": {"a": {"type": "integer"}}, "$ref": "#/$defs/a", "minimum": 5},
      [(6, True), (4, False), ("x", False)])
group("not anyOf", {"not": {"anyOf": [{"type": "string"}, {"type": "null"}]}},
      [(1, True), ("a", False), (None, False), ([], True)])
group("if alone", {"if": {"type": "integer"}}, [(1, True), ("x", True)])
group("then without if", {"then": {"type": "integer"}}, [("x", True)])
group("draft-7 dependencies array", {"dependencies": {"a": ["b"]}},
      [({"a": 1, "b": 2}, True), ({"a": 1}, False), ({"b": 1}, True)])
group("required escaped key", {"required": ["foo\nbar", "foo\"bar"]},
      [({"foo\nbar": 1, "foo\"bar": 1}, True), ({"foo\nbar": 1}, False)])
group("const nested object order", {"const": {"a": {"x": 1, "y": [True, None]}}},
      [({"a": {"y": [True, None], "x": 1}}, True), ({"a": {"x": 1, "y": [None, True]}}, False)])
group("enum of arrays", {"enum": [[1, 2], [3]]}, [([1, 2], True), ([3], True), ([2, 1], False), ([1], False)])
group("if const then", {"if": {"const": "a"}, "then": {"maxLength": 0}, "else": {"minLength": 1}},
      [("a", False), ("b", True), ("", False), (1, True)],
      refused="beside a negated string `enum`")
group("if const then (no length)", {"if": {"const": "a"}, "then": {"type": "string"}, "else": {"type": "integer"}},
      [("a", True), ("b", False), (1, True), (None, False)])
group("anyOf with required objects", {"type": "object", "anyOf": [{"required": ["a"]}, {"required": ["b"]}]},
      [({"a": 1}, True), ({"b": 1}, True), ({"a": 1, "b": 1}, True), ({}, False), ([], False)])
group("allOf additionalProperties false", {"allOf": [{"properties": {"a": {}}, "additionalProperties": False},
                                                     {"properties": {"b": {}}}]},
      [({"a": 1}, True), ({"b": 1}, False), ({}, True)])
group("integer bounds written as floats", {"type": "integer", "minimum": 1.0, "maximum": 3.0},
      [(raw("1.0"), True), (3, True), (raw("3.00"), True), (4, False)])
group("number with exponent", {"type": "number"}, [(raw("1E+2"), True), (raw("-1.5e-3"), True), (raw("1e"), False)])

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "validator_cases.json")
with open(out, "w") as f:
    json.dump(groups, f, indent=1, ensure_ascii=False)
print(sum(len(g["tests"]) for g in groups), "instances in", len(groups), "groups")
