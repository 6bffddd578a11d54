package agents;

import ginrummy.Card;
import java.util.ArrayList;
import java.util.List;

/**
 * MeldingAgent, but at its first discard it names a card it has never held: the framework
 * forfeits the game; through the bridge the referee refuses the discard (R4.2).
 */
public class StrayAgent extends MeldingAgent {
  private final List<Card> seen = new ArrayList<>();

  @Override
  public void startGame(int playerNum, int startingPlayerNum, Card[] cards) {
    super.startGame(playerNum, startingPlayerNum, cards);
    seen.clear();
    seen.addAll(List.of(cards));
  }

  @Override
  public void reportDraw(int playerNum, Card drawnCard) {
    super.reportDraw(playerNum, drawnCard);
    seen.add(drawnCard);
  }

  @Override
  public Card getDiscard() {
    for (Card card : Card.allCards) {
      if (!seen.contains(card)) {
        return card;
      }
    }
    throw new IllegalStateException("has seen every card");
  }
}
