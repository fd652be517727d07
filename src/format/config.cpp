// The [prompts] configuration in TOML (see config.h), read with toml++.
#include "format/config.h"

#include <fmt/format.h>
#include <toml++/toml.h>

namespace ai00::internal::format {

namespace {

const char* type_name(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::table:
      return "a table";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a float";
    case toml::node_type::boolean:
      return "a boolean";
    default:
      return "a date or time";
  }
}

// A key error at the position of `node` (or of its table when the node has no source).
struct Ctx {
  std::string_view source;
  ErrorInfo at(const toml::node& node, const std::string& what) const {
    const auto& b = node.source().begin;
    return make_error(ErrorKind::format,
                      fmt::format("{}:{}:{}: {}", source, b.line, b.column, what));
  }
};

std::optional<ErrorInfo> get_string(const Ctx& c, const toml::table& t, std::string_view key,
                                    std::string_view path, std::string& out) {
  const toml::node* n = t.get(key);
  if (!n) return std::nullopt;
  if (!n->is_string())
    return c.at(*n, fmt::format("{}.{}: expected a string, got {}", path, key, type_name(*n)));
  out = n->as_string()->get();
  return std::nullopt;
}

std::optional<ErrorInfo> get_bool(const Ctx& c, const toml::table& t, std::string_view key,
                                  std::string_view path, bool& out) {
  const toml::node* n = t.get(key);
  if (!n) return std::nullopt;
  if (!n->is_boolean())
    return c.at(*n, fmt::format("{}.{}: expected true or false, got {}", path, key, type_name(*n)));
  out = n->as_boolean()->get();
  return std::nullopt;
}

// A number in [lo, hi] (integers are accepted where a float is expected).
std::optional<ErrorInfo> get_number(const Ctx& c, const toml::table& t, std::string_view key,
                                    std::string_view path, double lo, double hi, double& out) {
  const toml::node* n = t.get(key);
  if (!n) return std::nullopt;
  double v = 0;
  if (n->is_floating_point()) {
    v = n->as_floating_point()->get();
  } else if (n->is_integer()) {
    v = static_cast<double>(n->as_integer()->get());
  } else {
    return c.at(*n, fmt::format("{}.{}: expected a number, got {}", path, key, type_name(*n)));
  }
  if (!(v >= lo && v <= hi))
    return c.at(*n, fmt::format("{}.{}: {} is outside [{}, {}]", path, key, v, lo, hi));
  out = v;
  return std::nullopt;
}

// Every key of `t` must be one of `known`.
std::optional<ErrorInfo> only_keys(const Ctx& c, const toml::table& t, std::string_view path,
                                   const std::vector<std::string_view>& known) {
  for (const auto& [k, v] : t) {
    bool ok = false;
    for (auto q : known) ok = ok || k.str() == q;
    if (!ok) {  // at the key itself
      const auto& b = k.source().begin;
      return make_error(ErrorKind::format,
                        fmt::format("{}:{}:{}: {}: unknown key \"{}\" (known: {})", c.source,
                                    b.line, b.column, path, k.str(), fmt::join(known, ", ")));
    }
  }
  return std::nullopt;
}

const toml::table* subtable(const Ctx& c, const toml::table& t, std::string_view key,
                            std::string_view path, std::optional<ErrorInfo>& err) {
  const toml::node* n = t.get(key);
  if (!n) return nullptr;
  if (!n->is_table()) {
    err = c.at(*n, fmt::format("{}.{}: expected a table", path, key));
    return nullptr;
  }
  return n->as_table();
}

std::optional<ErrorInfo> read_v1(const Ctx& c, const toml::table& t, Ai00V1Options& o) {
  if (auto e = only_keys(c, t, "prompts",
                         {"role_user", "role_assistant", "role_system", "assistant_prefix",
                          "assistant_prefix_thinking", "default_stop_sequences", "goose",
                          "openchatml", "ai00_v0"}))
    return e;
  for (auto [key, field] : {std::pair<std::string_view, std::string*>{"role_user", &o.role_user},
                            {"role_assistant", &o.role_assistant},
                            {"role_system", &o.role_system}}) {
    if (auto e = get_string(c, t, key, "prompts", *field)) return e;
    const toml::node* n = t.get(key);
    // A role name is written inside <ai00:…>: the bytes of a tag name only.
    if (n && (field->empty() || field->find_first_of(" \t\r\n<>\"/") != std::string::npos))
      return c.at(*n, fmt::format("prompts.{}: \"{}\" cannot be a tag name (no space, '<', "
                                  "'>', '\"' or '/')",
                                  key, *field));
  }
  if (auto e = get_string(c, t, "assistant_prefix", "prompts", o.assistant_prefix)) return e;
  if (auto e =
          get_string(c, t, "assistant_prefix_thinking", "prompts", o.assistant_prefix_thinking))
    return e;
  if (const toml::node* n = t.get("default_stop_sequences")) {
    const toml::array* a = n->as_array();
    if (!a) return c.at(*n, "prompts.default_stop_sequences: expected an array of strings");
    o.default_stop_sequences.clear();
    for (const auto& el : *a) {
      if (!el.is_string() || el.as_string()->get().empty())
        return c.at(el,
                    "prompts.default_stop_sequences: every element must be a non-empty "
                    "string");
      o.default_stop_sequences.push_back(el.as_string()->get());
    }
  }
  return std::nullopt;
}

std::optional<ErrorInfo> read_presets(const Ctx& c, const toml::table& t,
                                      std::vector<ConfigPreset>& presets) {
  for (const auto& [k, v] : t) {
    const std::string name(k.str());
    const std::string path = "presets." + name;
    if (!v.is_table()) return c.at(v, path + ": expected a table");
    const toml::table& p = *v.as_table();
    if (auto e = only_keys(c, p, path,
                           {"temperature", "top_p", "top_k", "presence_penalty",
                            "frequency_penalty", "penalty_decay"}))
      return e;
    ConfigPreset preset{name, 1.0f, 0.3f, 0.5f, 0.5f, 0.996f, 128};  // the chat preset
    for (auto& q : presets)
      if (q.name == name) preset = q;  // a table overrides only the keys it names
    double x = 0;
    struct Field {
      std::string_view key;
      double lo, hi;
      float* out;
    };
    for (const Field& f :
         {Field{"temperature", 0, 1000, &preset.temperature}, Field{"top_p", 0, 1, &preset.top_p},
          Field{"presence_penalty", -10, 10, &preset.presence_penalty},
          Field{"frequency_penalty", -10, 10, &preset.frequency_penalty},
          Field{"penalty_decay", 0, 1, &preset.penalty_decay}}) {
      if (!p.get(f.key)) continue;
      if (auto e = get_number(c, p, f.key, path, f.lo, f.hi, x)) return e;
      *f.out = static_cast<float>(x);
    }
    if (const toml::node* n = p.get("top_k")) {
      if (!n->is_integer() || n->as_integer()->get() < 0 || n->as_integer()->get() > 1000000)
        return c.at(*n, path + ".top_k: expected an integer in [0, 1000000] (0 = no limit)");
      preset.top_k = static_cast<int>(n->as_integer()->get());
    }
    bool replaced = false;
    for (auto& q : presets)
      if (q.name == name) {
        q = preset;
        replaced = true;
      }
    if (!replaced) presets.push_back(preset);
  }
  return std::nullopt;
}

}  // namespace

