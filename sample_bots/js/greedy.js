#!/usr/bin/env node
// The greedy bot in JavaScript: the greedy v1 specification of sample_bots/greedy_bot.py (its
// docstring), rule for rule and tie-break for tie-break. Run: node sample_bots/js/greedy.js
'use strict';

const { cardIndex, cardValue, minDeadwood } = require('./cards');
const { runBot } = require('./client');

/** dw(hand - c) for each card c of candidates (indices), as a Map. */
function deadwoodWithout(hand, candidates) {
  const out = new Map();
  for (const c of candidates) out.set(c, minDeadwood(hand.filter((h) => h !== c)));
  return out;
}

/** The best card of candidates: least dw(hand - c), then the larger value, then larger index. */
function bestCard(hand, candidates) {
  const left = deadwoodWithout(hand, candidates);
  let best = -1;
  for (const c of candidates) {
    if (best < 0) {
      best = c;
      continue;
    }
    const a = left.get(c);
    const b = left.get(best);
    if (a < b || (a === b && (cardValue(c) > cardValue(best) ||
        (cardValue(c) === cardValue(best) && c > best)))) {
      best = c;
    }
  }
  return best;
}

/** Rule 7: whether taking the top discard t strictly lowers the best reachable deadwood. */
function takesDiscard(hand, t) {
  const withT = hand.concat([t]);
  let best = Infinity;
  for (const d of hand) best = Math.min(best, minDeadwood(withT.filter((c) => c !== d)));
  return best < minDeadwood(hand);
}

function decide(request) {
  const legal = request.legal_actions;
  const obs = request.observation;
  const byKind = new Map();
  for (const action of legal) {
    if (!byKind.has(action.kind)) byKind.set(action.kind, []);
    byKind.get(action.kind).push(action);
  }
  const hand = obs.hand.map(cardIndex);

  if (byKind.has('choose_deal')) { // rule 1
    const entries = byKind.get('choose_deal');
    return entries.find((a) => !a.choose_deal.deal) || entries[0];
  }
  if (byKind.has('defender_play')) return byKind.get('defender_play')[0]; // rule 2
  if (byKind.has('big_gin')) return byKind.get('big_gin')[0]; // rule 3
  if (byKind.has('knock')) { // rule 4
    const knocks = new Map(byKind.get('knock').map((a) => [cardIndex(a.knock.discard), a]));
    return knocks.get(bestCard(hand, [...knocks.keys()]));
  }
  if (byKind.has('discard')) { // rule 5
    const discards = new Map(byKind.get('discard').map((a) => [cardIndex(a.discard.card), a]));
    return discards.get(bestCard(hand, [...discards.keys()]));
  }
  if (obs.phase === 'PHASE_WALL' && !byKind.has('declare_dead')) { // rule 6
    if (byKind.has('draw_discard')) return byKind.get('draw_discard')[0];
    if (byKind.has('pass_offer')) return byKind.get('pass_offer')[0];
  }
  const pile = obs.discard_pile;
  if (byKind.has('draw_discard') && pile.length > 0 && // rule 7
      takesDiscard(hand, cardIndex(pile[pile.length - 1]))) {
    return byKind.get('draw_discard')[0];
  }
  for (const kind of ['draw_stock', 'pass_offer', 'declare_dead']) {
    if (byKind.has(kind)) return byKind.get(kind)[0];
  }
  return legal[0]; // rule 8
}

if (require.main === module) runBot(decide, 'greedy-bot-js', '1.0.0');

module.exports = { decide };
