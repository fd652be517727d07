// The streaming plumbing shared by every output parser (docs/chat-formats.md
// "Output parsers"):
//
//   chunk ─► UTF-8 holdback ─► stop-string scan ─► format state machine ─► deltas
//
// utf8::Holdback (base/utf8.h) passes only whole code points on (a byte that can never complete a
// sequence becomes U+FFFD, one per maximal invalid subsequence, as WHATWG decoders do). StopScanner
// (base/stop_scanner.h) emits everything before the earliest stop string and holds back a suffix
// that could still begin one; the formats find their markers with the same find_marker and
// partial_marker_suffix, so stops and markers follow one tie rule.
// ParserBase chains both in front of a format's consume() and collects the deltas the format
// emits, holding back trailing newlines of content and reasoning so that the newline a renderer
// writes before a marker is not reported as content.
//
// Internal to src/format: the formats' .cpp files derive from ParserBase.
// Threading: one parser per stream, one thread at a time. Nothing here throws on input.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/stop_scanner.h"
#include "base/utf8.h"
#include "format/call_json_stream.h"
#include "format/format.h"

namespace ai00::internal::format {

// How leading bytes of a channel are skipped after a marker.
enum class Skip { none, one_space, one_newline, whitespace };

class ParserBase : public OutputParser {
 public:
  ParserBase(ParseOptions options, std::vector<std::string> format_stops);

  std::vector<MessageDelta> feed(std::string_view chunk) final;
  std::vector<MessageDelta> finish(FinishReason end) final;
  const ParseResult& result() const final { return result_; }
  bool done() const final { return done_; }

 protected:
  // Whole code points, stop strings already removed. Called repeatedly.
  virtual void consume(std::string_view text) = 0;
  // End of the turn's text: release held markers as text of the current mode. Called once.
  virtual void end_input() = 0;

  void emit_text(std::string_view s);
  void emit_reasoning(std::string_view s);
  // The scanning step every format parser shares: emits the bytes of `buf` before the first
  // marker of `ms` (as reasoning or text) and holds back a suffix that may still begin one.
  // Returns the marker found, erased from `buf` with what came before it; nullopt when no
  // marker is complete yet (`buf` then keeps only the held suffix).
  std::optional<std::string_view> emit_until_marker(std::string& buf,
                                                    const std::vector<std::string_view>& ms,
                                                    bool reasoning);
  // Emits one whole tool call; the id is tool_call_id(id_seed, position). With
  // stream_tool_calls, first the start (if not sent yet) and the rest of the arguments text;
  // previews that are not a prefix of the arguments (an ai00 v1 parameter written twice) are
  // abandoned and the call is previewed again whole, so the pieces after the last start always
  // concatenate to the call's arguments.
  void emit_call(const std::string& name, const json::Value& arguments);
  // Previews of the call being parsed (ParseOptions::stream_tool_calls; no-ops otherwise): its
  // start, once; a piece of its arguments JSON text; its abandonment when it turns out
  // malformed before it was emitted.
  void preview_start(const std::string& name);
  void preview_arguments(const std::string& piece);
  void preview_abandon();
  // Reads the next `bytes` of a JSON call into `call` and sends the previews they imply: the
  // start once the name is known or the arguments have begun (OpenChatML writes them first: the
  // start's name is then empty and the whole call names the tool), then the arguments text.
  // Without stream_tool_calls no preview is sent (`call` then follows the name only, for a call
  // cut by the token limit).
  void preview_json_call(CallJsonStream& call, std::string_view bytes);
  // Releases held trailing newlines of a channel, dropping up to `max_drop` of them (those the
  // renderer writes before the marker that ends the channel). Returns how many were dropped.
  size_t end_text(size_t max_drop);
  void end_reasoning(size_t max_drop);
  void skip_text(Skip s) { text_.skip = s; }
  void skip_reasoning(Skip s) { reasoning_.skip = s; }
  void hold_reasoning_newlines(bool hold) { reasoning_.hold_newlines = hold; }
  void warn(std::string message);
  // True while finish(FinishReason::length) runs: the reply was cut by the token limit.
  bool cut_by_length() const { return end_reason_ == FinishReason::length; }
  // docs/chat-formats.md "Deltas and finish reasons": a reply cut by the token limit inside a
  // call. The unfinished call is emitted as an incomplete tool call (valid = false: its `raw`
  // text becomes content when accumulated) with the name parsed so far, and the finish reason
  // is `length` even when earlier calls were complete.
  void cut_call(const std::string& name, std::string raw);
  // consume() in slices of a bounded size (cut on code point boundaries) until done(): keeps
  // the formats' buffers small, so their marker searches cost linear time in all.
  void consume_sliced(std::string_view text);
  void set_done() { done_ = true; }  // the turn is over: ignore further input
  bool anything_emitted() const { return emitted_any_; }
  size_t calls_emitted() const { return calls_; }
  const ParseOptions& options() const { return options_; }

 private:
  struct Channel {
    size_t held_newlines = 0;
    bool hold_newlines = true;
    Skip skip = Skip::none;
  };
  void emit(Channel& ch, bool reasoning, std::string_view s);
  void push_piece(bool reasoning, std::string_view s);
  size_t release(Channel& ch, bool reasoning, size_t max_drop);
  void run(std::string_view valid_text);
  void end_once();

  ParseOptions options_;
  utf8::Holdback utf8_;
  StopScanner stops_;
  Channel text_, reasoning_;
  DeltaQueue deltas_;  // queued: the current feed/finish call's; accumulated: everything
  ParseResult result_;
  size_t calls_ = 0;
  size_t dropped_warnings_ = 0;
  bool preview_started_ = false;            // a start preview was sent for call calls_
  std::string previewed_args_;              // the arguments text previewed for call calls_
  std::optional<FinishReason> end_reason_;  // set by finish()
  bool cut_in_call_ = false;
  bool emitted_any_ = false;
  bool done_ = false;
  bool ended_ = false;
  bool finished_ = false;
};

}  // namespace ai00::internal::format