PromptsConfig::PromptsConfig() {
  for (const auto& p : goose_sampling_presets())
    presets.push_back(ConfigPreset{std::string(p.name), p.temperature, p.top_p, p.presence_penalty,
                                   p.frequency_penalty, p.penalty_decay, p.top_k});
}

const ConfigPreset* PromptsConfig::preset(std::string_view name) const {
  for (const auto& p : presets)
    if (p.name == name) return &p;
  return nullptr;
}

Result<PromptsConfig> parse_prompts_config(std::string_view toml_text, std::string_view source) {
  const Ctx c{source};
  toml::table root;
  try {
    root = toml::parse(toml_text, source);
  } catch (const toml::parse_error& e) {
    const auto& b = e.source().begin;
    return make_error(ErrorKind::format,
                      fmt::format("{}:{}:{}: {}", source, b.line, b.column, e.description()));
  }
  PromptsConfig cfg;
  if (auto e = only_keys(c, root, "(top level)", {"prompts", "presets"})) return *e;
  std::optional<ErrorInfo> err;
  if (const toml::table* p = subtable(c, root, "prompts", "(top level)", err)) {
    if (auto e = read_v1(c, *p, cfg.ai00_v1)) return *e;
    if (const toml::table* g = subtable(c, *p, "goose", "prompts", err)) {
      if (auto e = only_keys(c, *g, "prompts.goose",
                             {"think_a_bit", "think", "think_a_lot", "prepend_token0"}))
        return *e;
      for (auto [key, field] :
           {std::pair<std::string_view, std::string*>{"think_a_bit", &cfg.goose.think_a_bit},
            {"think", &cfg.goose.think},
            {"think_a_lot", &cfg.goose.think_a_lot}}) {
        if (auto e = get_string(c, *g, key, "prompts.goose", *field)) return *e;
        // The prompt never ends in whitespace (seed 001), nor may a tier hold a blank line.
        const toml::node* n = g->get(key);
        if (n && (field->find("\n\n") != std::string::npos ||
                  (!field->empty() && (field->back() == ' ' || field->back() == '\n'))))
          return c.at(*n, fmt::format("prompts.goose.{}: may not end in whitespace or hold a "
                                      "blank line (seed 001)",
                                      key));
      }
      if (auto e = get_bool(c, *g, "prepend_token0", "prompts.goose", cfg.goose.prepend_token0))
        return *e;
    }
    if (err) return *err;
    if (const toml::table* o = subtable(c, *p, "openchatml", "prompts", err)) {
      if (auto e = only_keys(c, *o, "prompts.openchatml", {"reflect", "introspect", "bos", "eos"}))
        return *e;
      if (auto e = get_bool(c, *o, "reflect", "prompts.openchatml", cfg.openchatml.reflect))
        return *e;
      if (auto e = get_bool(c, *o, "introspect", "prompts.openchatml", cfg.openchatml.introspect))
        return *e;
      if (auto e = get_string(c, *o, "bos", "prompts.openchatml", cfg.openchatml.bos)) return *e;
      if (auto e = get_string(c, *o, "eos", "prompts.openchatml", cfg.openchatml.eos)) return *e;
    }
    if (err) return *err;
    if (const toml::table* v = subtable(c, *p, "ai00_v0", "prompts", err)) {
      if (auto e = only_keys(c, *v, "prompts.ai00_v0", {"user", "assistant", "system", "tool"}))
        return *e;
      for (auto [key, field] :
           {std::pair<std::string_view, std::string*>{"user", &cfg.ai00_v0.user},
            {"assistant", &cfg.ai00_v0.assistant},
            {"system", &cfg.ai00_v0.system},
            {"tool", &cfg.ai00_v0.tool}}) {
        if (auto e = get_string(c, *v, key, "prompts.ai00_v0", *field)) return *e;
        const toml::node* n = v->get(key);
        if (n && (field->empty() || field->find_first_of(":\n\r") != std::string::npos))
          return c.at(*n, fmt::format("prompts.ai00_v0.{}: a label may not be empty or hold "
                                      "':' or a newline",
                                      key));
      }
    }
    if (err) return *err;
  }
  if (err) return *err;
  if (const toml::table* p = subtable(c, root, "presets", "(top level)", err)) {
    if (auto e = read_presets(c, *p, cfg.presets)) return *e;
  }
  if (err) return *err;
  return cfg;
}

Result<std::shared_ptr<const ChatFormat>> make_format(std::string_view name,
                                                      const PromptsConfig& config) {
  if (name == "ai00-v1") return make_ai00_v1(config.ai00_v1);
  if (name == "ai00-v0") return make_ai00_v0(config.ai00_v0);
  if (name == "goose") return make_goose(config.goose);
  if (name == "openchatml") return make_openchatml(config.openchatml);
  return make_format(name);  // the error listing the known names
}

}  // namespace ai00::internal::format
