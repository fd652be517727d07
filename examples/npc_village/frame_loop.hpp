// The game's frame loop: the player greets one NPC after another, every NPC with a turn in
// progress is a member of one ai00::Batch, and each frame advances the batch within a time
// budget and a token budget, then handles the events (text as it streams, finished turns).
#pragma once

#include <ai00/ai00.hpp>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "village.hpp"

namespace village {

struct LoopConfig {
  int frames = 600;                 // 10 s at 60 frames per second
  uint64_t frame_budget_us = 4000;  // the share of a 16.7 ms frame given to the NPCs
  uint32_t tokens_per_frame = 4;    // per NPC and frame
  int stagger = 2;                  // frames between two greetings
  bool verbose = false;             // print every delta
};

struct LoopStats {
  std::vector<double> step_us;  // wall time of batch.step() per frame that had work
  uint64_t tokens = 0;          // sampled
  uint64_t prompt_tokens = 0;   // prefilled (after the prefix cache)
  double busy_us = 0;
  int frames_run = 0;
  int time_limited = 0;  // frames where the budget stopped the batch early
  int slowest_frame = -1;
  double slowest_us = 0;
};

inline double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t k = static_cast<size_t>(p / 100.0 * static_cast<double>(v.size() - 1) + 0.5);
  return v[std::min(k, v.size() - 1)];
}

// Starts NPC `npc`'s first turn and adds it to the batch.
inline void greet(Npc& npc, size_t index, ai00::Batch& batch, const ai00::Model& model,
                  const ai00::ChatTemplate& tmpl, const ai00::GenerateOptions& options, int frame) {
  ai00::GenerateOptions o = options;
  o.seed = 1000 + index;  // each NPC its own dice, reproducible
  npc.turn.emplace(ai00::Generator::chat(model, npc.state, tmpl,
                                         first_turn(npc, player_line(index)), render_for(npc), o));
  batch.add(*npc.turn);
  npc.joined_frame = frame;
}

// Runs the frame loop until every NPC has answered or `cfg.frames` frames have passed.
// Returns the number of NPCs that answered.
inline size_t run_frames(std::vector<Npc>& npcs, const ai00::Model& model,
                         const ai00::ChatTemplate& tmpl, const ai00::GenerateOptions& options,
                         const LoopConfig& cfg, LoopStats& stats) {
  using Clock = std::chrono::steady_clock;
  ai00::Batch batch(model);
  size_t greeted = 0, answered = 0;
  bool lore_cached = false;  // true once the first NPC has consumed its prompt
  for (int frame = 0; frame < cfg.frames && answered < npcs.size(); ++frame) {
    // Game logic: the player greets the next NPC every `stagger` frames. The others wait for
    // the first NPC's prompt to be consumed, so that they all find the lore in the cache.
    const bool due = frame >= static_cast<int>(greeted) * cfg.stagger;
    if (greeted < npcs.size() && due && (greeted == 0 || lore_cached)) {
      greet(npcs[greeted], greeted, batch, model, tmpl, options, frame);
      ++greeted;
    }

    const auto t0 = Clock::now();
    ai00::BatchStepSummary summary;
    std::vector<ai00::BatchEvent> events =
        batch.step(cfg.tokens_per_frame, cfg.frame_budget_us, &summary);
    const double us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
    ++stats.frames_run;
    if (summary.steps > 0) {
      stats.step_us.push_back(us);
      stats.busy_us += us;
    }
    if (us > stats.slowest_us) {
      stats.slowest_us = us;
      stats.slowest_frame = frame;
    }
    stats.tokens += summary.tokens_sampled;
    stats.prompt_tokens += summary.prompt_tokens;
    if (summary.time_limited) ++stats.time_limited;
    if (summary.tokens_sampled > 0) lore_cached = true;

    for (const ai00::BatchEvent& e : events) {
      Npc* npc = nullptr;
      for (Npc& n : npcs)
        if (n.turn && &*n.turn == e.generator) npc = &n;
      if (npc == nullptr) continue;
      if (e.kind == ai00::BatchEventKind::delta) {
        if (cfg.verbose && !e.delta.text.empty())
          std::printf("  [frame %d] %s: +%s\n", frame, npc->name.c_str(), e.delta.text.c_str());
        continue;
      }
      // finished or error: the turn is over; its State holds the prompt and the reply.
      if (e.kind == ai00::BatchEventKind::error)
        std::fprintf(stderr, "%s: error: %s\n", npc->name.c_str(), e.error.c_str());
      npc->answer = npc->turn->message().content;
      npc->finished_frame = frame;
      batch.remove(*npc->turn);
      npc->turn.reset();  // frees the Generator; the State is ours again
      ++answered;
    }
  }
  for (Npc& n : npcs) {  // frames ran out: abandon unfinished turns
    if (!n.turn) continue;
    batch.remove(*n.turn);
    n.turn.reset();
  }
  return answered;
}

}  // namespace village
