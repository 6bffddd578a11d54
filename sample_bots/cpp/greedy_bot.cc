// The greedy bot in C++: the greedy v1 specification of sample_bots/greedy_bot.py (its
// docstring), rule for rule and tie-break for tie-break. Run: sample_bots/cpp/out/greedy_bot
#include <algorithm>
#include <climits>
#include <map>
#include <string>
#include <vector>

#include "bot.h"

namespace {

using ginref::card_index;
using ginref::card_value;
using ginref::min_deadwood;
namespace pb = ginref::pb;

std::vector<int> without(const std::vector<int>& cards, int card) {
  std::vector<int> out;
  for (int c : cards) if (c != card) out.push_back(c);
  return out;
}

// The best card of candidates: least dw(hand - c), then the larger value, then larger index.
int best_card(const std::vector<int>& hand, const std::vector<int>& candidates) {
  int best = -1, best_dw = INT_MAX;
  for (int c : candidates) {
    const int dw = min_deadwood(without(hand, c));
    if (best < 0 || dw < best_dw ||
        (dw == best_dw && (card_value(c) > card_value(best) ||
                           (card_value(c) == card_value(best) && c > best)))) {
      best = c;
      best_dw = dw;
    }
  }
  return best;
}

// Rule 7: whether taking the top discard t strictly lowers the best reachable deadwood.
bool takes_discard(const std::vector<int>& hand, int t) {
  std::vector<int> with_t = hand;
  with_t.push_back(t);
  int best = INT_MAX;
  for (int d : hand) best = std::min(best, min_deadwood(without(with_t, d)));
  return best < min_deadwood(hand);
}

pb::Action decide(const pb::DecisionRequest& request) {
  const auto& legal = request.legal_actions();
  const pb::Observation& obs = request.observation();
  std::map<pb::Action::KindCase, std::vector<const pb::Action*>> by_kind;
  for (const pb::Action& action : legal) by_kind[action.kind_case()].push_back(&action);
  auto has = [&](pb::Action::KindCase kind) { return by_kind.count(kind) > 0; };
  auto first = [&](pb::Action::KindCase kind) { return *by_kind[kind].front(); };
  std::vector<int> hand;
  for (const std::string& card : obs.hand()) hand.push_back(card_index(card));

  if (has(pb::Action::kChooseDeal)) {  // rule 1
    for (const pb::Action* a : by_kind[pb::Action::kChooseDeal])
      if (!a->choose_deal().deal()) return *a;
    return first(pb::Action::kChooseDeal);
  }
  if (has(pb::Action::kDefenderPlay)) return first(pb::Action::kDefenderPlay);  // rule 2
  if (has(pb::Action::kBigGin)) return first(pb::Action::kBigGin);              // rule 3
  if (has(pb::Action::kKnock)) {                                                // rule 4
    std::map<int, const pb::Action*> knocks;
    std::vector<int> cards;
    for (const pb::Action* a : by_kind[pb::Action::kKnock]) {
      const int c = card_index(a->knock().discard());
      if (!knocks.count(c)) cards.push_back(c);
      knocks.emplace(c, a);
    }
    return *knocks[best_card(hand, cards)];
  }
  if (has(pb::Action::kDiscard)) {  // rule 5
    std::map<int, const pb::Action*> discards;
    std::vector<int> cards;
    for (const pb::Action* a : by_kind[pb::Action::kDiscard]) {
      const int c = card_index(a->discard().card());
      if (!discards.count(c)) cards.push_back(c);
      discards.emplace(c, a);
    }
    return *discards[best_card(hand, cards)];
  }
  if (obs.phase() == pb::PHASE_WALL && !has(pb::Action::kDeclareDead)) {  // rule 6
    if (has(pb::Action::kDrawDiscard)) return first(pb::Action::kDrawDiscard);
    if (has(pb::Action::kPassOffer)) return first(pb::Action::kPassOffer);
  }
  const auto& pile = obs.discard_pile();
  if (has(pb::Action::kDrawDiscard) && !pile.empty() &&  // rule 7
      takes_discard(hand, card_index(pile[pile.size() - 1]))) {
    return first(pb::Action::kDrawDiscard);
  }
  for (auto kind : {pb::Action::kDrawStock, pb::Action::kPassOffer, pb::Action::kDeclareDead})
    if (has(kind)) return first(kind);
  return legal[0];  // rule 8
}

}  // namespace

int main() { return ginref::run_bot(decide, "greedy-bot-cpp", "1.0.0"); }
