// npc_village: 16 NPCs of a game village on ONE model, driven by a 60 frames-per-second loop.
//
// Every NPC has a persona after a shared lore prompt (village.hpp), answers the player as a JSON
// object constrained by a JSON Schema, and runs as a member of one ai00::Batch stepped once per
// frame within a time budget (frame_loop.hpp). The lore is prefilled once: later NPCs start from
// the prefix cache. At the end the village is saved to one bundle file, restored and checked,
// and one NPC's dialogue is branched to try two answers (persistence.hpp).
//
//   npc_village [--model FILE] [--vocab FILE] [--npcs N] [--frames N] [--frame-budget-us US]
//               [--tokens-per-frame N] [--threads N] [--out DIR] [--verbose]
//
// Exit status 0 when every NPC answered with a valid reply and the restored village continues
// exactly like the live one; the summary lines are stable for scripts (check_npc_village.cmake).
#include <ai00/ai00.hpp>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "frame_loop.hpp"
#include "json_reply.hpp"
#include "persistence.hpp"
#include "village.hpp"

namespace {

struct Flags {
  std::string model, vocab, out;
  size_t npcs = 16;
  int threads = 1;
  village::LoopConfig loop;
};

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr,
               "npc_village: %s\nusage: npc_village [--model FILE] [--vocab FILE] [--npcs N] "
               "[--frames N] [--frame-budget-us US] [--tokens-per-frame N] [--threads N] "
               "[--out DIR] [--verbose]\n",
               why);
  std::exit(2);
}

Flags parse_flags(int argc, char** argv) {
  Flags f;
  const char* env = std::getenv("AI00_SHARED_DIR");
  const std::string shared = (env && *env) ? env : AI00_DEFAULT_SHARED_DIR;
  f.model = shared + "/models/tiny-rwkv-7v0-834K-FP32.bin";  // README's chat model
  const char* tmp = std::getenv("TMPDIR");
  f.out = (tmp && *tmp) ? tmp : "/tmp";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(("missing value after " + a).c_str());
      return argv[++i];
    };
    auto number = [&]() { return std::strtoull(value().c_str(), nullptr, 10); };
    if (a == "--model")
      f.model = value();
    else if (a == "--vocab")
      f.vocab = value();
    else if (a == "--out")
      f.out = value();
    else if (a == "--npcs")
      f.npcs = number();
    else if (a == "--threads")
      f.threads = static_cast<int>(number());
    else if (a == "--frames")
      f.loop.frames = static_cast<int>(number());
    else if (a == "--frame-budget-us")
      f.loop.frame_budget_us = number();
    else if (a == "--tokens-per-frame")
      f.loop.tokens_per_frame = static_cast<uint32_t>(number());
    else if (a == "--verbose")
      f.loop.verbose = true;
    else
      usage(("unknown flag " + a).c_str());
  }
  if (f.npcs < 1 || f.npcs > village::personas().size()) usage("--npcs must be 1..16");
  if (f.threads < 1) usage("--threads must be >= 1");
  // The bundle is written at the end of the run: make the folder now, so a typo in --out fails
  // before the village runs, not after.
  std::error_code ec;
  std::filesystem::create_directories(f.out, ec);
  if (ec) usage(("cannot create the --out folder '" + f.out + "': " + ec.message()).c_str());
  return f;
}

}  // namespace

