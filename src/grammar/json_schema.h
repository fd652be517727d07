// JSON Schema → KBNF (docs/grammar.md "JSON Schema", which lists every keyword as exact,
// approximated (how) or refused).
//
// By default the grammar accepts what a draft 2020-12 validator accepts: any JSON whitespace,
// extra properties unless additionalProperties forbids them, members in any order (past 8 listed
// properties an optional one may repeat, and past 8 required ones those come in schema order),
// integers written 1.0 or 1e3, const / enum compared as values. Supported:
// type, enum, const, numeric bounds, multipleOf, string lengths, pattern (ECMA-262, \p{…}),
// format (date-time, date, time, uuid, email, ipv4), properties, required,
// additionalProperties, patternProperties, propertyNames, min/maxProperties, dependentRequired,
// items, prefixItems, min/maxItems, uniqueItems, contains, min/maxContains, anyOf, allOf, oneOf,
// not, if/then/else (by conjunction and negation of schemas, schema_combine.cpp), $ref / $defs /
// definitions (local, recursive). Annotations (title, description, default, examples, $comment,
// $schema, $id, deprecated, readOnly, writeOnly) are ignored.
//
// Every keyword of a draft that it does not translate (kKnownUnsupported: unevaluated*,
// dependentSchemas, $dynamicRef, ...) and every combination the converter cannot express is an
// ErrorKind::grammar error naming the keyword's JSON pointer ("unsupported JSON Schema keyword
// `unevaluatedItems` at /properties/a/unevaluatedItems"); with `lenient` it is ignored instead
// and reported in `warnings`. A keyword of no draft is an annotation to validators: ignored and
// reported in `warnings`. Approximations that accept more than a validator (uniqueItems over
// unbounded items, patternProperties corner cases, an inexact oneOf) are reported in `warnings`
// too. Nothing is dropped silently.
//
// Output shape: strings never produce a raw `"`, `\` or control character. Rule names are
// `<prefix>` plus a name derived from the schema path, unique within one converter.
//
// Threading: json_schema_to_kbnf is a pure function; a SchemaConverter is a plain value used by
// one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace ai00::internal::grammar {

struct JsonSchemaOptions {
  // false (default) follows JSON Schema: absent additionalProperties means any extra property.
  // true: absent additionalProperties means false next to `properties` (XGrammar's choice for
  // generation: no invented keys); an object schema without `properties` still accepts any
  // object. Extra keys never repeat a listed name.
  bool strict_properties = false;
  // Unsupported keywords become warnings instead of errors.
  bool lenient = false;
  // true (default): JSON whitespace (space, tab, LF, CR) wherever JSON allows it, around the
  // document too, as validators read it; runs of at most max_whitespace bytes (0 = unbounded,
  // the default). false: one canonical layout, {"a": 1, "b": [1, 2]}.
  bool flexible_whitespace = true;
  uint32_t max_whitespace = 0;
  // Whitespace before and after the document (JSON text allows it). Generation turns it off:
  // a generated value then ends where the value ends, so the grammar is done there.
  bool outer_whitespace = true;
  // The canonical layout without spaces, {"a":1,"b":[1,2]} (compact call syntaxes), instead of
  // {"a": 1, "b": [1, 2]}. Ignored with flexible_whitespace.
  bool compact = false;
  // true: an `integer` is written with digits only (`-?(0|[1-9][0-9]*)`), as generation wants:
  // the text then reads back as an integer in every JSON reader and in the ai00 v1 parser's
  // typing. false (default): JSON Schema's integers, which also take `1.0`, `1e3`, `-2.000`.
  bool plain_integers = false;

  // Strict properties, the canonical layout and plain integers: what tool-call grammars
  // generate.
  static JsonSchemaOptions canonical() {
    JsonSchemaOptions o;
    o.strict_properties = true;
    o.flexible_whitespace = false;
    o.plain_integers = true;
    return o;
  }
};

struct JsonSchemaGrammar {
  std::string kbnf;                   // a complete grammar; the start rule is `start`
  std::vector<std::string> warnings;  // lenient mode: what was ignored, with JSON pointers
};

// A whole JSON document valid under `schema_json` (a JSON Schema as JSON text). Errors:
// ErrorKind::grammar for malformed JSON (byte offset and line:column of the first error, and the
// simdjson reason), an unsupported keyword, an unsatisfiable schema, or a schema that no finite
// JSON value satisfies (a `$ref` cycle without a way out: the grammar would match nothing),
// always naming the JSON pointer.
Result<JsonSchemaGrammar> json_schema_to_kbnf(std::string_view schema_json,
                                              const JsonSchemaOptions& options = {});

// One property of an object schema, for builders that lay out objects themselves (tool calls).
struct SchemaProperty {
  std::string name;     // decoded key
  std::string pointer;  // JSON pointer of its schema, e.g. "/properties/city"
  bool required = false;
};
struct ObjectShape {
  std::vector<SchemaProperty> properties;  // schema order
  bool additional = false;                 // other keys allowed
  std::string additional_pointer;          // their schema's pointer; empty: any value
};

// Incremental converter over one schema document: builders ask for rules of sub-schemas by JSON
// pointer and collect all rules at the end. Rules are memoised per (pointer, encoding), so
// recursive $refs terminate and shared definitions are emitted once.
class SchemaConverter {
 public:
  // Parses the schema; ErrorKind::grammar if it is not valid JSON. Every rule name starts with
  // `rule_prefix` (a KBNF identifier prefix, may be empty).
  static Result<SchemaConverter> create(std::string_view schema_json, JsonSchemaOptions options,
                                        std::string rule_prefix);
  SchemaConverter(SchemaConverter&&) noexcept;
  SchemaConverter& operator=(SchemaConverter&&) noexcept;
  ~SchemaConverter();

  // Name of a rule matching JSON values valid under the sub-schema at `pointer` ("" = root).
  Result<std::string> json_rule(std::string_view pointer);
  // Name of a rule matching an ai00 v1 raw parameter value (seed 000: untyped text) valid under
  // the sub-schema FOLLOWED BY `terminator`: a string is its raw text, which never contains
  // `terminator` (the value ends at its first occurrence); every other type is its JSON text.
  // `terminator` must start with '<' and contain no other '<' (it is `</parameter>` in ai00 v1).
  // Exact for unconstrained strings, enums, formats, minLength 0/1 and maxLength alone; with both
  // a maxLength and a minLength m >= 1 the first m characters cannot be '<', with minLength
  // m >= 2 alone the first m-1; a string with a `pattern` is matched without any '<' (a regex
  // cannot intersect the pattern with "does not contain the terminator").
  Result<std::string> raw_rule(std::string_view pointer, std::string_view terminator);
  // The properties of the object schema at `pointer` (after following $ref). ErrorKind::grammar
  // if it is not an object schema.
  Result<ObjectShape> object_shape(std::string_view pointer);

  // All rules produced so far, one `name ::= body;` per line.
  std::string rules_kbnf() const;
  const std::vector<std::string>& warnings() const;
  // The JSON pointer of the sub-schema whose rule is `rule_name` (json_rule / raw_rule), or ""
  // for helper rules.
  std::string pointer_of_rule(std::string_view rule_name) const;

  struct Impl;

 private:
  explicit SchemaConverter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace ai00::internal::grammar
