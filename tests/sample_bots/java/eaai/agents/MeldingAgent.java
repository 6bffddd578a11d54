package agents;

import ginrummy.Card;
import ginrummy.GinRummyPlayer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A simple agent of the EAAI framework, for the tests of sample_bots/java's EaaiBridge: the Java
 * twin of tests/support/eaai_agents/melding_player.py. It draws the face-up card when the card
 * makes a meld, discards the card that leaves the least deadwood (the highest of equal ones),
 * and knocks as soon as it may, declaring runs before sets (the reverse of ginref's order, so
 * that a test sees its own order kept). It keeps its hand from startGame and its own reportDraw
 * and reportDiscard, comparing cards by identity as the framework does, and throws when what it
 * is told disagrees with what it holds: a wrong report ends the match with a fault.
 *
 * <p>Every call is one line on stderr, "eaai METHOD ARGS [-> ANSWER]", in the words of
 * tests/support/eaai_calls.py; melds are written "3S 4S 5S | 7C 7D 7H" ("[]": none).
 */
public class MeldingAgent implements GinRummyPlayer {
  private int playerNum;
  private final ArrayList<Card> cards = new ArrayList<>();
  private Card faceUp;
  private Card taken;
  private boolean opponentKnocked;

  private static void log(Object... words) {
    StringBuilder line = new StringBuilder("eaai");
    for (Object word : words) {
      line.append(' ').append(word == null ? "None" : word);
    }
    System.err.println(line);
  }

  private static String text(List<Card> cards) {
    List<String> names = new ArrayList<>();
    for (Card card : cards) {
      names.add(card.toString());
    }
    return String.join(" ", names);
  }

  private static String meldsText(List<? extends List<Card>> melds) {
    List<String> parts = new ArrayList<>();
    for (List<Card> meld : melds) {
      parts.add(text(meld));
    }
    return melds.isEmpty() ? "[]" : String.join(" | ", parts);
  }

  private static void check(boolean ok, String what) {
    if (!ok) {
      throw new IllegalStateException(what);
    }
  }

  /** ginref's card order (suits C D H S, then rank), in which the referee writes a meld. */
  private static int order(Card card) {
    return "CDHS".indexOf(card.toString().charAt(1)) * 13 + card.getRank();
  }

  private static int value(Card card) {
    return Math.min(card.getRank() + 1, 10);
  }

  private static boolean isSet(List<Card> meld) {
    return meld.get(0).getRank() == meld.get(1).getRank();
  }

  /** Every set and run in hand. */
  private static List<List<Card>> allMelds(List<Card> hand) {
    List<List<Card>> melds = new ArrayList<>();
    for (int rank = 0; rank < 13; rank++) {
      List<Card> same = new ArrayList<>();
      for (Card card : hand) {
        if (card.getRank() == rank) {
          same.add(card);
        }
      }
      if (same.size() >= 3) {
        melds.add(same);
      }
      if (same.size() == 4) {
        for (Card left : same) {
          List<Card> three = new ArrayList<>(same);
          three.remove(left);
          melds.add(three);
        }
      }
    }
    for (int suit = 0; suit < 4; suit++) {
      Card[] byRank = new Card[13];
      for (Card card : hand) {
        if (card.getSuit() == suit) {
          byRank[card.getRank()] = card;
        }
      }
      for (int low = 0; low < 11; low++) {
        List<Card> run = new ArrayList<>();
        for (int rank = low; rank < 13 && byRank[rank] != null; rank++) {
          run.add(byRank[rank]);
          if (run.size() >= 3) {
            melds.add(new ArrayList<>(run));
          }
        }
      }
    }
    return melds;
  }

  /** The melds of least deadwood in hand, and that deadwood. */
  private record Best(List<List<Card>> melds, int deadwood) {}

  private static Best best(List<Card> hand) {
    List<List<Card>> melds = allMelds(hand);
    int total = 0;
    for (Card card : hand) {
      total += value(card);
    }
    Best[] found = {new Best(List.of(), total)};
    search(melds, 0, new HashSet<>(), new ArrayList<>(), total, found);
    return found[0];
  }

