// Objects of the JSON Schema converter (json_schema_impl.h, docs/grammar.md "JSON Schema"):
// listed, required, dependent and extra members, member counts, and the key trie that keeps
// objects with thousands of optional properties cheap to match.
#include <functional>

#include "grammar/json_schema_impl.h"

namespace ai00::internal::grammar {
// ---- objects ---------------------------------------------------------------------------------

ObjectShape SchemaConverter::Impl::shape_of(dom::object o, const std::string& ptr,
                                            std::vector<std::string>* unlisted_required) {
  ObjectShape shape;
  auto props = o["properties"];
  if (!props.error()) {
    dom::object po;
    if (props.get_object().get(po))
      throw SchemaError{"`properties` must be an object at " + ptr + "/properties"};
    for (auto f : po) {
      shape.properties.push_back(
          {std::string(f.key), ptr + "/properties/" + pointer_token(f.key), false});
      known.emplace(shape.properties.back().pointer, f.value);
    }
  }
  std::map<std::string_view, size_t> index;  // name -> position (linear in many properties)
  for (size_t i = 0; i < shape.properties.size(); ++i) index.emplace(shape.properties[i].name, i);
  auto req = o["required"];
  if (!req.error()) {
    dom::array ra;
    if (req.get_array().get(ra))
      throw SchemaError{"`required` must be an array at " + ptr + "/required"};
    size_t i = 0;
    for (auto e : ra) {
      std::string_view name;
      if (e.get_string().get(name))
        throw SchemaError{"`required` entries must be strings at " + ptr + "/required/" +
                          std::to_string(i)};
      auto at = index.find(name);
      if (at != index.end()) shape.properties[at->second].required = true;
      if (at == index.end() && unlisted_required != nullptr)
        unlisted_required->emplace_back(name);
      else if (at == index.end())
        unsupported("required property `" + std::string(name) + "` not listed in `properties`",
                    ptr + "/required/" + std::to_string(i));
      ++i;
    }
  }
  auto add = o["additionalProperties"];
  if (add.error()) {
    // Strict by default only next to listed properties: {"type": "object"} alone (seed 002's
    // `arguments`) means any object.
    shape.additional = !opt.strict_properties || props.error();
  } else if (add.value_unsafe().type() == dom::element_type::BOOL) {
    shape.additional = add.value_unsafe().get_bool().value_unsafe();
  } else {
    shape.additional = true;
    shape.additional_pointer = ptr + "/additionalProperties";
  }
  return shape;
}

// Objects (docs/grammar.md "JSON Schema"): members are laid out by a state machine whose state is
// (which tracked properties are present, how many members so far). Tracked are all listed
// properties when there are at most kMaxAnyOrder of them (exact, any order); otherwise the
// required ones and those dependentRequired names, as a set when they are at most kMaxAnyOrder
// (any order), else the required ones in schema order (documented). The other properties
// ("loose": optional, no dependency) and extra members (patternProperties,
// additionalProperties) may come anywhere, any number of times: loose keys are spelled through
// one shared trie of their names, so an Earley set holds a few items per key byte instead of one
// per remaining property (masks over thousands of optional properties). A loose key may thus
// repeat (documented approximation: JSON Schema leaves duplicate keys undefined). The member
// count serves minProperties / maxProperties.
namespace {
constexpr size_t kMaxAnyOrder = 8;
constexpr size_t kMaxExcludedKeys = 256;
constexpr size_t kMaxObjectStates = 1u << 14;
// Past this many bytes of listed keys, keys are spelled byte by byte (Impl::spelled) so that
// their automata stay within the DFA-state budget.
constexpr size_t kMaxLiteralKeyBytes = 4096;

using Impl = SchemaConverter::Impl;

struct ObjectMember {
  std::string name, value;  // value: rule name
  bool required = false;
};
struct MemberLayout {
  std::vector<ObjectMember> props;
  std::vector<std::pair<size_t, std::vector<size_t>>> deps;  // dependentRequired, by index
  std::vector<uint8_t> banned;  // per property: a dependency makes it impossible
  std::string extra;            // one extra member (patternProperties / additional), or ""
  uint64_t min_p = 0;
  std::optional<uint64_t> max_p;
};

// The key text of a member as written before its value: `"name"` (the colon then follows as
// whitespace-flexible punctuation) or `"name": ` in the canonical layouts.
std::string key_text(const Impl& c, const std::string& name) {
  if (c.opt.flexible_whitespace) return json_quote(name);
  return json_quote(name) + (c.opt.compact ? ":" : ": ");
}

// One rule matching `key: value` for any of the `loose` members, through a trie of their key
// texts: a rule per branching node, edges spelled (or literal when the keys are short), a leaf
// per key followed by its value. Built with an explicit stack (keys may share long prefixes).
std::string key_trie(Impl& c, const MemberLayout& L, const std::vector<size_t>& loose, bool spell,
                     const std::string& hint) {
  std::vector<std::pair<std::string, size_t>> keys;  // key text, property index
  for (size_t i : loose) keys.emplace_back(key_text(c, L.props[i].name), i);
  std::sort(keys.begin(), keys.end());
  auto label = [&](size_t k, size_t from, size_t to) {
    const std::string text = keys[k].first.substr(from, to - from);
    return spell ? c.spelled(text) : kbnf_literal(text);
  };
  auto leaf = [&](size_t k) {
    const std::string& v = L.props[keys[k].second].value;
    return c.opt.flexible_whitespace ? c.colon() + " " + v : v;
  };
  struct Node {
    size_t lo, hi, depth;  // keys [lo, hi) share their first `depth` bytes
    std::string name;
  };
  const std::string root = c.new_name(hint);
  std::vector<Node> todo{{0, keys.size(), 0, root}};
  while (!todo.empty()) {
    const Node node = todo.back();
    todo.pop_back();
    std::vector<std::string> alts;
    size_t i = node.lo;
    // Keys that end here, sorted first: several when a name is listed more than once in
    // `properties` (every copy means the schema `/properties/<name>` resolves to, the first).
    // Every key left is longer than `depth`, so the grouping below never reads past a key's end.
    while (i < node.hi && keys[i].first.size() == node.depth) alts.push_back(leaf(i++));
    while (i < node.hi) {
      size_t j = i + 1;
      while (j < node.hi && keys[j].first[node.depth] == keys[i].first[node.depth]) ++j;
      if (j == i + 1) {
        alts.push_back(label(i, node.depth, keys[i].first.size()) + " " + leaf(i));
      } else {
        // Sorted: the group's common prefix is that of its first and last key.
        const std::string &a = keys[i].first, &b = keys[j - 1].first;
        size_t d = node.depth + 1;
        while (d < a.size() && d < b.size() && a[d] == b[d]) ++d;
        const std::string child = c.new_name(hint);
        todo.push_back({i, j, d, child});
        alts.push_back(label(i, node.depth, d) + " " + child);
      }
      i = j;
    }
    c.rule_lines.push_back(node.name + " ::= " + Impl::join_alts(alts) + ";");
  }
  return root;
}

// Which properties the state tracks (bits of a set, or positions in schema order) and which are
// loose (anywhere, through the key trie): see the comment above kMaxAnyOrder.
struct Tracking {
  std::vector<size_t> tracked, loose;
  bool set_mode = false;
};
Tracking choose_tracking(Impl& c, const MemberLayout& L, uint64_t cap, const std::string& ptr) {
  const size_t n = L.props.size();
  auto fits = [&](size_t k) {
    return k <= kMaxAnyOrder && ((uint64_t{1} << k) * (cap + 1)) <= kMaxObjectStates;
  };
  // Tracked properties (bits of the state set, or positions in schema order) and loose ones.
  std::vector<uint8_t> in_deps(n, 0);
  for (const auto& [a, needs] : L.deps) {
    in_deps[a] = 1;
    for (size_t b : needs) in_deps[b] = 1;
  }
  Tracking t;
  t.set_mode = fits(n);
  if (!t.set_mode) {
    size_t k = 0;
    for (size_t i = 0; i < n; ++i) k += !L.banned[i] && (L.props[i].required || in_deps[i]);
    t.set_mode = fits(k);
    if (!t.set_mode && !L.deps.empty())
      c.unsupported("`dependentRequired` beside more than " + std::to_string(kMaxAnyOrder) +
                        " required or dependent properties",
                    ptr + "/dependentRequired");
  }
  for (size_t i = 0; i < n; ++i) {
    if (L.banned[i]) continue;
    const bool track = fits(n) || L.props[i].required || (t.set_mode && in_deps[i]);
    (track ? t.tracked : t.loose).push_back(i);
  }
  return t;
}

// `{ members }` of an object (see above), or the empty object where allowed.
std::string members_expr(Impl& c, const MemberLayout& L, const std::string& ptr) {
  const auto& props = L.props;
  const size_t n = props.size();
  const uint64_t cap = L.max_p ? *L.max_p : std::max<uint64_t>(L.min_p, 1);
  const Tracking tr = choose_tracking(c, L, cap, ptr);
  const std::vector<size_t>&tracked = tr.tracked, &loose = tr.loose;
  const bool set_mode = tr.set_mode;
  const size_t k = tracked.size();
  if (!set_mode && cap > 1 && (k + 1) * (cap + 1) > kMaxObjectStates * 64)
    throw SchemaError{"minProperties / maxProperties too large for " + std::to_string(k) +
                      " required properties at " + show(ptr)};
  std::vector<int> bit(n, -1);
  for (size_t t = 0; t < k; ++t) bit[tracked[t]] = static_cast<int>(t);

  size_t key_bytes = 0;
  for (const auto& p : props) key_bytes += p.name.size() + 2;
  const bool spell = key_bytes > kMaxLiteralKeyBytes;
  std::vector<std::string> kv(n);
  for (size_t i : tracked) {
    const std::string text = key_text(c, props[i].name);
    const std::string key = spell ? c.spelled(text) : kbnf_literal(text);
    kv[i] = key + " " + (c.opt.flexible_whitespace ? c.colon() + " " : "") + props[i].value;
    // A tracked member appears in many states: one rule keeps the grammar text linear.
    if (n > kMaxAnyOrder) kv[i] = c.add_rule(props[i].name + "_member", kv[i]);
  }
  // Members that may come anywhere, any number of times: loose ones and extra ones.
  std::vector<std::string> free_alts;
  if (!loose.empty()) free_alts.push_back(key_trie(c, L, loose, spell, c.hint_for(ptr) + "_key"));
  if (!L.extra.empty()) free_alts.push_back(L.extra);
  const std::string repeat =
      free_alts.empty()       ? ""
      : free_alts.size() == 1 ? free_alts[0]
                              : c.add_rule(c.hint_for(ptr) + "_free", Impl::join_alts(free_alts));

  const std::string comma_expr =
      set_mode && n <= kMaxAnyOrder ? c.comma() : c.shared_rule("comma", "comma", c.comma());
  auto sep = [&](uint64_t cnt) { return cnt == 0 ? std::string() : comma_expr + " "; };
  auto can_end = [&](uint64_t key, uint64_t cnt) {
    if (cnt == 0 || cnt < L.min_p) return false;
    if (!set_mode) return key == k;  // every tracked one (required) passed
    for (size_t t = 0; t < k; ++t)
      if (props[tracked[t]].required && !((key >> t) & 1)) return false;
    auto present = [&](size_t i) { return bit[i] >= 0 && ((key >> bit[i]) & 1); };
    for (const auto& [a, needs] : L.deps)
      if (present(a))
        for (size_t b : needs)
          if (!present(b)) return false;
    return true;
  };
  // Body of state (set or position `key`, count `cnt`) given the rules of its successors.
  auto body_of = [&](uint64_t key, uint64_t cnt,
                     const std::function<std::string(uint64_t, uint64_t)>& next) -> std::string {
    std::vector<std::string> alts;
    const bool room = !L.max_p || cnt < *L.max_p;
    const uint64_t c1 = std::min(cnt + 1, cap);
    const bool saturated = !L.max_p && cnt == cap && !repeat.empty();
    if (can_end(key, cnt)) alts.push_back("''");
    for (size_t t = set_mode ? 0 : key; room && t < k && (set_mode || t == key); ++t) {
      if (set_mode && ((key >> t) & 1)) continue;
      const std::string r = next(set_mode ? key | (uint64_t{1} << t) : key + 1, c1);
      if (!r.empty()) alts.push_back(sep(cnt) + kv[tracked[t]] + " " + r);
    }
    if (!repeat.empty() && room && !saturated) {
      const std::string r = next(key, c1);
      if (!r.empty()) alts.push_back(sep(cnt) + repeat + " " + r);
    }
    if (alts.empty()) return "";
    std::string body = Impl::join_alts(alts);
    if (saturated) body = "(" + comma_expr + " " + repeat + ")* (" + body + ")";
    return body;
  };
  std::map<std::pair<uint64_t, uint64_t>, std::string> state_rule;  // "" = cannot complete
  const std::string hint = c.hint_for(ptr) + "_members";
  std::function<std::string(uint64_t, uint64_t)> get;
  if (set_mode) {
    get = [&](uint64_t set, uint64_t cnt) -> std::string {
      auto it = state_rule.find({set, cnt});
      if (it != state_rule.end()) return it->second;
      state_rule[{set, cnt}] = "";  // no cycles: every step adds a member or saturates (loop)
      const std::string body = body_of(set, cnt, get);
      const std::string name = body.empty() ? "" : c.add_rule(hint, body);
      state_rule[{set, cnt}] = name;
      return name;
    };
  } else {
    // Schema order: build from the last position back, iteratively (k may be large).
    auto known_rule = [&](uint64_t key, uint64_t cnt) {
      auto it = state_rule.find({key, cnt});
      return it == state_rule.end() ? std::string() : it->second;
    };
    for (uint64_t i = k + 1; i-- > 0;)
      for (uint64_t cnt = cap + 1; cnt-- > 0;) {
        const std::string body = body_of(i, cnt, known_rule);
        if (!body.empty()) state_rule[{i, cnt}] = c.add_rule(hint, body);
      }
    get = known_rule;
  }
  const std::string first = get(0, 0);
  bool empty_ok = L.min_p == 0;
  for (const auto& p : props) empty_ok &= !p.required;
  std::vector<std::string> alts;
  if (empty_ok) alts.push_back(c.empty_obj());
  if (!first.empty()) alts.push_back(c.lbrace() + " " + first + " " + c.rbrace());
  if (alts.empty()) throw EmptySchema{{"no object satisfies the schema at " + show(ptr)}};
  return alts.size() == 1 ? alts[0] : "(" + Impl::join_alts(alts) + ")";
}

}  // namespace

namespace {

// Additional keys next to patternProperties: keys that match none of the patterns (`raw`: each
// pattern's strings over raw text, schema_regex.h) and none of `names`. Keys written without
// escapes are matched exactly by one complement terminal (`#ex` with every pattern and name
// anchored by \A…\z, plus the bytes JSON must escape); keys with an escape are not checked
// (documented approximation). "" when the terminal outgrows the grammar's budget.
std::string keys_excluding_patterns(const std::vector<std::string>& raw,
                                    const std::vector<std::string>& names) {
  std::string ex = R"("|\\|[\x00-\x1F])";
  for (const auto& r : raw) ex += R"(|\A(?:)" + r + R"()\z)";
  bool empty_ok = true;
  for (const auto& n : names) {
    empty_ok &= !n.empty();
    if (!n.empty() && json_escape(n) == n) ex += R"(|\A)" + regex_escape(n) + R"(\z)";
  }
  const std::string plain = kbnf_regex(ex, RegexKind::complement);
  const std::string unit = "(?:" + string_unit_regex(StringEncoding::json) + ")*";
  const std::string escape = R"(\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))";
  const std::string escaped = kbnf_regex("\"" + unit + escape + unit + "\"");
  try {
    CompiledGrammar::compile_kbnf("start ::= " + plain + ";", nullptr);
    for (const auto& r : raw) {  // a pattern that matches the empty key forbids it
      const CompiledGrammar g =
          CompiledGrammar::compile_kbnf("start ::= " + kbnf_regex(r) + " | 'x';", nullptr);
      Matcher m(g);
      empty_ok &= !m.is_complete();
    }
  } catch (const std::exception&) {
    return "";  // the complement outgrows the DFA-state budget: the caller approximates
  }
  const std::string quote = kbnf_literal("\"");
  return "(" + quote + " " + plain + (empty_ok ? "?" : "") + " " + quote + " | " + escaped + ")";
}

// patternProperties members (appended to `alts`) and each pattern over raw text (`raw`, for
// the additional keys' exclusion; `exact` false when one cannot be written so).
void pattern_members(Impl& c, dom::object o, const std::string& ptr, bool has_key_re,
                     std::vector<std::string>& alts, std::vector<std::string>& raw, bool& exact) {
  if (auto pp = o["patternProperties"]; !pp.error()) {
    dom::object ppo;
    if (pp.get_object().get(ppo))
      throw SchemaError{"`patternProperties` must be an object at " + ptr + "/patternProperties"};
    for (auto f : ppo) {
      const std::string where = ptr + "/patternProperties/" + pointer_token(f.key);
      auto re = translate_pattern(f.key, StringEncoding::json);
      if (!re.ok()) {
        c.unsupported(re.error().message, where);
        continue;
      }
      if (has_key_re) {
        c.unsupported("`patternProperties` together with `propertyNames`", where);
        continue;
      }
      if (auto raw_re = translate_pattern(f.key, StringEncoding::raw); raw_re.ok())
        raw.push_back(raw_re.value());
      else
        exact = false;
      try {
        const std::string value = c.rule_for(where, Mode::json, "", c.hint_for(ptr) + "_pattern");
        alts.push_back(kbnf_regex("\"" + re.value() + "\"") + " " + c.colon() + " " + value);
      } catch (const EmptySchema&) {
        // No value satisfies the pattern's schema: its keys are forbidden (excluded below).
      }
    }
    if (ppo.size() > 0)
      c.warnings.push_back(
          "approximated `patternProperties` at " + ptr +
          "/patternProperties: a key matching several patterns is checked against one of them, a "
          "listed property against its `properties` schema only, and an additional key written "
          "with escapes is not checked against the patterns");
  }
}

// The key of an additional member: a string that is none of `names` and matches none of the
// patterns (`raw`) or `key_re` (propertyNames), exactly or as documented (warnings).
std::string additional_key(Impl& c, const std::string& ptr,
                           const std::optional<std::string>& key_re,
                           const std::vector<std::string>& names,
                           const std::vector<std::string>& raw, bool exact) {
  std::string key;
  if (!key_re && !raw.empty() && exact)
    key = keys_excluding_patterns(
        raw, names.size() <= kMaxExcludedKeys ? names : std::vector<std::string>{});
  if (key.empty() && !raw.empty() && !key_re)
    c.warnings.push_back("approximated `patternProperties` at " + ptr +
                         "/patternProperties: additional keys are not checked against the "
                         "patterns (their complement exceeds the grammar's DFA-state budget)");
  if (!key.empty()) {
    if (names.size() > kMaxExcludedKeys)
      c.warnings.push_back("approximated `additionalProperties` at " + show(ptr) +
                           ": with more than " + std::to_string(kMaxExcludedKeys) +
                           " listed properties an extra key may repeat a listed name (valued by "
                           "additionalProperties, not by the listed schema)");
  } else if (key_re) {
    key = kbnf_regex("\"" + *key_re + "\"");
    if (!names.empty())
      c.warnings.push_back("approximated `propertyNames` at " + ptr +
                           "/propertyNames: an extra key may repeat a listed name");
  } else if (names.empty() || names.size() > kMaxExcludedKeys) {
    // Past kMaxExcludedKeys names the exclusion automaton outgrows the grammar's state
    // budget: any key (documented approximation, warned).
    if (!names.empty())
      c.warnings.push_back("approximated `additionalProperties` at " + show(ptr) +
                           ": with more than " + std::to_string(kMaxExcludedKeys) +
                           " listed properties an extra key may repeat a listed name (valued by "
                           "additionalProperties, not by the listed schema)");
    key = c.shared_rule("string", "string",
                        kbnf_regex("\"(?:" + string_unit_regex(StringEncoding::json) + ")*\""));
  } else {
    // Extra keys never repeat a listed one (JSON Schema applies additionalProperties only to
    // other names).
    key = c.string_excluding_expr(names, ptr + "/properties");
  }
  return key;
}

}  // namespace

