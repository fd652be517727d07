// The installed header-only C++ API: one raw turn through ai00::Generator.
// argv[1] is the shared fixture folder ($AI00_SHARED_DIR overrides it).
#include <ai00/ai00.hpp>
#include <cstdio>
#include <cstdlib>
#include <string>

int main(int argc, char** argv) {
  const char* env = std::getenv("AI00_SHARED_DIR");
  std::string shared = (env && *env) ? env : (argc > 1 ? argv[1] : "../shared");
  try {
    ai00::Model model = ai00::Model::load(shared + "/models/rand-rwkv7-c128-l3-v512-F16.gguf");
    ai00::State state(model);
    ai00::GenerateOptions options;
    options.max_tokens = 8;
    options.seed = 1;
    ai00::Generator gen = ai00::Generator::raw(model, state, "Hello", options);
    gen.run();
    std::printf("installed C++ API: %zu tokens generated\n", gen.tokens().size());
    return gen.tokens().empty() ? 1 : 0;
  } catch (const ai00::Error& e) {
    std::fprintf(stderr, "package_test_cpp: %s\n", e.what());
    return 1;
  }
}
