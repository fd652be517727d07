// Streaming plumbing shared by the output parsers (see stream.h).
#include "format/stream.h"

#include <algorithm>

namespace ai00::internal::format {

ParserBase::ParserBase(ParseOptions options, std::vector<std::string> format_stops)
    : options_(std::move(options)), stops_([&] {
        auto all = std::move(format_stops);
        all.insert(all.end(), options_.extra_stops.begin(), options_.extra_stops.end());
        return all;
      }()) {}

void ParserBase::run(std::string_view valid_text) {
  if (done_) return;
  const std::string t = stops_.feed(valid_text);
  consume_sliced(t);
  if (stops_.stopped()) {
    end_once();
    done_ = true;
  }
}

// docs/chat-formats.md "Output parsers": cost is linear in the output. The formats' state
// machines erase what they have emitted from the front of their buffers and search those buffers
// for markers; handing them at most kSlice new bytes at a time bounds both by a constant, however
// large a single feed is (a 10 MB transcript with 100k markers costs the same per byte as one
// token at a time). Slices end on code point boundaries, as consume() requires.
void ParserBase::consume_sliced(std::string_view text) {
  constexpr size_t kSlice = 256;
  while (!text.empty() && !done_) {
    size_t n = std::min(kSlice, text.size());
    while (n < text.size() && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) ++n;
    consume(text.substr(0, n));
    text.remove_prefix(n);
  }
}

void ParserBase::end_once() {
  if (ended_) return;
  ended_ = true;
  end_input();
}

std::vector<MessageDelta> ParserBase::feed(std::string_view chunk) {
  if (finished_ || done_) return {};
  run(utf8_.feed(chunk));
  return deltas_.take_all();
}

std::vector<MessageDelta> ParserBase::finish(FinishReason end) {
  if (finished_) return {};
  finished_ = true;
  end_reason_ = end;
  if (!done_) {
    run(utf8_.flush());
    if (!done_) {
      const std::string held = stops_.flush();
      consume_sliced(held);
    }
  }
  end_once();
  FinishReason reason = end;
  if (cut_in_call_) {
    reason = FinishReason::length;  // says so even after complete calls
  } else if (calls_ > 0) {
    reason = FinishReason::tool_calls;  // takes precedence over stop and grammar_done
  } else if (stops_.stopped()) {
    reason = FinishReason::stop;
  }
  MessageDelta last;
  last.finish_reason = reason;
  deltas_.push(std::move(last));
  std::vector<MessageDelta> out = deltas_.take_all();
  result_.message = deltas_.take_message();
  result_.message.name = options_.assistant_name;
  result_.finish_reason = reason;
  if (dropped_warnings_ > 0)
    result_.warnings.push_back(std::to_string(dropped_warnings_) +
                               " more warnings of the same kind were not kept");
  return out;
}

void ParserBase::push_piece(bool reasoning, std::string_view s) {
  if (s.empty()) return;
  emitted_any_ = true;
  // Coalesced: consecutive pieces of one channel within a feed() become one delta.
  deltas_.push(
      reasoning ? MessageDelta::thinking(std::string(s)) : MessageDelta::text(std::string(s)),
      /*coalesce=*/true);
}

void ParserBase::emit(Channel& ch, bool reasoning, std::string_view s) {
  while (!s.empty() && ch.skip != Skip::none) {
    const char c = s.front();
    if (ch.skip == Skip::whitespace) {
      if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
        s.remove_prefix(1);
        continue;
      }
    } else if ((ch.skip == Skip::one_space && c == ' ') ||
               (ch.skip == Skip::one_newline && c == '\n')) {
      s.remove_prefix(1);
    }
    ch.skip = Skip::none;
  }
  if (s.empty()) return;
  if (!ch.hold_newlines) {
    push_piece(reasoning, s);
    return;
  }
  size_t t = 0;
  while (t < s.size() && s[s.size() - 1 - t] == '\n') ++t;
  if (t == s.size()) {
    ch.held_newlines += t;
    return;
  }
  std::string piece(ch.held_newlines, '\n');
  piece.append(s.substr(0, s.size() - t));
  ch.held_newlines = t;
  push_piece(reasoning, piece);
}

size_t ParserBase::release(Channel& ch, bool reasoning, size_t max_drop) {
  const size_t n = ch.held_newlines > max_drop ? ch.held_newlines - max_drop : 0;
  const size_t dropped = ch.held_newlines - n;
  ch.held_newlines = 0;
  if (n) push_piece(reasoning, std::string(n, '\n'));
  return dropped;
}

