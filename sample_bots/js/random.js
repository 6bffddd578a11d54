#!/usr/bin/env node
// The random bot in JavaScript: answers every request with a uniformly random entry of
// legal_actions, sent back unchanged. GINREF_BOT_SEED=<integer> makes its choices reproducible
// (SplitMix64, the same generator as the C++, Go and Java random bots); otherwise it seeds
// itself from the operating system. Run: node sample_bots/js/random.js
'use strict';

const crypto = require('crypto');
const { runBot } = require('./client');
const { MASK, splitmix64 } = require('./deal');

function initialSeed() {
  const text = (process.env.GINREF_BOT_SEED || '').trim();
  if (!text) return crypto.randomBytes(8).readBigUInt64LE();
  if (!/^-?\d+$/.test(text)) {
    process.stderr.write(`random-bot-js: GINREF_BOT_SEED=${JSON.stringify(text)}: ` +
      'expected an integer\n');
    process.exit(2);
  }
  return BigInt(text) & MASK;
}

let state = initialSeed();

function decide(request) {
  const legal = request.legal_actions;
  let value;
  [value, state] = splitmix64(state);
  return legal[Number(value % BigInt(legal.length))];
}

runBot(decide, 'random-bot-js', '1.0.0');
