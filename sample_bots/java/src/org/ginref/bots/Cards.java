package org.ginref.bots;

import java.util.ArrayList;
import java.util.List;

/**
 * Card arithmetic of the sample bots: wire cards, card values and exact minimum deadwood.
 *
 * <p>A card is an index = suit * 13 + rank (suits C D H S = 0..3, ranks A..K = 0..12), the
 * encoding of the greedy specification (sample_bots/greedy_bot.py).
 */
public final class Cards {
  private static final String RANKS = "A23456789TJQK";
  private static final String SUITS = "CDHS";

  /** RUN_DW[m]: least deadwood of one suit's cards (13-bit mask m) using runs only. */
  private static final int[] RUN_DW = new int[8192];

  static {
    // The lowest card of m is either deadwood or the low end of a run of 3 or more.
    for (int m = 1; m < 8192; m++) {
      int low = m & -m;
      int r = Integer.numberOfTrailingZeros(low);
      int val = rankValue(r) + RUN_DW[m ^ low];
      int run = low;
      for (int k = r + 1; k < 13 && ((m >> k) & 1) == 1; k++) {
        run |= 1 << k;
        if (k - r + 1 >= 3 && RUN_DW[m ^ run] < val) {
          val = RUN_DW[m ^ run];
        }
      }
      RUN_DW[m] = val;
    }
  }

  private Cards() {}

  /** The card index of a canonical wire card such as "TD"; throws on anything else. */
  public static int index(String text) {
    int rank = text.length() == 2 ? RANKS.indexOf(text.charAt(0)) : -1;
    int suit = text.length() == 2 ? SUITS.indexOf(text.charAt(1)) : -1;
    if (rank < 0 || suit < 0) {
      throw new IllegalArgumentException("not a wire card: \"" + text + "\"");
    }
    return suit * 13 + rank;
  }

  /** The canonical wire card of a card index, e.g. "TD". */
  public static String text(int card) {
    return "" + RANKS.charAt(card % 13) + SUITS.charAt(card / 13);
  }

  private static int rankValue(int rank) {
    return Math.min(rank + 1, 10);
  }

  /** Deadwood value of a card index: A = 1, 2..10 = pips, J Q K = 10. */
  public static int value(int card) {
    return rankValue(card % 13);
  }

  /**
   * Exact minimum deadwood of a collection of distinct card indices. Sets are the only melds that
   * span suits: every arrangement is a choice of sets among the ranks holding 3 or 4 cards plus
   * runs inside each suit, so this tries every such choice.
   */
  public static int minDeadwood(List<Integer> cards) {
    int[] suits = new int[4];
    for (int c : cards) {
      suits[c / 13] |= 1 << (c % 13);
    }
    List<int[]> setRanks = new ArrayList<>(); // {rank, suit pattern}
    for (int r = 0; r < 13; r++) {
      int pattern = 0;
      for (int s = 0; s < 4; s++) {
        if (((suits[s] >> r) & 1) == 1) {
          pattern |= 1 << s;
        }
      }
      if (Integer.bitCount(pattern) >= 3) {
        setRanks.add(new int[] {r, pattern});
      }
    }
    return takeSets(suits, setRanks, 0);
  }

  private static int takeSets(int[] suits, List<int[]> setRanks, int i) {
    if (i == setRanks.size()) {
      return RUN_DW[suits[0]] + RUN_DW[suits[1]] + RUN_DW[suits[2]] + RUN_DW[suits[3]];
    }
    int r = setRanks.get(i)[0];
    int pattern = setRanks.get(i)[1];
    int[] options = pattern == 15 ? new int[] {0, 15, 14, 13, 11, 7} : new int[] {0, pattern};
    int best = Integer.MAX_VALUE;
    for (int p : options) {
      flip(suits, p, r);
      best = Math.min(best, takeSets(suits, setRanks, i + 1));
      flip(suits, p, r);
    }
    return best;
  }

  private static void flip(int[] suits, int pattern, int rank) {
    for (int s = 0; s < 4; s++) {
      if (((pattern >> s) & 1) == 1) {
        suits[s] ^= 1 << rank;
      }
    }
  }

  /** SplitMix64: the next output for state[0], which it advances. */
  public static long splitMix64(long[] state) {
    state[0] += 0x9e3779b97f4a7c15L;
    long z = state[0];
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }
}