int main(int argc, char** argv) {
  const Flags flags = parse_flags(argc, argv);
  try {
    ai00::ModelOptions mo;
    mo.n_threads = flags.threads;
    mo.vocab_path = flags.vocab;
    const ai00::Model model = ai00::Model::load(flags.model, mo);  // shared by every NPC
    ai00::ChatTemplate tmpl("goose");
    std::printf("npc_village: model %s, isa %s, %d thread(s), %zu NPCs\n", flags.model.c_str(),
                model.isa().c_str(), flags.threads, flags.npcs);

    // Options every NPC's turn shares: one prefix cache, one compiled reply grammar.
    ai00::GenerateOptions options;
    options.max_tokens = 160;  // a reply is at most ~100 tokens (maxLength 48 in the schema)
    options.grammar = village::reply_grammar(model);
    ai00::PrefixCache cache;
    options.prefix_cache = cache;
    // Each NPC's first turn stores three States (after its persona, after the player's line, at
    // the end of its prompt) and the first one the lore's. Setting their memory aside now keeps
    // fresh pages out of the frames: a store into new memory faults its megabytes in mid-frame.
    const size_t reserved = cache.reserve(model, 3 * flags.npcs + 1);

    std::vector<village::Npc> npcs;
    npcs.reserve(flags.npcs);  // the Batch keeps pointers to the NPCs' Generators
    for (size_t i = 0; i < flags.npcs; ++i) npcs.emplace_back(model, village::personas()[i]);

    // The game: 60 frames per second, each giving the NPCs a time and token budget.
    village::LoopStats stats;
    const size_t answered = village::run_frames(npcs, model, tmpl, options, flags.loop, stats);

    size_t valid = 0;
    for (const village::Npc& n : npcs) {
      std::string why;
      const bool ok = village::parse_reply(n.answer, &why).has_value();
      valid += ok ? 1 : 0;
      std::printf("answer %-13s frames %3d-%3d: %s%s%s\n", n.name.c_str(), n.joined_frame,
                  n.finished_frame, n.answer.c_str(), ok ? "" : "  INVALID: ", why.c_str());
    }

    const double seconds = stats.busy_us / 1e6;
    std::printf("frames: %d run, %zu with work, %d cut by the budget\n", stats.frames_run,
                stats.step_us.size(), stats.time_limited);
    std::printf("frame time us: p50 %.0f p90 %.0f p99 %.0f max %.0f (budget %llu)\n",
                village::percentile(stats.step_us, 50), village::percentile(stats.step_us, 90),
                village::percentile(stats.step_us, 99), village::percentile(stats.step_us, 100),
                static_cast<unsigned long long>(flags.loop.frame_budget_us));
    const auto over = std::count_if(stats.step_us.begin(), stats.step_us.end(), [&](double us) {
      return us > static_cast<double>(flags.loop.frame_budget_us);
    });
    std::printf("frames over the budget: %lld of %zu\n", static_cast<long long>(over),
                stats.step_us.size());
    std::printf("slowest frame: %d (%.0f us)\n", stats.slowest_frame, stats.slowest_us);
    std::printf("tokens: %llu sampled, %llu prompt tokens prefilled, %.1f tokens/s\n",
                static_cast<unsigned long long>(stats.tokens),
                static_cast<unsigned long long>(stats.prompt_tokens),
                seconds > 0 ? static_cast<double>(stats.tokens) / seconds : 0.0);
    const ai00_prefix_cache_stats cs = cache.stats();
    std::printf(
        "prefix cache: hits %llu misses %llu hit_tokens %llu entries %llu bytes %llu "
        "(%zu entries reserved at load, %llu spare bytes left)\n",
        static_cast<unsigned long long>(cs.hits), static_cast<unsigned long long>(cs.misses),
        static_cast<unsigned long long>(cs.hit_tokens), static_cast<unsigned long long>(cs.entries),
        static_cast<unsigned long long>(cs.bytes), reserved,
        static_cast<unsigned long long>(cs.spare_bytes));
    std::printf("state: %llu bytes per NPC in memory, %zu bytes saved\n",
                static_cast<unsigned long long>(model.info().state_bytes),
                npcs[0].state.save().size());

    // Branch one NPC: two answers to a follow-up, keep the likelier.
    const village::BranchResult br = village::branch_and_pick(npcs[0], model, tmpl, options);
    for (int k = 0; k < 2; ++k)
      std::printf("branch %s %c: mean logprob %.3f%s %s\n", npcs[0].name.c_str(), 'A' + k,
                  br.mean_logprob[k], br.kept == k ? " (kept)" : "", br.answer[k].c_str());

    // Persistence: the whole village in one file, restored and checked.
    const std::string path = flags.out + "/village.bundle";
    village::save_village(npcs, path);
    const size_t matched = village::restore_and_check(npcs, model, path);
    std::FILE* f = std::fopen(path.c_str(), "rb");
    long size = -1;
    if (f != nullptr) {
      std::fseek(f, 0, SEEK_END);
      size = std::ftell(f);
      std::fclose(f);
    }
    std::printf("bundle: %s, %ld bytes, %zu NPCs\n", path.c_str(), size, npcs.size());

    std::printf("answers: %zu/%zu answered, %zu/%zu valid JSON\n", answered, npcs.size(), valid,
                npcs.size());
    std::printf("restore: %zu/%zu continue identically\n", matched, npcs.size());
    const bool ok = answered == npcs.size() && valid == npcs.size() && matched == npcs.size() &&
                    br.valid[0] && br.valid[1];
    return ok ? 0 : 1;
  } catch (const ai00::Error& e) {
    std::fprintf(stderr, "npc_village: %s (status %d)\n", e.what(), static_cast<int>(e.status()));
    return 1;
  }
}
