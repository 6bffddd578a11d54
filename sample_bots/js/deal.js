// The deal a match seed gives, and the check of the referee's commitment to it, from the proto's
// fields alone (MatchStart.deal_commitment, MatchEnd.deal_seed and deal_salt, each HandStart).
// The algorithm is referee/engine/deal.py's, step by step: SplitMix64, hand k's generator is the
// match generator's output k + 2, Fisher-Yates over the 52 cards (suit * 13 + rank, clubs to
// spades, ace to king); deck positions 0..19 go alternately to the non-dealer and the dealer
// (0..20 under deal_mode = eleven_card; to seat 0 and seat 1 under deal_order = seat0_first),
// position 20 is the upcard.
'use strict';

const crypto = require('crypto');

const MASK = (1n << 64n) - 1n;
const GAMMA = 0x9e3779b97f4a7c15n;
const RANKS = 'A23456789TJQK';
const SUITS = 'CDHS';

/** SplitMix64: the next 64-bit output and the new state, as BigInts. */
function splitmix64(state) {
  const s = (state + GAMMA) & MASK;
  let z = s;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK;
  return [z ^ (z >> 31n), s];
}

/** The deck order (card names such as "TD") of hand `index` (0-based) of the match `seed`. */
function handDeck(seed, index) {
  let [state] = splitmix64((BigInt(seed) + BigInt(index + 1) * GAMMA) & MASK);
  const deck = Array.from({ length: 52 }, (_, c) => c);
  for (let i = 51; i > 0; i -= 1) {
    const n = BigInt(i + 1);
    const limit = (1n << 64n) - ((1n << 64n) % n);
    let x;
    do {
      [x, state] = splitmix64(state);
    } while (x >= limit);
    const j = Number(x % n);
    [deck[i], deck[j]] = [deck[j], deck[i]];
  }
  return deck.map((c) => RANKS[c % 13] + SUITS[Math.floor(c / 13)]);
}

/** SHA-256("ginref-deal-v1" || 0x00 || salt || seed as 8 bytes big-endian). */
function commitment(seed, salt) {
  const seedBytes = Buffer.alloc(8);
  seedBytes.writeBigUInt64BE(BigInt(seed));
  return crypto.createHash('sha256')
    .update(Buffer.from('ginref-deal-v1\0', 'ascii')).update(salt).update(seedBytes).digest();
}

/**
 * Why the revealed deal does not check out, or null if it does: the commitment must open with
 * the seed and salt, and every hand this bot was dealt must be the one the seed gives.
 * `hands` holds each HandStart this bot received; `seat` is MatchStart.seat. With three or
 * four players (`players` > 2) the bot's seat in a hand is that HandStart's hand_seat, which
 * is not its match seat, and -1 when it sits out (R10.1): it is shown no card of that hand,
 * so there is nothing of it to check. `seatFirst`: the rules' deal_order is seat0_first, so
 * positions 0, 2, 4, ... went to seat 0 whoever dealt.
 */
function checkDeal(commit, seed, salt, hands, seat, elevenCard, players = 2, seatFirst = false) {
  if (!commit || commit.length === 0) return null; // a referee that does not commit
  if (!crypto.timingSafeEqual(Buffer.from(commit), commitment(seed, Buffer.from(salt)))) {
    return 'the revealed seed and salt do not open MatchStart.deal_commitment';
  }
  for (const start of hands) {
    const deck = handDeck(seed, start.hand_number - 1);
    const dealt = elevenCard ? 21 : 20;
    const handSeat = players > 2 ? start.hand_seat : seat;
    if (handSeat < 0) continue; // sitting out: no card was shown
    const mine = [];
    for (let p = 0; p < dealt; p += 1) {
      const toFirst = p % 2 === 0; // the non-dealer, or seat 0 under seat0_first
      const first = seatFirst ? handSeat === 0 : handSeat !== start.dealer;
      if (toFirst === first) mine.push(deck[p]);
    }
    const got = [...start.hand].sort().join(' ');
    if (mine.sort().join(' ') !== got) {
      return `hand ${start.hand_number}: dealt ${got}, the seed gives ${mine.join(' ')}`;
    }
    if (!elevenCard && start.upcard !== deck[20]) {
      return `hand ${start.hand_number}: upcard ${start.upcard}, the seed gives ${deck[20]}`;
    }
  }
  return null;
}

module.exports = { MASK, splitmix64, handDeck, commitment, checkDeal };
