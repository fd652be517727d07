// RWKV Goose / G1 chat format (seed 001): renderer and incremental output parser (see goose.h).
#include "format/goose.h"

#include <fmt/format.h>

#include "format/render_util.h"
#include "format/stream.h"

namespace ai00::internal::format {

const std::vector<SamplingPreset>& goose_sampling_presets() {
  static const std::vector<SamplingPreset> presets = {
      {"math", 0.3f, 0.3f, 0.0f, 0.0f, 0.996f, 128},
      {"chat", 1.0f, 0.3f, 0.5f, 0.5f, 0.996f, 128},
      {"creative", 0.6f, 0.7f, 1.5f, 0.1f, 0.99f, 128},
  };
  return presets;
}

std::optional<SamplingPreset> goose_sampling_preset(std::string_view name) {
  for (const auto& p : goose_sampling_presets())
    if (p.name == name) return p;
  return std::nullopt;
}

std::string_view goose_thinking_suffix(Thinking t) {
  switch (t) {
    case Thinking::off:
      return "";
    case Thinking::a_bit:
      return " think a bit";  // tier 1: about 1–4K thinking tokens
    case Thinking::on:
      return " think";  // tier 2: about 4–16K
    case Thinking::a_lot:
      return " think a lot";  // tier 3: 16K and more
  }
  return "";
}

namespace {

constexpr std::string_view kFormat = "Goose";

// seed 001 as data (base/chat_syntax.h): thinking tags whose open tag a thinking prompt leaves
// unfinished ("<think", the model writes ">"), no tool syntax, turns end at the blank line.
ChatSyntax make_syntax() {
  ChatSyntax s;
  s.thinking = {"<think>", "</think>", ">"};
  s.end_of_turn = "\n\n";
  return s;
}

class Goose final : public ChatFormat {
 public:
  explicit Goose(const GooseOptions& o) : options_(o), syntax_(make_syntax()) {}
  std::string_view name() const override { return "goose"; }
  const ChatSyntax& syntax() const override { return syntax_; }
  Result<RenderResult> render(const std::vector<Message>& conv,
                              const RenderOptions& opts) const override;
  std::unique_ptr<OutputParser> make_parser(const ParseOptions& options) const override;

