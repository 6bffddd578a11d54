// The random bot in C++: answers every request with a uniformly random entry of legal_actions,
// sent back unchanged. GINREF_BOT_SEED=<integer> makes its choices reproducible (SplitMix64, the
// same generator as the JavaScript, Go and Java random bots); otherwise it seeds itself from the
// operating system. Run: sample_bots/cpp/out/random_bot
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <random>
#include <string>

#include "bot.h"

int main() {
  uint64_t state;
  const char* text = std::getenv("GINREF_BOT_SEED");
  if (text && *text) {
    char* end = nullptr;
    state = static_cast<uint64_t>(std::strtoll(text, &end, 10));
    if (*end) {
      std::cerr << "random-bot-cpp: GINREF_BOT_SEED=\"" << text << "\": expected an integer"
                << std::endl;
      return 2;
    }
  } else {
    std::random_device device;
    state = (static_cast<uint64_t>(device()) << 32) | device();
  }
  auto decide = [&state](const ginref::pb::DecisionRequest& request) {
    const auto n = static_cast<uint64_t>(request.legal_actions_size());
    return request.legal_actions(static_cast<int>(ginref::splitmix64(state) % n));
  };
  return ginref::run_bot(decide, "random-bot-cpp", "1.0.0");
}
