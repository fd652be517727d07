// MessageDelta / PartDelta accumulation and the DeltaQueue (see delta.h).
#include "format/delta.h"

#include <iterator>
#include <utility>

#include "base/error.h"

namespace ai00::internal::format {

const char* finish_reason_name(FinishReason r) {
  switch (r) {
    case FinishReason::stop:
      return "stop";
    case FinishReason::length:
      return "length";
    case FinishReason::tool_calls:
      return "tool_calls";
    case FinishReason::cancelled:
      return "cancelled";
    case FinishReason::grammar_done:
      return "grammar_done";
    case FinishReason::error:
      return "error";
  }
  return "error";
}

std::optional<FinishReason> finish_reason_from_name(std::string_view name) {
  for (auto r : {FinishReason::stop, FinishReason::length, FinishReason::tool_calls,
                 FinishReason::cancelled, FinishReason::grammar_done, FinishReason::error})
    if (name == finish_reason_name(r)) return r;
  return std::nullopt;
}

void PartDelta::accumulate(const PartDelta& d) {
  if (type == PartType::text && d.type == PartType::text) {
    text += d.text;
  } else {
    *this = d;
  }
}

Part PartDelta::finish() const { return Part{type, text, data}; }

bool MessageDelta::empty() const {
  return !role && contents.empty() && reasoning.empty() && tool_calls.empty() && !finish_reason;
}

MessageDelta MessageDelta::text(std::string t) {
  MessageDelta d;
  d.contents.push_back(PartDelta{PartType::text, std::move(t), {}});
  return d;
}

MessageDelta MessageDelta::thinking(std::string t) {
  MessageDelta d;
  d.reasoning = std::move(t);
  return d;
}

MessageDelta MessageDelta::call(ToolCallDelta c) {
  MessageDelta d;
  d.tool_calls.push_back(std::move(c));
  return d;
}

void MessageDelta::accumulate(const MessageDelta& d) {
  if (d.role) role = d.role;
  for (const auto& p : d.contents) {
    if (!contents.empty() && contents.back().type == PartType::text && p.type == PartType::text) {
      contents.back().accumulate(p);
    } else {
      contents.push_back(p);
    }
  }
  reasoning += d.reasoning;
  for (const auto& c : d.tool_calls) {
    if (c.preview != ToolCallDelta::Preview::none) continue;  // previews never accumulate
    ToolCallDelta* target = find_call(c.call);
    if (!target) {
      if (!tool_calls.empty() && c.call < tool_calls.back().call) calls_ordered_ = false;
      tool_calls.push_back(c);
      continue;
    }
    if (target->id.empty()) target->id = c.id;
    target->name += c.name;
    target->arguments += c.arguments;
    target->raw += c.raw;
    target->valid = target->valid && c.valid;
  }
  if (d.finish_reason) finish_reason = d.finish_reason;
}

ToolCallDelta* MessageDelta::find_call(size_t call) {
  for (auto it = tool_calls.rbegin(); it != tool_calls.rend(); ++it) {
    if (it->call == call) return &*it;
    if (calls_ordered_ && it->call < call) return nullptr;  // none further back
  }
  return nullptr;
}

Message MessageDelta::finish() const {
  Message m;
  m.role = role.value_or(Role::assistant);
  for (const auto& p : contents) {
    if (p.type == PartType::text && p.text.empty()) continue;
    m.contents.push_back(p.finish());
  }
  if (!reasoning.empty()) m.reasoning = reasoning;
  for (const auto& c : tool_calls) {
    Result<json::Value> args = json::Value(json::Object{});
    if (!c.arguments.empty()) args = json::parse(c.arguments);
    if (!c.valid || !args || c.name.empty()) {
      // A malformed call is text the model wrote: give it back as content.
      if (!m.contents.empty() && m.contents.back().type == PartType::text) {
        m.contents.back().text += c.raw;
      } else if (!c.raw.empty()) {
        m.contents.push_back(Part::make_text(c.raw));
      }
      continue;
    }
    m.tool_calls.push_back(ToolCall{c.id, c.name, std::move(args).value()});
  }
  return m;
}

namespace {

// The one-field deltas coalesce() may merge: a single text part, or reasoning alone.
bool text_only(const MessageDelta& d) {
  return !d.role && d.contents.size() == 1 && d.contents[0].type == PartType::text &&
         d.reasoning.empty() && d.tool_calls.empty() && !d.finish_reason;
}
bool reasoning_only(const MessageDelta& d) {
  return !d.role && d.contents.empty() && !d.reasoning.empty() && d.tool_calls.empty() &&
         !d.finish_reason;
}

}  // namespace

void DeltaQueue::push(MessageDelta d, bool coalesce) {
  if (d.empty()) return;
  acc_.accumulate(d);
  dirty_ = true;
  if (coalesce && !queue_.empty()) {
    MessageDelta& last = queue_.back();
    if (text_only(d) && text_only(last)) {
      last.contents.back().text += d.contents.front().text;
      return;
    }
    if (reasoning_only(d) && reasoning_only(last)) {
      last.reasoning += d.reasoning;
      return;
    }
  }
  queue_.push_back(std::move(d));
}

MessageDelta DeltaQueue::pop() {
  AI00_CHECK(!queue_.empty(), "DeltaQueue::pop on an empty queue");
  MessageDelta d = std::move(queue_.front());
  queue_.pop_front();
  return d;
}

std::vector<MessageDelta> DeltaQueue::take_all() {
  std::vector<MessageDelta> out(std::make_move_iterator(queue_.begin()),
                                std::make_move_iterator(queue_.end()));
  queue_.clear();
  return out;
}

const Message& DeltaQueue::message() const {
  if (dirty_) {
    message_ = acc_.finish();
    dirty_ = false;
  }
  return message_;
}

Message DeltaQueue::take_message() {
  Message m = dirty_ ? acc_.finish() : std::move(message_);
  acc_ = MessageDelta{};
  message_ = Message{};
  dirty_ = true;
  return m;
}

}  // namespace ai00::internal::format