 private:
  GooseOptions options_;
  ChatSyntax syntax_;
};

Result<std::string> label(const Message& m, const std::string& ptr) {
  if (m.name) {
    if (m.name->empty() || m.name->find_first_of(":\n\r") != std::string::npos)
      return make_error(ErrorKind::format, json::pointer_append(ptr, "name") + ": speaker name \"" +
                                               *m.name +
                                               "\" cannot be written in Goose (no ':' "
                                               "or newline)");
    return *m.name;
  }
  switch (m.role) {
    case Role::system:
      return std::string("System");
    case Role::user:
      return std::string("User");
    default:
      return std::string("Assistant");
  }
}

Result<RenderResult> Goose::render(const std::vector<Message>& conv,
                                   const RenderOptions& opts) const {
  if (!opts.tools.empty())
    return unsupported("tools", "seed 001 defines no tool syntax for Goose; use ai00-v1");
  if (opts.reflect || opts.introspect)
    return unsupported(opts.reflect ? "reflect" : "introspect",
                       "Goose has no reflect or introspect blocks (OpenChatML has)");
  size_t last_user = conv.size();
  for (size_t i = 0; i < conv.size(); ++i)
    if (conv[i].role == Role::user) last_user = i;
  const bool thinking = opts.thinking != Thinking::off && opts.add_generation_prompt;
  std::vector<std::string> records;
  for (size_t i = 0; i < conv.size(); ++i) {
    const Message& m = conv[i];
    const std::string ptr = message_pointer(i);
    if (m.role == Role::tool)
      return unsupported(ptr, "seed 001 defines no tool syntax for Goose; use ai00-v1");
    if (!m.tool_calls.empty())
      return unsupported(json::pointer_append(ptr, "tool_calls"),
                         "seed 001 defines no tool syntax for Goose; use ai00-v1");
    auto text = flatten_contents(m, ptr, kFormat);
    if (!text) return text.error();
    auto who = label(m, ptr);
    if (!who) return who.error();
    std::string body = collapse_blank_lines(text.value());
    // docs/chat-formats.md "Escaping": blank-line collapsing is Goose's escape for every text;
    // reasoning may not hold the "</think>" that would end it early when read back.
    if (m.role == Role::assistant && m.reasoning)
      if (auto e = find_forbidden_marker(*m.reasoning, {"</think>"},
                                         json::pointer_append(ptr, "reasoning"), kFormat))
        return *e;
    if (m.role == Role::assistant && m.reasoning)
      body = "<think>\n" + collapse_blank_lines(*m.reasoning) + "\n</think>" +
             (body.empty() ? "" : "\n" + body);
    if (thinking && i == last_user)
      body += opts.thinking == Thinking::a_bit   ? options_.think_a_bit
              : opts.thinking == Thinking::a_lot ? options_.think_a_lot
                                                 : options_.think;
    records.push_back(who.value() + ":" + (body.empty() ? "" : " " + body));
  }
  RenderResult r;
  for (size_t k = 0; k < records.size(); ++k) r.prompt += (k ? "\n\n" : "") + records[k];
  if (opts.add_generation_prompt) {
    Message a;
    a.role = Role::assistant;
    a.name = opts.assistant_name;
    auto who = label(a, "assistant_name");
    if (!who) return who.error();
    r.prompt += (r.prompt.empty() ? "" : "\n\n") + who.value() + ":" + (thinking ? " <think" : "");
  }
  // seed 001: "There should not be any space at the end of your input".
  while (!r.prompt.empty() && (r.prompt.back() == ' ' || r.prompt.back() == '\n'))
    r.prompt.pop_back();
  r.stop_sequences = {"\n\n"};
  r.prepend_token0 = opts.prepend_token0.value_or(options_.prepend_token0);
  r.constraints.syntax = syntax_;
  r.constraints.thinking_open_in_prompt = thinking;
  return r;
}

// ---------------------------------------------------------------------------------------------
// Output parser

enum class Mode { open_tag, content, reasoning };

class GooseParser final : public ParserBase {
 public:
  explicit GooseParser(const ParseOptions& o) : ParserBase(o, {"\n\n"}) {
    if (o.thinking_open) {
      mode_ = Mode::open_tag;
    } else {
      skip_text(Skip::one_space);  // "Assistant:" → the model writes the space
    }
  }

 protected:
  void consume(std::string_view text) override {
    buf_.append(text);
    while (!buf_.empty()) {
      if (mode_ == Mode::open_tag) {  // complete "Assistant: <think" with its ">"
        if (buf_[0] == '>') {
          buf_.erase(0, 1);
        } else {
          warn("Goose: the thinking tag was not completed with '>'");
        }
        mode_ = Mode::reasoning;
        skip_reasoning(Skip::one_newline);
        continue;
      }
      // A model may open thinking on its own, but only at the start of its turn.
      const std::vector<std::string_view> ms = {mode_ == Mode::reasoning ? "</think>" : "<think>"};
      if (!emit_until_marker(buf_, ms, mode_ == Mode::reasoning)) return;
      if (mode_ == Mode::reasoning) {
        end_reasoning(1);
        mode_ = Mode::content;
        skip_text(Skip::whitespace);
      } else if (anything_emitted()) {
        emit_text("<think>");  // not at the start: plain text
      } else {
        mode_ = Mode::reasoning;
        skip_reasoning(Skip::one_newline);
      }
    }
  }

  void end_input() override {
    std::string rest;
    rest.swap(buf_);
    if (mode_ == Mode::content) {
      emit_text(rest);
    } else {
      emit_reasoning(rest);
      end_reasoning(1);
    }
    end_text(SIZE_MAX);  // content is trimmed when rendered
  }

 private:
  Mode mode_ = Mode::content;
  std::string buf_;
};

std::unique_ptr<OutputParser> Goose::make_parser(const ParseOptions& options) const {
  return std::make_unique<GooseParser>(options);
}

}  // namespace

std::shared_ptr<const ChatFormat> make_goose(const GooseOptions& options) {
  return std::make_shared<Goose>(options);
}

}  // namespace ai00::internal::format
