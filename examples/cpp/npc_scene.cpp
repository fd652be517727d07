// An NPC scene with the header-only C++ API: three characters share ONE Model, each keeps its
// own State (a few hundred KB here, fixed size whatever the dialogue length), saved to disk
// after every line and restored for the next; then the dialogue is branched by cloning a State
// and two alternative continuations are played from the same point.
//
//   npc_scene [MODEL] [SAVE_DIR]
//
// MODEL defaults to the 512-token test model under $AI00_SHARED_DIR (or the fixture folder
// compiled in). Exits non-zero if a restored State does not continue exactly like the live one.
#include <ai00/ai00.hpp>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

struct Npc {
  std::string name;
  std::string persona;
  std::string save_file;  // where this character's State lives between lines
};

// One line of dialogue: the character hears `heard` and answers; the State advances.
std::string speak(const ai00::Model& model, ai00::State& state, const ai00::ChatTemplate& tmpl,
                  const Npc& npc, const std::string& heard, uint64_t seed) {
  std::vector<ai00::Message> turn;
  if (!npc.persona.empty()) turn.push_back(ai00::Message::text("system", npc.persona));
  turn.push_back(ai00::Message::text("user", heard));
  ai00::GenerateOptions options;
  options.max_tokens = 24;
  options.seed = seed;
  ai00::RenderOptions render;
  render.assistant_name = npc.name;
  ai00::Generator gen = ai00::Generator::chat(model, state, tmpl, turn, render, options);
  gen.run();
  return gen.message().content;
}

}  // namespace

int main(int argc, char** argv) {
  const char* env = std::getenv("AI00_SHARED_DIR");
  std::string shared = (env && *env) ? env : AI00_DEFAULT_SHARED_DIR;
  std::string model_path = argc > 1 ? argv[1] : shared + "/models/rand-rwkv7-c128-l3-v512-F16.gguf";
  const char* tmp = std::getenv("TMPDIR");
  std::string dir = argc > 2 ? argv[2] : std::string(tmp && *tmp ? tmp : "/tmp");
  try {
    ai00::ModelOptions mo;
    mo.n_threads = 2;
    ai00::Model model = ai00::Model::load(model_path, mo);  // shared by every character
    ai00::ChatTemplate tmpl("goose");
    std::vector<Npc> npcs = {
        {"Mira", "You are Mira, the innkeeper of the Gilded Goose. Warm, nosy.",
         dir + "/npc_mira.state"},
        {"Bram", "You are Bram, a retired knight. Gruff, honest.", dir + "/npc_bram.state"},
        {"Tess", "You are Tess, a traveling bard. Cheerful, rhymes a lot.",
         dir + "/npc_tess.state"}};

    // Act 1: each character introduces itself; its State goes to disk.
    std::string last = "A stranger walks into the inn. Greet them.";
    for (size_t i = 0; i < npcs.size(); ++i) {
      ai00::State state(model);
      last = speak(model, state, tmpl, npcs[i], last, 100 + i);
      std::printf("%s: %s\n", npcs[i].name.c_str(), last.c_str());
      state.save_file(npcs[i].save_file);
    }
    std::printf("(each State: %zu bytes on disk)\n", ai00::State(model).save().size());

    // Act 2: restored from disk, each answers the previous speaker (no persona re-sent: it is
    // already in the State).
    for (size_t i = 0; i < npcs.size(); ++i) {
      ai00::State state = ai00::State::load_file(model, npcs[i].save_file);
      Npc npc = npcs[i];
      npc.persona.clear();
      last = speak(model, state, tmpl, npc, npcs[(i + 2) % 3].name + " says: " + last, 200 + i);
      std::printf("%s: %s\n", npcs[i].name.c_str(), last.c_str());
      state.save_file(npcs[i].save_file);
    }

    // Act 3: branch Mira's dialogue. A clone continues independently of the original.
    ai00::State mira = ai00::State::load_file(model, npcs[0].save_file);
    ai00::State branch = mira.clone();
    Npc quiet = npcs[0];
    quiet.persona.clear();
    std::string yes = speak(model, mira, tmpl, quiet, "The stranger pays for a room.", 300);
    std::string no = speak(model, branch, tmpl, quiet, "The stranger leaves without a word.", 300);
    std::printf("Mira (branch A, a room is paid): %s\n", yes.c_str());
    std::printf("Mira (branch B, the stranger leaves): %s\n", no.c_str());

    // A State restored from disk continues exactly like a clone of the live one.
    ai00::State a = ai00::State::load_file(model, npcs[1].save_file);
    ai00::State b = a.clone();
    Npc bram = npcs[1];
    bram.persona.clear();
    std::string la = speak(model, a, tmpl, bram, "Any news from the capital?", 400);
    std::string lb = speak(model, b, tmpl, bram, "Any news from the capital?", 400);
    for (const Npc& n : npcs) std::remove(n.save_file.c_str());
    if (la != lb) {
      std::fprintf(stderr, "npc_scene: restored and cloned States diverged\n");
      return 1;
    }
    std::printf("restore + clone determinism: ok\n");
    return 0;
  } catch (const ai00::Error& e) {
    std::fprintf(stderr, "npc_scene: %s (status %d)\n", e.what(), static_cast<int>(e.status()));
    return 1;
  }
}
