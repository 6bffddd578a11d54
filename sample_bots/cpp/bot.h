// Shared code of the C++ sample bots: the launch contract and Play stream (run_bot), card
// arithmetic (card_index, card_value, min_deadwood) and the SplitMix64 generator.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ginrummy/v1/ginrummy.pb.h"

namespace ginref {

namespace pb = ::ginrummy::v1;

// A bot's policy: the action answering a request (normally an entry of legal_actions).
using Decide = std::function<pb::Action(const pb::DecisionRequest&)>;

// Connects with GINREF_ADDRESS / GINREF_TOKEN (over TLS with GINREF_CA_CERT, and the other
// variables of a hosted referee: docs/writing-a-bot.md), plays until the referee ends the stream
// and returns the process exit code: 0 stream ended OK (no more matches); 1 the connection
// failed, an error status or decide threw; 2 the launch environment is missing or malformed; 3
// the referee refused the bot (its token unknown or revoked, ...). With GINREF_MATCHES=n it
// plays on n streams at once, calling decide one request at a time, and returns the worst code.
// On stderr it says what happens, one line a step, in the words of every language's client
// (docs/writing-a-bot.md §9).
int run_bot(const Decide& decide, const std::string& name, const std::string& version);

// Card index (suit * 13 + rank, suits C D H S, ranks A..K) of a wire card such as "TD";
// throws std::invalid_argument on anything else.
int card_index(const std::string& text);

// Deadwood value of a card index: A = 1, 2..10 = pips, J Q K = 10.
int card_value(int card);

// Exact minimum deadwood of a collection of distinct card indices.
int min_deadwood(const std::vector<int>& cards);

// SplitMix64: returns the next output and advances the state.
uint64_t splitmix64(uint64_t& state);

}  // namespace ginref
