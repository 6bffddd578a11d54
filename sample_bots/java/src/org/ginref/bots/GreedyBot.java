package org.ginref.bots;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.ginref.ginrummy.v1.Action;
import org.ginref.ginrummy.v1.Action.KindCase;
import org.ginref.ginrummy.v1.DecisionRequest;
import org.ginref.ginrummy.v1.Observation;
import org.ginref.ginrummy.v1.Phase;

/**
 * The greedy bot in Java: the greedy v1 specification of sample_bots/greedy_bot.py (its
 * docstring), rule for rule and tie-break for tie-break. Run: sample_bots/java/out/greedy_bot
 */
public final class GreedyBot {
  private GreedyBot() {}

  private static List<Integer> without(List<Integer> cards, int card) {
    List<Integer> out = new ArrayList<>(cards);
    out.remove(Integer.valueOf(card));
    return out;
  }

  /** The best card of candidates: least dw(hand - c), then the larger value, larger index. */
  static int bestCard(List<Integer> hand, Iterable<Integer> candidates) {
    int best = -1;
    int bestDw = Integer.MAX_VALUE;
    for (int c : candidates) {
      int dw = Cards.minDeadwood(without(hand, c));
      if (best < 0 || dw < bestDw
          || (dw == bestDw && (Cards.value(c) > Cards.value(best)
              || (Cards.value(c) == Cards.value(best) && c > best)))) {
        best = c;
        bestDw = dw;
      }
    }
    return best;
  }

  /** Rule 7: whether taking the top discard t strictly lowers the best reachable deadwood. */
  static boolean takesDiscard(List<Integer> hand, int t) {
    List<Integer> withT = new ArrayList<>(hand);
    withT.add(t);
    int best = Integer.MAX_VALUE;
    for (int d : hand) {
      best = Math.min(best, Cards.minDeadwood(without(withT, d)));
    }
    return best < Cards.minDeadwood(hand);
  }

  /** The greedy v1 choice for a request; public, for a bot of your own to start from. */
  public static Action decide(DecisionRequest request) {
    List<Action> legal = request.getLegalActionsList();
    Observation obs = request.getObservation();
    Map<KindCase, List<Action>> byKind = new EnumMap<>(KindCase.class);
    for (Action a : legal) {
      byKind.computeIfAbsent(a.getKindCase(), k -> new ArrayList<>()).add(a);
    }
    List<Integer> hand = new ArrayList<>();
    for (String card : obs.getHandList()) {
      hand.add(Cards.index(card));
    }

    if (byKind.containsKey(KindCase.CHOOSE_DEAL)) { // rule 1
      for (Action a : byKind.get(KindCase.CHOOSE_DEAL)) {
        if (!a.getChooseDeal().getDeal()) {
          return a;
        }
      }
      return byKind.get(KindCase.CHOOSE_DEAL).get(0);
    }
    if (byKind.containsKey(KindCase.DEFENDER_PLAY)) { // rule 2
      return byKind.get(KindCase.DEFENDER_PLAY).get(0);
    }
    if (byKind.containsKey(KindCase.BIG_GIN)) { // rule 3
      return byKind.get(KindCase.BIG_GIN).get(0);
    }
    if (byKind.containsKey(KindCase.KNOCK)) { // rule 4
      Map<Integer, Action> knocks = new LinkedHashMap<>();
      for (Action a : byKind.get(KindCase.KNOCK)) {
        knocks.putIfAbsent(Cards.index(a.getKnock().getDiscard()), a);
      }
      return knocks.get(bestCard(hand, knocks.keySet()));
    }
    if (byKind.containsKey(KindCase.DISCARD)) { // rule 5
      Map<Integer, Action> discards = new LinkedHashMap<>();
      for (Action a : byKind.get(KindCase.DISCARD)) {
        discards.putIfAbsent(Cards.index(a.getDiscard().getCard()), a);
      }
      return discards.get(bestCard(hand, discards.keySet()));
    }
    if (obs.getPhase() == Phase.PHASE_WALL && !byKind.containsKey(KindCase.DECLARE_DEAD)) {
      // rule 6
      if (byKind.containsKey(KindCase.DRAW_DISCARD)) {
        return byKind.get(KindCase.DRAW_DISCARD).get(0);
      }
      if (byKind.containsKey(KindCase.PASS_OFFER)) {
        return byKind.get(KindCase.PASS_OFFER).get(0);
      }
    }
    List<String> pile = obs.getDiscardPileList();
    if (byKind.containsKey(KindCase.DRAW_DISCARD) && !pile.isEmpty()
        && takesDiscard(hand, Cards.index(pile.get(pile.size() - 1)))) { // rule 7
      return byKind.get(KindCase.DRAW_DISCARD).get(0);
    }
    for (KindCase kind : new KindCase[] {KindCase.DRAW_STOCK, KindCase.PASS_OFFER,
        KindCase.DECLARE_DEAD}) {
      if (byKind.containsKey(kind)) {
        return byKind.get(kind).get(0);
      }
    }
    return legal.get(0); // rule 8
  }

  public static void main(String[] args) throws InterruptedException {
    System.exit(BotClient.run(GreedyBot::decide, "greedy-bot-java", "1.0.0"));
  }
}