void ParserBase::emit_text(std::string_view s) { emit(text_, false, s); }
void ParserBase::emit_reasoning(std::string_view s) { emit(reasoning_, true, s); }

std::optional<std::string_view> ParserBase::emit_until_marker(
    std::string& buf, const std::vector<std::string_view>& ms, bool reasoning) {
  auto hit = find_marker(buf, ms);
  const size_t upto = hit ? hit->pos : buf.size() - partial_marker_suffix(buf, ms);
  const std::string_view before(buf.data(), upto);
  reasoning ? emit_reasoning(before) : emit_text(before);
  if (!hit) {
    buf.erase(0, upto);
    return std::nullopt;
  }
  buf.erase(0, upto + ms[hit->index].size());
  return ms[hit->index];
}
size_t ParserBase::end_text(size_t max_drop) { return release(text_, false, max_drop); }
void ParserBase::end_reasoning(size_t max_drop) { release(reasoning_, true, max_drop); }

void ParserBase::preview_start(const std::string& name) {
  if (!options_.stream_tool_calls || preview_started_) return;
  preview_started_ = true;
  ToolCallDelta c;
  c.call = calls_;
  c.id = tool_call_id(options_.id_seed, calls_);
  c.name = name;
  c.preview = ToolCallDelta::Preview::start;
  deltas_.push(MessageDelta::call(std::move(c)));
}

void ParserBase::preview_arguments(const std::string& piece) {
  if (!options_.stream_tool_calls || !preview_started_ || piece.empty()) return;
  previewed_args_ += piece;
  ToolCallDelta c;
  c.call = calls_;
  c.arguments = piece;
  c.preview = ToolCallDelta::Preview::arguments;
  deltas_.push(MessageDelta::call(std::move(c)));
}

void ParserBase::preview_abandon() {
  if (!options_.stream_tool_calls || !preview_started_) return;
  ToolCallDelta c;
  c.call = calls_;
  c.valid = false;
  c.preview = ToolCallDelta::Preview::abandoned;
  deltas_.push(MessageDelta::call(std::move(c)));
  preview_started_ = false;
  previewed_args_.clear();
}

void ParserBase::preview_json_call(CallJsonStream& call, std::string_view bytes) {
  call.feed(bytes);
  if (!options_.stream_tool_calls) return;
  if (call.name() || call.arguments_begun()) preview_start(call.name().value_or(""));
  preview_arguments(call.take_arguments());
}

void ParserBase::emit_call(const std::string& name, const json::Value& arguments) {
  ToolCallDelta c;
  c.call = calls_;
  c.id = tool_call_id(options_.id_seed, calls_);
  c.name = name;
  c.arguments = json::write(arguments);
  if (options_.stream_tool_calls) {
    preview_start(name);
    // The rest of the text. Previews that went astray (a repeated ai00 v1 parameter: the last
    // value wins in place) are taken back and the call previewed again whole.
    if (c.arguments.compare(0, previewed_args_.size(), previewed_args_) != 0) {
      preview_abandon();
      preview_start(name);
    }
    preview_arguments(c.arguments.substr(previewed_args_.size()));
    preview_started_ = false;
    previewed_args_.clear();
  }
  ++calls_;
  emitted_any_ = true;
  deltas_.push(MessageDelta::call(std::move(c)));
}

// The first kMaxWarnings are kept and the rest counted (finish() reports how many), so hostile
// output with a stray marker every few bytes cannot grow memory beyond the message itself.
void ParserBase::cut_call(const std::string& name, std::string raw) {
  cut_in_call_ = true;
  if (name.empty() && raw.find_first_not_of(" \t\r\n") == std::string::npos) {
    // Cut between calls (only layout so far): no call to mark, the reason is still length.
    if (!raw.empty()) push_piece(false, raw);
    return;
  }
  ToolCallDelta c;
  c.call = calls_;
  c.id = tool_call_id(options_.id_seed, calls_);
  c.name = name;
  c.valid = false;
  c.raw = std::move(raw);
  emitted_any_ = true;
  preview_started_ = false;
  previewed_args_.clear();
  warn("the reply was cut by the token limit inside tool call " + std::to_string(calls_) +
       (name.empty() ? "" : " (" + name + ")") + "; the call is incomplete");
  deltas_.push(MessageDelta::call(std::move(c)));
}

void ParserBase::warn(std::string message) {
  constexpr size_t kMaxWarnings = 64;
  if (result_.warnings.size() < kMaxWarnings) {
    result_.warnings.push_back(std::move(message));
  } else {
    ++dropped_warnings_;
  }
}

}  // namespace ai00::internal::format
