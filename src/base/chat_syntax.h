// The tool-call and thinking structure of a chat format, as plain data (docs/chat-formats.md,
// docs/grammar.md).
//
// A chat format (src/format) describes here how its assistant turns are written: the thinking
// block, the markers around tool calls, how one call spells its name and arguments, and the
// string that ends the turn. src/grammar builds the structural and schema_aware grammars from
// this description alone, and src/core/pipeline passes it from the format to the grammar without
// looking inside. It lives in src/base because src/format and src/grammar may not include each
// other: this is the vocabulary both speak. Data only: no function here knows a format.
//
// A turn under a ChatSyntax (what the grammars enforce byte for byte):
//
//   [thinking.open REASONING thinking.close] TEXT ( CALLS | end_of_turn )
//
//   CALLS = section_open CALL (call_separator CALL)* section_close            (a section)
//         | CALL (call_separator CALL)* [before_end] end_of_turn             (no section_close)
//   CALL  = call_open BODY call_close
//   BODY  = NAME xml.name_close (xml.param_open KEY xml.param_name_close RAW xml.value_close
//           xml.param_close)*                                               (style xml)
//         | '{' "name_key" ': ' NAME ', ' "arguments_key" ': ' ARGS '}'      (style json; key
//           order and separators as JsonCallSyntax says)
//
// TEXT and REASONING are free text that never contains the marker that follows them (`trigger`,
// end_of_turn, thinking.close). A turn with calls ends after section_close when the syntax has
// one (the model never invents results), else at end_of_turn.
//
// Threading: plain values. Errors: none here; src/grammar reports a description it cannot build
// a grammar from (an empty marker where one is required) as ErrorKind::invalid_argument.
#pragma once

#include <string>

namespace ai00::internal {

// The thinking (reasoning) block.
struct ThinkingSyntax {
  std::string open;   // "<think>"; "" = the format has no thinking block
  std::string close;  // "</think>"
  // When a prompt opens the block itself ("thinking forced open"), the trailing bytes of `open`
  // it leaves for the model to write first: "" when the prompt writes all of `open` (ai00 v1
  // ends in "<think>\n"), ">" for Goose, whose prompt ends in "<think" (seed 001).
  std::string forced_open_completion;
};

// How a call's name and arguments are written.
enum class CallStyle {
  xml,   // name as an attribute, one element per argument holding its raw (untyped) text
  json,  // one JSON object holding the name and the arguments object
};

// Style xml: after call_open come the NAME, name_close, then one element per argument.
struct XmlCallSyntax {
  std::string name_close;        // after the tool name: "\">\n"
  std::string param_open;        // before a parameter name: "    <parameter name=\""
  std::string param_name_close;  // after the parameter name: "\">"
  // Ends the raw value, which therefore never contains it: "</parameter>". It starts with its
  // only '<' (the raw-value grammar relies on that; other terminators are refused).
  std::string value_close;
  std::string param_close;  // after value_close: "\n"
  // ASCII bytes no tool or parameter name may contain (control bytes never may): "\"<>".
  std::string name_forbidden;
};

// Style json: the call is one JSON object with these two members.
struct JsonCallSyntax {
  std::string name_key = "name";
  std::string arguments_key = "arguments";
  bool arguments_first = false;  // seed 002 writes {"arguments": …, "name": …}
  // true: {"name":"f","arguments":{"a":1}} (no spaces); false: {"name": "f", "arguments": {…}}
  // with ", " and ": " everywhere, the canonical layout of the JSON Schema grammars.
  bool compact = false;
};

// The tool calls of an assistant turn. A format without tool calls leaves `trigger` empty.
struct ToolCallSyntax {
  // A short name of this syntax for diagnostics ("ai00_v1_xml"); nothing switches on it.
  std::string label;
  // The marker that starts the calls; text before the calls never contains it, and section_open
  // (or call_open when there is no section) starts with it: "<ai00:function_calls>".
  std::string trigger;
  std::string section_open;    // once before the calls, "" = calls stand alone
  std::string section_close;   // once after the calls; "" = the calls run to end_of_turn
  std::string call_open;       // before each call's body: "  <invoke name=\"", "<tool_call>"
  std::string call_close;      // after each call's body: "  </invoke>\n", "</tool_call>"
  std::string call_separator;  // between two calls: "" or "\n"
  std::string before_end;      // without section_close: optional bytes before end_of_turn
  CallStyle style = CallStyle::xml;
  XmlCallSyntax xml;    // used when style is xml
  JsonCallSyntax json;  // used when style is json
};

// Everything a grammar has to know about the shape of a format's assistant turn.
struct ChatSyntax {
  ThinkingSyntax thinking;
  ToolCallSyntax tool_calls;
  // The marker the model writes to end its turn, also a stop string: "</ai00:assistant>",
  // "<|im_end|>", "\n\n".
  std::string end_of_turn;
};

}  // namespace ai00::internal
