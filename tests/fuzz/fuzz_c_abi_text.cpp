// The text families of fuzz_c_abi (fuzz_c_abi.h): grammars (with a model, a tokenizer or at
// byte level; KBNF, JSON Schema, tool grammars), chat templates and output parsers.
#include <cstring>
#include <string>
#include <vector>

#include "fuzz_c_abi.h"

namespace ai00_fuzz::cabi {
namespace {

const char* const kFormats[] = {"goose", "ai00-v1", "ai00-v0", "openchatml", "nope", ""};

void schema_operand(World& w, Padded<ai00_schema_options>& o) {
  ai00_schema_options_default(&o.v);
  const uint8_t b = w.in.u8();
  o.v.lenient = b & 1;
  o.v.strict_properties = b & 2;
  o.v.flexible_whitespace = b & 4;
  o.v.compact = b & 8;
  o.v.max_whitespace = (b & 0x10) ? w.in.u8() % 80 : 0;  // over 64 is refused
  if (b & 0x20) o.v.struct_size = struct_size<ai00_schema_options>(w.in.u8());
}

// A new grammar from any of the five constructors into grammars[slot].
void make_grammar(World& w, uint8_t a, ai00_grammar*& g) {
  const std::string t = text_operand(w, w.in.u8());
  Padded<ai00_schema_options> o;
  schema_operand(w, o);
  const ai00_tokenizer* tok = (a & 0x80) ? w.tok : nullptr;
  switch (a / 8 % 6) {
    case 0:
      ai00_grammar_compile(&g, w.model, t.data(), t.size());
      break;
    case 1:
      ai00_grammar_from_json_schema(&g, w.model, t.data(), t.size());
      break;
    case 2:
      ai00_grammar_from_json_schema_with_options(&g, w.model, t.data(), t.size(), &o.v);
      break;
    case 3: {
      Padded<ai00_grammar_params> p;
      ai00_grammar_params_default(&p.v);
      const std::string rule = text_operand(w, w.in.u8());
      if (a & 0x40) p.v.start_rule = rule.data(), p.v.start_rule_len = rule.size();
      ai00_grammar_new(&g, tok, t.data(), t.size(), (a & 0x20) ? nullptr : &p.v);
      break;
    }
    case 4:
      ai00_grammar_new_from_json_schema(&g, tok, t.data(), t.size(), (a & 0x40) ? nullptr : &o.v);
      break;
    default: {
      Padded<ai00_tool_grammar_params> p;
      ai00_tool_grammar_params_default(&p.v);
      const uint8_t b = w.in.u8();
      p.v.level = b % 5;
      p.v.thinking_start = b / 8 % 4;
      p.v.allow_eos_end = b & 0x20;
      p.v.schema = (b & 0x40) ? &o.v : nullptr;
      if (b & 0x80) p.v.struct_size = struct_size<ai00_tool_grammar_params>(w.in.u8());
      ai00_grammar_new_for_tools(&g, tok, w.tmpl, t.data(), t.size(), &p.v);
    }
  }
}

void render(World& w, uint8_t a) {
  const char* out = nullptr;
  size_t len = 0;
  const std::string conv = text_operand(w, w.in.u8());
  Padded<ai00_render_options> o;
  ai00_render_options_default(&o.v);
  const uint8_t b = w.in.u8();
  o.v.add_generation_prompt = b & 1;
  o.v.thinking = b / 2 % 5;  // 4 is not a level
  const std::string tools(text_operand(w, (b & 8) ? 6 : w.in.u8()));
  if (b & 0x10) o.v.tools_json = tools.data(), o.v.tools_json_len = tools.size();
  if (b & 0x20) o.v.assistant_name = "Bot", o.v.assistant_name_len = AI00_NUL_TERMINATED;
  o.v.reflect = b & 0x40;
  o.v.introspect = (b & 0x80) && (a & 0x80);
  o.v.prepend_token0 = static_cast<int8_t>(w.in.u8()) % 3;
  if (a & 0x40) o.v.struct_size = struct_size<ai00_render_options>(w.in.u8());
  ai00_chat_template_render(&out, &len, w.tmpl, conv.data(), conv.size(),
                            (a & 0x20) ? nullptr : &o.v);
}

void render_other(World& w, uint8_t a) {
  const char* out = nullptr;
  size_t len = 0;
  const std::string first(text_operand(w, w.in.u8()));
  const std::string second = text_operand(w, w.in.u8());
  switch (a / 8 % 3) {
    case 0:
      ai00_chat_template_render_fim(&out, &len, w.tmpl, first.data(), first.size(), second.data(),
                                    second.size());
      break;
    case 1: {
      const char* files[] = {first.c_str(), "b", nullptr};
      const size_t lens[] = {AI00_NUL_TERMINATED, 1, 0};
      ai00_chat_template_render_files(&out, &len, w.tmpl, files, (a & 0x40) ? nullptr : lens,
                                      a / 64 % 4, a & 0x20);
      break;
    }
    default:
      ai00_chat_template_parse_transcript(&out, &len, w.tmpl, first.data(), first.size());
  }
}

}  // namespace

void call_grammar(World& w, uint8_t a) {
  ai00_grammar*& g = w.grammars[a / 64 % 2];
  switch (a % 6) {
    case 0:
    case 1:
      if (!g && w.heavy()) make_grammar(w, a, g);
      break;
    case 2: {
      const char* kbnf = nullptr;
      size_t len = 0, n = 0;
      ai00_grammar_kbnf(&kbnf, (a & 8) ? nullptr : &len, g);
      ai00_grammar_warning_count(&n, g);
      ai00_grammar_warning(&kbnf, &len, g, w.in.u8() % 3);
      (void)ai00_grammar_last_error(g);
      break;
    }
    case 3: {
      int32_t ok = 0;
      const std::string t = text_operand(w, w.in.u8());
      ai00_grammar_accepts(&ok, g, t.data(), t.size());
      break;
    }
    case 4: {
      Padded<ai00_grammar_check_result> r;
      r.v.struct_size = struct_size<ai00_grammar_check_result>(w.in.u8());
      const std::string t = text_operand(w, w.in.u8());
      ai00_grammar_check(&r.v, g, t.data(), t.size());
      break;
    }
    default:  // generators keep their own reference
      ai00_grammar_free(g);
      g = nullptr;
  }
}

void call_template(World& w, uint8_t a) {
  switch (a % 7) {
    case 0: {
      if (w.tmpl) break;
      const char* name = kFormats[a / 8 % 6];
      if (a & 0x80) {
        const std::string cfg = text_operand(w, w.in.u8());
        ai00_chat_template_new_with_config(&w.tmpl, name, AI00_NUL_TERMINATED, cfg.data(),
                                           cfg.size());
      } else {
        ai00_chat_template_new(&w.tmpl, name, std::strlen(name));
      }
      break;
    }
    case 1:
      render(w, a);
      break;
    case 2:
      render_other(w, a);
      break;
    case 3: {
      size_t n = 0, len = 0;
      const char* s = nullptr;
      ai00_chat_template_stop_count((a & 8) ? nullptr : &n, w.tmpl);
      ai00_chat_template_stop(&s, &len, w.tmpl, w.in.u8() % 4);
      ai00_chat_template_last_render_json(&s, &len, w.tmpl);
      (void)ai00_chat_template_last_error(w.tmpl);
      break;
    }
    case 4: {
      Padded<ai00_sampler_params> p;
      const char* names[] = {"chat", "math", "creative", "fast", "nope"};
      ai00_chat_template_sampler_preset(&p.v, w.tmpl, names[a / 8 % 5], AI00_NUL_TERMINATED);
      break;
    }
    default:  // parsers and generators keep their own reference to the format
      ai00_chat_template_free(w.tmpl);
      w.tmpl = nullptr;
  }
}

void call_parser(World& w, uint8_t a) {
  switch (a % 7) {
    case 0: {
      if (w.parser) break;
      Padded<ai00_parse_options> o;
      ai00_parse_options_default(&o.v);
      const uint8_t b = w.in.u8();
      o.v.thinking = b % 5;
      const std::string tools = text_operand(w, (b & 8) ? 6 : w.in.u8());
      if (b & 0x10) o.v.tools_json = tools.data(), o.v.tools_json_len = tools.size();
      o.v.id_seed = b;
      o.v.stream_tool_calls = b & 0x20;
      if (b & 0x40) o.v.struct_size = struct_size<ai00_parse_options>(w.in.u8());
      ai00_output_parser_new(&w.parser, w.tmpl, (b & 0x80) ? nullptr : &o.v);
      break;
    }
    case 1: {
      size_t n = 0;
      const std::string t = text_operand(w, w.in.u8());
      ai00_output_parser_push((a & 8) ? nullptr : &n, w.parser, t.data(), t.size());
      break;
    }
    case 2:
      ai00_output_parser_finish(w.parser, static_cast<int8_t>(w.in.u8()) % 8);
      break;
    case 3: {
      size_t n = 0;
      int32_t reason = 0;
      ai00_output_parser_pending(&n, w.parser);
      ai00_output_parser_finish_reason(&reason, w.parser);
      Padded<ai00_delta> d;
      d.v.struct_size = struct_size<ai00_delta>(w.in.u8());
      ai00_output_parser_next(&d.v, w.parser);
      break;
    }
    case 4: {
      const char* s = nullptr;
      size_t len = 0, n = 0;
      ai00_output_parser_message_json(&s, &len, w.parser);
      ai00_output_parser_warning_count(&n, w.parser);
      ai00_output_parser_warning(&s, &len, w.parser, w.in.u8() % 3);
      (void)ai00_output_parser_last_error(w.parser);
      break;
    }
    default:
      ai00_output_parser_free(w.parser);
      w.parser = nullptr;
  }
}

}  // namespace ai00_fuzz::cabi
