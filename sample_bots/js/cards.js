// Card arithmetic for the sample bots: wire cards, card values and exact minimum deadwood.
//
// A card is an integer index = suit * 13 + rank (suits C D H S = 0..3, ranks A..K = 0..12), the
// encoding of the greedy specification (sample_bots/greedy_bot.py). A hand is kept as four 13-bit
// suit masks, so no 52-bit integers are needed.
'use strict';

const RANKS = 'A23456789TJQK';
const SUITS = 'CDHS';

/** The card index of a canonical wire card such as "TD"; throws on anything else. */
function cardIndex(text) {
  const rank = RANKS.indexOf(text[0]);
  const suit = SUITS.indexOf(text[1]);
  if (text.length !== 2 || rank < 0 || suit < 0) {
    throw new Error(`not a wire card: ${JSON.stringify(text)}`);
  }
  return suit * 13 + rank;
}

/** Deadwood value of a rank (0..12): A = 1, 2..10 = pips, J Q K = 10. */
function rankValue(rank) {
  return Math.min(rank + 1, 10);
}

/** Deadwood value of a card index. */
function cardValue(card) {
  return rankValue(card % 13);
}

// RUN_DW[m] = least deadwood of the cards of one suit (13-bit mask m) using runs only. The
// lowest card of m is either deadwood or the low end of a run of 3 or more.
const RUN_DW = (() => {
  const best = new Int32Array(8192);
  for (let m = 1; m < 8192; m++) {
    const low = m & -m;
    const r = 31 - Math.clz32(low);
    let val = rankValue(r) + best[m ^ low];
    let run = low;
    for (let k = r + 1; k < 13 && (m >> k) & 1; k++) {
      run |= 1 << k;
      if (k - r + 1 >= 3 && best[m ^ run] < val) val = best[m ^ run];
    }
    best[m] = val;
  }
  return best;
})();

/** Four suit masks of a list of card indices. */
function suitMasks(cards) {
  const suits = [0, 0, 0, 0];
  for (const c of cards) suits[Math.floor(c / 13)] |= 1 << (c % 13);
  return suits;
}

// For a rank's suit pattern (bit s = suit s holds that rank), the sets that can be taken out.
function setOptions(pattern) {
  if (pattern === 15) return [0, 15, 14, 13, 11, 7];
  return [0, pattern];
}

/**
 * Exact minimum deadwood of a collection of cards (a list of card indices).
 *
 * Sets are the only melds that span suits; every arrangement is a choice of sets among the ranks
 * holding 3 or 4 cards plus runs inside each suit, so try every such choice and add up the
 * runs-only deadwood of each suit.
 */
function minDeadwood(cards) {
  const suits = suitMasks(cards);
  const ranks = [];
  for (let r = 0; r < 13; r++) {
    let pattern = 0;
    for (let s = 0; s < 4; s++) if ((suits[s] >> r) & 1) pattern |= 1 << s;
    if (pattern === 7 || pattern === 11 || pattern === 13 || pattern === 14 || pattern === 15) {
      ranks.push([r, setOptions(pattern)]);
    }
  }
  let best = Infinity;
  const rec = (i) => {
    if (i === ranks.length) {
      const v = RUN_DW[suits[0]] + RUN_DW[suits[1]] + RUN_DW[suits[2]] + RUN_DW[suits[3]];
      if (v < best) best = v;
      return;
    }
    const [r, options] = ranks[i];
    for (const p of options) {
      for (let s = 0; s < 4; s++) if ((p >> s) & 1) suits[s] ^= 1 << r;
      rec(i + 1);
      for (let s = 0; s < 4; s++) if ((p >> s) & 1) suits[s] ^= 1 << r;
    }
  };
  rec(0);
  return best;
}

module.exports = { cardIndex, cardValue, minDeadwood, RANKS, SUITS };
