// Connect a JavaScript bot to the ginref referee: launch contract, Play stream, decision loop.
//
// The message and service code is generated at start-up from proto/ginrummy/v1/ginrummy.proto by
// @grpc/proto-loader (the ordinary Node.js tooling), so the bot always speaks the proto of the
// checkout it runs from. A bot is a function from a DecisionRequest (a plain object, field names
// as in the proto) to an Action; runBot does the rest and exits the process. At each MatchEnd it
// checks the referee's commitment to the deal (deal.js) and says so on stderr if it fails.
// Exit codes:
//   0  the referee ended the stream with status OK
//   1  the connection failed, the stream ended with an error status, or decide threw
//   2  GINREF_ADDRESS or GINREF_TOKEN is missing
'use strict';

const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');
const { checkDeal } = require('./deal');

const PROTO_ROOT = path.resolve(__dirname, '..', '..', 'proto');
const PROTO_FILE = 'ginrummy/v1/ginrummy.proto';
const PROTOCOL_VERSION = 1;

function loadReferee() {
  const definition = protoLoader.loadSync(PROTO_FILE, {
    includeDirs: [PROTO_ROOT],
    keepCase: true, // field names as in the proto: legal_actions, request_id, ...
    longs: String, // int64 request ids as strings, echoed back unchanged
    enums: String, // phases as their names, e.g. "PHASE_WALL"
    defaults: true,
    oneofs: true, // each oneof gets a virtual field naming the member that is set: action.kind
  });
  return grpc.loadPackageDefinition(definition).ginrummy.v1.Referee;
}

function formatFault(fault) {
  const kind = String(fault.kind || 'FAULT').replace(/^FAULT_KIND_/, '');
  const then = fault.retry ? 'a new request follows' : 'the match is forfeited';
  return `fault ${kind} (${fault.rule || 'no rule'}) on request ${fault.request_id}: ` +
    `${fault.message} -- ${then}`;
}

/** Play with the launch environment until the referee ends the stream, then exit. */
function runBot(decide, name, version) {
  const address = (process.env.GINREF_ADDRESS || '').trim();
  const token = (process.env.GINREF_TOKEN || '').trim();
  if (!address || !token) {
    process.stderr.write(`${name}: GINREF_ADDRESS and GINREF_TOKEN must be set (the referee ` +
      'sets them when it starts the bot)\n');
    process.exit(2);
  }
  const Referee = loadReferee();
  const client = new Referee(address, grpc.credentials.createInsecure());
  const call = client.Play();
  let exitCode = 0;
  // What the deal check needs: MatchStart's commitment, seat and number of players, and this
  // bot's every HandStart (with three or four players each says which hand seat it played).
  let match = null;
  call.on('data', (message) => {
    if (message.kind === 'match_start') {
      const start = message.match_start;
      const elevenCard = start.rules.params.deal_mode === 'eleven_card';
      const seatFirst = start.rules.params.deal_order === 'seat0_first';
      match = {
        commit: start.deal_commitment, seat: start.seat, players: start.players, elevenCard,
        seatFirst, hands: [],
      };
    } else if (message.kind === 'hand_start' && match) {
      match.hands.push(message.hand_start);
    } else if (message.kind === 'match_end' && match) {
      const end = message.match_end;
      const wrong = checkDeal(match.commit, end.deal_seed, end.deal_salt, match.hands,
        match.seat, match.elevenCard, match.players, match.seatFirst);
      if (wrong) {
        process.stderr.write(`${name}: the deal of match ${end.match_id} was not fair: ${wrong}\n`);
        exitCode = 1;
      }
      match = null;
    }
    if (message.kind === 'decision_request') {
      const request = message.decision_request;
      let action;
      try {
        action = decide(request);
      } catch (err) {
        process.stderr.write(`${name}: decide threw; leaving the stream\n${err.stack}\n`);
        exitCode = 1;
        call.cancel();
        return;
      }
      call.write({ action_reply: { request_id: request.request_id, action } });
    } else if (message.kind === 'fault') {
      process.stderr.write(`${name}: ${formatFault(message.fault)}\n`);
    }
  });
  // The referee has sent everything: half-close our side too.
  call.on('end', () => call.end());
  call.on('error', (err) => {
    if (exitCode === 0) {
      process.stderr.write(`${name}: the referee ended the stream: ${err.code} ${err.details}\n`);
      exitCode = 1;
    }
  });
  call.on('status', (status) => {
    if (status.code !== grpc.status.OK) exitCode = exitCode || 1;
    client.close();
    process.exit(exitCode);
  });
  call.write({
    hello: { token, bot_name: name, bot_version: version, protocol_version: PROTOCOL_VERSION },
  });
}

module.exports = { runBot };
