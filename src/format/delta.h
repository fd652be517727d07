// Streaming deltas of one assistant message (seed 004 "Delta"; docs/chat-formats.md
// "Deltas and finish reasons").
//
// An output parser emits MessageDeltas; accumulating them in order and calling finish() gives the
// final Message. Accumulation rules: a text PartDelta appends to the last text part; reasoning
// concatenates; a ToolCallDelta merges into the call at its 0-based position `call` (a new
// position starts a new call); role and finish reason are taken when present.
//
// DeltaQueue is the one place where a stream's deltas are queued and accumulated: the output
// parsers collect the deltas of one feed() in it, the Generator keeps the deltas it produced
// until next()/step() hand them out, and both read the message so far from it.
//
// Errors: accumulate and finish never fail. A call whose arguments are not valid JSON, or that
// was marked invalid, is moved back into the content as text (it was text the model wrote).
// Threading: plain values.
#pragma once

#include <cstddef>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "format/message.h"

namespace ai00::internal::format {

// Why a turn ended (docs/chat-formats.md "Deltas and finish reasons").
enum class FinishReason { stop, length, tool_calls, cancelled, grammar_done, error };
const char* finish_reason_name(FinishReason r);  // "stop", "length", "tool_calls", ...
std::optional<FinishReason> finish_reason_from_name(std::string_view name);

// A fragment of one content part. Text fragments of consecutive text deltas merge.
struct PartDelta {
  PartType type = PartType::text;
  std::string text;  // text fragment (PartType::text)
  json::Value data;  // a whole value/function part (other types)

  void accumulate(const PartDelta& d);  // appends d.text when both are text parts
  Part finish() const;
};

// A fragment of a tool call. By default parsers emit each call whole: id, name and the
// complete `arguments` JSON text in one delta.
struct ToolCallDelta {
  size_t call = 0;        // position of the call in the message
  std::string id;         // set once (by the first delta of a call)
  std::string name;       // name fragment
  std::string arguments;  // fragment of the arguments' JSON text
  bool valid = true;      // false: the call turned out malformed (finish() makes it text)
  std::string raw;        // with valid == false: the text the model wrote for the call
  // ParseOptions::stream_tool_calls: a preview of the call as it streams, which accumulate()
  // ignores (the whole call delta that follows is authoritative). start: the id, and the name
  // when known (OpenChatML writes it after the arguments: then empty); arguments: a piece of the
  // arguments JSON text (those after the last start concatenate to the whole call's); abandoned:
  // the started call turned out malformed (its text is content; the position is reused).
  enum class Preview { none, start, arguments, abandoned };
  Preview preview = Preview::none;
};

struct MessageDelta {
  std::optional<Role> role;
  std::vector<PartDelta> contents;
  std::string reasoning;
  std::vector<ToolCallDelta> tool_calls;
  std::optional<FinishReason> finish_reason;

  bool empty() const;
  // Convenience constructors for the one-field deltas parsers emit.
  static MessageDelta text(std::string t);
  static MessageDelta thinking(std::string t);
  static MessageDelta call(ToolCallDelta c);

  void accumulate(const MessageDelta& d);
  // The accumulated message (role assistant unless a delta said otherwise).
  Message finish() const;

 private:
  // The call a delta at `call` merges into: the last one at that position, or nullptr.
  ToolCallDelta* find_call(size_t call);
  // Every parser emits call positions in nondecreasing order; while accumulate() has seen them
  // so, a call is found from the end in constant time (a reply with 100k calls accumulates in
  // linear time), otherwise by a scan.
  bool calls_ordered_ = true;
};

// The deltas of one stream: those not yet handed out, in order, and the accumulation of every
// delta ever pushed. A plain value: one stream, one thread at a time.
class DeltaQueue {
 public:
  // Queues and accumulates `d`; an empty delta (no field and no finish reason) is dropped. With
  // `coalesce`, a text-only or reasoning-only delta is appended to the last queued delta when
  // that one is of the same kind: fewer, larger deltas, the same accumulation.
  void push(MessageDelta d, bool coalesce = false);

  bool empty() const { return queue_.empty(); }
  size_t size() const { return queue_.size(); }
  // The oldest queued delta, removed from the queue. Throws InternalError if empty().
  MessageDelta pop();
  // Every queued delta, in order; the queue is empty afterwards (the accumulation stays).
  std::vector<MessageDelta> take_all();

  const MessageDelta& accumulated() const { return acc_; }
  // accumulated().finish(), recomputed only after a push.
  const Message& message() const;
  // The finished message, moved out; the accumulation is released (a parser's last step: the
  // message is then held once, not twice).
  Message take_message();

 private:
  std::deque<MessageDelta> queue_;
  MessageDelta acc_;
  mutable Message message_;
  mutable bool dirty_ = true;
};

}  // namespace ai00::internal::format