  private static void search(List<List<Card>> melds, int from, Set<Card> used,
      List<List<Card>> chosen, int deadwood, Best[] found) {
    if (deadwood < found[0].deadwood()) {
      found[0] = new Best(new ArrayList<>(chosen), deadwood);
    }
    for (int i = from; i < melds.size(); i++) {
      List<Card> meld = melds.get(i);
      if (meld.stream().anyMatch(used::contains)) {
        continue;
      }
      used.addAll(meld);
      chosen.add(meld);
      int melded = meld.stream().mapToInt(MeldingAgent::value).sum();
      search(melds, i + 1, used, chosen, deadwood - melded, found);
      chosen.remove(chosen.size() - 1);
      meld.forEach(used::remove);
    }
  }

  @Override
  public void startGame(int playerNum, int startingPlayerNum, Card[] cards) {
    log("startGame", playerNum, startingPlayerNum, text(List.of(cards)));
    check(cards.length == 10, "dealt " + cards.length + " cards");
    this.playerNum = playerNum;
    this.cards.clear();
    this.cards.addAll(List.of(cards));
    faceUp = null;
    taken = null;
    opponentKnocked = false;
  }

  @Override
  public boolean willDrawFaceUpCard(Card card) {
    List<Card> with = new ArrayList<>(cards);
    with.add(card);
    boolean take = allMelds(with).stream().anyMatch(meld -> meld.contains(card));
    faceUp = card;
    log("willDrawFaceUpCard", card, "->", take ? "True" : "False");
    return take;
  }

  @Override
  public void reportDraw(int playerNum, Card drawnCard) {
    log("reportDraw", playerNum, drawnCard);
    if (playerNum == this.playerNum) {
      check(drawnCard != null && !cards.contains(drawnCard), "drew " + drawnCard);
      taken = drawnCard == faceUp ? drawnCard : null;
      cards.add(drawnCard);
    }
  }

  @Override
  public Card getDiscard() {
    check(cards.size() == 11, "holds " + cards);
    Card chosen = null;
    int least = Integer.MAX_VALUE;
    for (Card card : cards) {
      if (card == taken) {
        continue;
      }
      List<Card> rest = new ArrayList<>(cards);
      rest.remove(card);
      int left = best(rest).deadwood();
      if (left < least || (left == least && value(card) > value(chosen))) {
        chosen = card;
        least = left;
      }
    }
    log("getDiscard", "->", chosen);
    return chosen;
  }

  @Override
  public void reportDiscard(int playerNum, Card discardedCard) {
    log("reportDiscard", playerNum, discardedCard);
    if (playerNum == this.playerNum) {
      check(cards.remove(discardedCard), "discarded " + discardedCard + " not held");
    }
    faceUp = null;
    taken = null;
  }

  @Override
  public ArrayList<ArrayList<Card>> getFinalMelds() {
    check(cards.size() == 10, "holds " + cards);
    Best found = best(cards);
    ArrayList<ArrayList<Card>> melds = null;
    if (opponentKnocked || found.deadwood() <= 10) {
      melds = new ArrayList<>();
      for (List<Card> meld : found.melds()) {
        ArrayList<Card> sorted = new ArrayList<>(meld);
        sorted.sort(Comparator.comparingInt(MeldingAgent::order));
        melds.add(sorted);
      }
      melds.sort(Comparator.comparing(MeldingAgent::isSet)); // runs first
    }
    log("getFinalMelds", "->", melds == null ? "None" : meldsText(melds));
    return melds;
  }

  @Override
  public void reportFinalMelds(int playerNum, ArrayList<ArrayList<Card>> melds) {
    log("reportFinalMelds", playerNum, meldsText(melds));
    if (playerNum != this.playerNum) {
      opponentKnocked = true;
    }
  }

  @Override
  public void reportScores(int[] scores) {
    log("reportScores", scores[0], scores[1]);
  }

  @Override
  public void reportLayoff(int playerNum, Card layoffCard, ArrayList<Card> opponentMeld) {
    log("reportLayoff", playerNum, layoffCard, text(opponentMeld));
  }

  @Override
  public void reportFinalHand(int playerNum, ArrayList<Card> hand) {
    log("reportFinalHand", playerNum, text(hand));
    if (playerNum == this.playerNum) {
      check(hand.size() == 10 && cards.containsAll(hand), "final hand " + hand + " not " + cards);
    }
  }
}