std::string SchemaConverter::Impl::object_expr(dom::object o, const std::string& ptr) {
  std::vector<std::string> unlisted_required;
  ObjectShape shape = shape_of(o, ptr, &unlisted_required);
  const uint64_t min_p = count_of(o, "minProperties", ptr).value_or(0);
  const std::optional<uint64_t> max_p = count_of(o, "maxProperties", ptr);
  if (max_p && min_p > *max_p) throw EmptySchema{{"minProperties > maxProperties at " + show(ptr)}};

  // propertyNames: a regex over whole key texts; listed names it refuses cannot occur.
  std::optional<std::string> key_re;
  bool no_keys = false;
  if (auto pn = o["propertyNames"]; !pn.error()) {
    dom::element e = pn.value_unsafe();
    if (e.type() == dom::element_type::BOOL) {
      no_keys = !e.get_bool().value_unsafe();
    } else {
      key_re = property_names_regex(e, ptr + "/propertyNames");
      no_keys = !key_re;
    }
  }
  std::optional<CompiledGrammar> key_check;
  if (key_re)
    key_check = CompiledGrammar::compile_kbnf(
        "start ::= " + kbnf_regex("\"" + *key_re + "\"") + ";", nullptr);
  auto name_ok = [&](const std::string& name) {
    if (no_keys) return false;
    if (!key_check) return true;
    Matcher m(*key_check);
    return m.accept_bytes(json_quote(name)) && m.is_complete();
  };

  // Listed properties, plus names that `required` / dependentRequired mention without listing:
  // those are extra keys that must (or may) be present, valued by additionalProperties.
  std::vector<ObjectMember> props;
  std::map<std::string, size_t> index;
  auto extra_value = [&]() {
    return shape.additional_pointer.empty()
               ? any_expr(Mode::json, "")
               : rule_for(shape.additional_pointer, Mode::json, "", "additional");
  };
  auto add_prop = [&](const std::string& name, const std::string& value, bool required) {
    index[name] = props.size();
    props.push_back({name, value, required});
  };
  std::vector<std::string> forbidden;  // listed with the schema `false`: never present
  for (const auto& p : shape.properties) {
    dom::element ps = resolve(p.pointer, "property");
    if (ps.type() == dom::element_type::BOOL && !ps.get_bool().value_unsafe()) {
      if (p.required)
        throw EmptySchema{{"no object satisfies: `" + p.name +
                           "` is required and its schema is "
                           "false at " +
                           show(p.pointer)}};
      forbidden.push_back(p.name);
      continue;
    }
    if (!name_ok(p.name)) {
      if (p.required)
        throw EmptySchema{{"no object satisfies `required` `" + p.name +
                           "` and `propertyNames` at " + show(ptr)}};
      continue;
    }
    add_prop(p.name, "", p.required);
  }
  auto mention = [&](const std::string& name, bool required, const std::string& where) {
    auto it = index.find(name);
    if (it != index.end()) {
      props[it->second].required |= required;
      return true;
    }
    if (!shape.additional || !name_ok(name)) {
      if (required)
        throw EmptySchema{{"no object satisfies: `" + name +
                           "` is required but no such key is allowed at " + where}};
      return false;
    }
    add_prop(name, "", required);
    return true;
  };
  for (const auto& name : unlisted_required) mention(name, true, ptr + "/required");
  // dependentRequired (draft 2019-09) and the array form of draft-7 `dependencies`.
  std::vector<std::pair<size_t, std::vector<size_t>>> deps;
  std::vector<size_t> banned;  // listed names a dependency makes impossible
  for (const char* kw : {"dependentRequired", "dependencies"}) {
    auto d = o[kw];
    if (d.error()) continue;
    dom::object dobj;
    if (d.get_object().get(dobj))
      throw SchemaError{"`" + std::string(kw) + "` must be an object at " + ptr + "/" + kw};
    for (auto f : dobj) {
      const std::string where = ptr + "/" + kw + "/" + pointer_token(f.key);
      dom::array arr;
      if (f.value.get_array().get(arr)) {
        unsupported("`" + std::string(kw) + "` with a schema value (dependentSchemas)", where);
        continue;
      }
      const bool trigger = mention(std::string(f.key), false, where);
      std::vector<size_t> needs;
      bool possible = true;
      for (auto e : arr) {
        std::string_view n;
        if (e.get_string().get(n))
          throw SchemaError{"dependency names must be strings at " + where};
        if (mention(std::string(n), false, where)) {
          needs.push_back(index[std::string(n)]);
        } else {
          possible = false;
        }
      }
      if (!trigger) continue;
      if (!possible) {
        banned.push_back(index[std::string(f.key)]);
      } else {
        deps.emplace_back(index[std::string(f.key)], std::move(needs));
      }
    }
  }
  for (size_t b : banned)
    if (props[b].required)
      throw EmptySchema{
          {"no object satisfies the dependencies of `" + props[b].name + "` at " + show(ptr)}};
  // Value rules (listed ones by their schema, the others by additionalProperties).
  {
    std::map<std::string_view, const SchemaProperty*> listed;
    for (const auto& sp : shape.properties) listed.emplace(sp.name, &sp);
    for (size_t i = 0; i < props.size(); ++i) {
      auto& p = props[i];
      auto it = listed.find(p.name);
      try {
        p.value = it != listed.end() ? rule_for(it->second->pointer, Mode::json, "", p.name)
                                     : extra_value();
      } catch (const EmptySchema& empty) {
        // No value satisfies the property's schema (`not: {}`, an empty allOf): never present.
        if (p.required)
          throw EmptySchema{
              {"no object satisfies: `" + p.name + "` is required and " + empty.message}};
        banned.push_back(i);
        forbidden.push_back(p.name);
      }
    }
  }

  // Extra members: patternProperties keys, then other keys (additionalProperties).
  std::vector<std::string> extra_alts;
  std::vector<std::string> pattern_raw;  // each pattern over raw text, for the exclusion
  bool patterns_exact = true;
  pattern_members(*this, o, ptr, key_re.has_value(), extra_alts, pattern_raw, patterns_exact);
  if (shape.additional && !no_keys) {
    std::vector<std::string> names = forbidden;
    for (const auto& p : props) names.push_back(p.name);
    const std::string key = additional_key(*this, ptr, key_re, names, pattern_raw, patterns_exact);
    extra_alts.push_back(key + " " + colon() + " " + extra_value());
  }
  const std::string extra = extra_alts.empty() ? ""
                            : extra_alts.size() == 1
                                ? extra_alts[0]
                                : add_rule(hint_for(ptr) + "_extra", join_alts(extra_alts));

  MemberLayout layout{std::move(props), std::move(deps), {}, extra, min_p, max_p};
  layout.banned.assign(layout.props.size(), 0);
  for (size_t b : banned) layout.banned[b] = 1;
  return members_expr(*this, layout, ptr);
}

}  // namespace ai00::internal::grammar
