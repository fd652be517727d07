// Persistence and branching: the whole village in one bundle file, restored and checked, and
// one NPC's dialogue branched to try two answers, keeping the likelier one.
#pragma once

#include <ai00/ai00.hpp>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "village.hpp"

namespace village {

// Saves every NPC's State under its name in one file.
inline void save_village(const std::vector<Npc>& npcs, const std::string& path) {
  ai00::BundleEntries entries;
  for (const Npc& n : npcs) entries.emplace_back(n.name, &n.state);
  ai00::save_state_bundle_file(entries, path);
}

// The tokens a State produces in a short raw turn (its own RNG: the sampler state is part of
// what a bundle restores).
inline std::vector<uint32_t> next_tokens(const ai00::Model& model, ai00::State& state) {
  ai00::GenerateOptions o;
  o.max_tokens = 8;
  ai00::Generator g = ai00::Generator::raw(model, state, "\n\nThe stranger returns at dusk.", o);
  g.run();
  return g.tokens();
}

// Loads the bundle and checks that every restored NPC continues exactly like a clone of the live
// one (same next tokens). Returns how many matched; the live States are left untouched.
inline size_t restore_and_check(const std::vector<Npc>& npcs, const ai00::Model& model,
                                const std::string& path) {
  ai00::StateBundle bundle = ai00::StateBundle::open_file(path);
  size_t matched = 0;
  for (const Npc& n : npcs) {
    ai00::State restored = bundle.load(model, bundle.find(n.name));
    ai00::State live = n.state.clone();
    const std::vector<uint32_t> a = next_tokens(model, restored);
    const std::vector<uint32_t> b = next_tokens(model, live);
    if (a == b && !a.empty()) {
      ++matched;
    } else {
      std::fprintf(stderr, "restore: %s continues differently\n", n.name.c_str());
    }
  }
  return matched;
}

struct BranchResult {
  std::string answer[2];
  double mean_logprob[2] = {0, 0};
  int kept = 0;
  bool valid[2] = {false, false};
};

// The player asks NPC `npc` a follow-up; two clones of its State answer with different dice,
// option scoring rates both answers from the State before the question, and the NPC keeps the
// branch whose answer the model finds likelier (mean log-probability per token).
inline BranchResult branch_and_pick(Npc& npc, const ai00::Model& model, ai00::ChatTemplate& tmpl,
                                    const ai00::GenerateOptions& options) {
  const std::string line = "Will you help me find the missing sheep?";
  const std::vector<ai00::Message> turn = {ai00::Message::text("user", line)};
  ai00::State branch[2] = {npc.state.clone(), npc.state.clone()};
  BranchResult r;
  {
    ai00::GenerateOptions o = options;
    o.prefix_cache.reset();  // a continued State is not pristine: the cache would not apply
    ai00::Batch batch(model);
    o.seed = 7;
    ai00::Generator a = ai00::Generator::chat(model, branch[0], tmpl, turn, render_for(npc), o);
    o.seed = 8;
    ai00::Generator b = ai00::Generator::chat(model, branch[1], tmpl, turn, render_for(npc), o);
    batch.add(a);
    batch.add(b);
    while (!a.finished() || !b.finished()) batch.step(16);
    batch.remove(a);
    batch.remove(b);
    r.answer[0] = a.message().content;
    r.answer[1] = b.message().content;
  }
  // Score both answers as continuations of the rendered question (the same text the turns
  // prefilled), from the State before it.
  ai00::RenderOptions ro = render_for(npc);
  ro.prepend_token0 = 0;
  const std::vector<uint32_t> context = model.tokenize(tmpl.render(turn, ro).prompt);
  const auto scores = ai00::score_texts(npc.state, {r.answer[0], r.answer[1]}, context);
  for (int k = 0; k < 2; ++k) {
    r.mean_logprob[k] = scores[k].mean_logprob;
    r.valid[k] = parse_reply(r.answer[k]).has_value();
  }
  r.kept = r.mean_logprob[1] > r.mean_logprob[0] ? 1 : 0;
  npc.state = std::move(branch[r.kept]);
  npc.answer = r.answer[r.kept];
  return r;
}

}  // namespace village
