package ginrummy;

/**
 * A stand-in for the EAAI framework's card, written from its public API: 52 objects made once
 * (allCards, by id = suit * 13 + rank), compared by identity, named like "TD". The suits are
 * numbered as the framework numbers them (C H S D), not as ginref does, so that a bridge that
 * mapped cards by number instead of by name would fail.
 */
public class Card {
  public static final String[] rankNames =
      {"A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K"};
  public static final String[] suitNames = {"C", "H", "S", "D"};
  public static final int NUM_RANKS = 13;
  public static final int NUM_SUITS = 4;
  public static final int NUM_CARDS = 52;
  public static final Card[] allCards = new Card[NUM_CARDS];

  static {
    for (int suit = 0; suit < NUM_SUITS; suit++) {
      for (int rank = 0; rank < NUM_RANKS; rank++) {
        allCards[suit * NUM_RANKS + rank] = new Card(rank, suit);
      }
    }
  }

  public final int rank;
  public final int suit;

  public Card(int rank, int suit) {
    this.rank = rank;
    this.suit = suit;
  }

  public static Card getCard(int id) {
    return allCards[id];
  }

  public static Card getCard(int rank, int suit) {
    return allCards[suit * NUM_RANKS + rank];
  }

  public int getRank() {
    return rank;
  }

  public int getSuit() {
    return suit;
  }

  public int getId() {
    return suit * NUM_RANKS + rank;
  }

  @Override
  public String toString() {
    return rankNames[rank] + suitNames[suit];
  }
}
