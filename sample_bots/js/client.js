// Connect a JavaScript bot to the ginref referee: launch contract, Play stream, decision loop.
//
// The message and service code is generated at start-up from proto/ginrummy/v1/ginrummy.proto by
// @grpc/proto-loader (the ordinary Node.js tooling), so the bot always speaks the proto of the
// checkout it runs from. A bot is a function from a DecisionRequest (a plain object, field names
// as in the proto) to an Action; runBot does the rest and exits the process. At each MatchEnd it
// checks the referee's commitment to the deal (deal.js) and says so on stderr if it fails.
//
// The launch environment is that of sample_bots/client.py: GINREF_ADDRESS and GINREF_TOKEN; for
// a hosted referee GINREF_CA_CERT (TLS, trusting that CA alone), GINREF_CLIENT_CERT and
// GINREF_CLIENT_KEY (mutual TLS), GINREF_SERVER_NAME (the name the referee's certificate must
// carry) and GINREF_MATCHES (that many streams at once, one match each).
// On stderr it says what happens, one line a step, in the words of every language's client
// (docs/writing-a-bot.md §9): welcomed, waiting for a match, a match started or ended, the end.
// Exit codes (with GINREF_MATCHES, the worst stream's):
//   0  the referee ended the stream with status OK (no more matches)
//   1  the connection failed, a stream ended with an error status, or decide threw
//   2  the launch environment is missing or malformed
//   3  the referee refused the bot (REFUSALS: its token unknown or revoked, ...)
'use strict';

const fs = require('fs');
const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');
const { checkDeal } = require('./deal');

const PROTO_ROOT = path.resolve(__dirname, '..', '..', 'proto');
const PROTO_FILE = 'ginrummy/v1/ginrummy.proto';
const PROTOCOL_VERSION = 1;
const MAX_STREAMS = 64; // more than this is surely a typo

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

// The statuses that refuse the bot itself: the same connection again would be refused again.
const REFUSALS = ['UNAUTHENTICATED', 'PERMISSION_DENIED', 'ALREADY_EXISTS', 'FAILED_PRECONDITION',
  'INVALID_ARGUMENT'];
const EXIT_REFUSED = 3;

/** The other players' names, by seat (with partnerships, the partner left out). */
function opponents(start) {
  const names = start.player_names.filter((name, seat) => seat !== start.seat
    && !(start.players === 4 && seat === start.partner));
  return names.length ? names.join(', ') : start.opponent_name;
}

/** Who won, by how much and how, e.g. "seat 0 won by 131 (target_reached)". */
function resultText(result) {
  let who = 'no winner';
  if (result._winner === 'winner') who = `seat ${result.winner} won by ${result.margin}`;
  else if (result._winning_team === 'winning_team') {
    who = `team ${result.winning_team} won by ${result.margin}`;
  }
  let how = String(result.termination).replace(/^TERMINATION_/, '').toLowerCase();
  if (result.termination === 'TERMINATION_FORFEIT') {
    how += `, ${result.forfeit.rule}: ${result.forfeit.reason}`;
  }
  return `${who} (${how})`;
}

/** The lines a referee message is worth: a Welcome, a MatchStart or a MatchEnd; none else. */
function messageLines(message) {
  if (message.kind === 'welcome') {
    const welcome = message.welcome;
    return [`connected to ${welcome.referee_version} as ${welcome.bot_name}`,
      'waiting for a match'];
  }
  if (message.kind === 'match_start') {
    const start = message.match_start;
    return [`match ${start.match_id} started: seat ${start.seat} against ${opponents(start)}`];
  }
  if (message.kind === 'match_end') {
    const end = message.match_end;
    const result = end.result || { termination: 'TERMINATION_UNSPECIFIED' };
    return [`match ${end.match_id} ended: ${resultText(result)}`, 'waiting for a match'];
  }
  return [];
}

/** The line for the end of the stream with status `code` (a name) and `details`, and its exit
 * code. */
function ending(code, details) {
  if (code === 'OK') return ['no more matches: the referee ended the stream (OK)', 0];
  if (REFUSALS.includes(code)) return [`refused by the referee: ${code}: ${details}`, EXIT_REFUSED];
  return [`the referee ended the stream: ${code}: ${details}`, 1];
}

function formatFault(fault) {
  const kind = String(fault.kind || 'FAULT').replace(/^FAULT_KIND_/, '');
  const then = fault.retry ? 'a new request follows' : 'the match is forfeited';
  return `fault ${kind} (${fault.rule || 'no rule'}) on request ${fault.request_id}: ` +
    `${fault.message} -- ${then}`;
}

/** A malformed launch environment: its message is the one line to print before exiting 2. */
class ConfigError extends Error {}

/** The launch environment of `env`; throws ConfigError. */
function configFromEnv(env) {
  const get = (name) => (env[name] || '').trim();
  const config = {
    address: get('GINREF_ADDRESS'),
    token: get('GINREF_TOKEN'),
    caCert: get('GINREF_CA_CERT'),
    clientCert: get('GINREF_CLIENT_CERT'),
    clientKey: get('GINREF_CLIENT_KEY'),
    serverName: get('GINREF_SERVER_NAME'),
  };
  if (!config.address || !config.token) {
    throw new ConfigError('GINREF_ADDRESS and GINREF_TOKEN must be set (the referee sets them ' +
      "when it starts the bot; a hosted referee's organiser gives them to you)");
  }
  if (!config.clientCert !== !config.clientKey) {
    throw new ConfigError('GINREF_CLIENT_CERT and GINREF_CLIENT_KEY go together: ' +
      'set both or neither');
  }
  if (config.clientCert && !config.caCert) {
    throw new ConfigError('GINREF_CLIENT_CERT needs GINREF_CA_CERT: a client certificate is ' +
      'for TLS');
  }
  const matches = get('GINREF_MATCHES') || '1';
  config.matches = /^[0-9]{1,3}$/.test(matches) ? Number(matches) : 0;
  if (config.matches < 1 || config.matches > MAX_STREAMS) {
    throw new ConfigError(`GINREF_MATCHES="${matches}": expected a whole number, ` +
      `1 to ${MAX_STREAMS}`);
  }
  return config;
}

function readPem(variable, file, what, mark) {
  let data;
  try {
    data = fs.readFileSync(file);
  } catch (err) {
    // "ENOENT: no such file or directory, open '...'": the reason alone.
    const reason = String(err.message).replace(/^[A-Z]+: /, '').replace(/, \w+ '.*'$/, '');
    throw new ConfigError(`cannot read ${variable} "${file}": ${reason}`);
  }
  if (!data.includes(mark)) throw new ConfigError(`${variable} "${file}" is not a PEM ${what}`);
  return data;
}

/** Channel credentials and options: TLS when GINREF_CA_CERT is set (its files read now). */
function channelSettings(config) {
  if (!config.caCert) return { credentials: grpc.credentials.createInsecure(), options: {} };
  const ca = readPem('GINREF_CA_CERT', config.caCert, 'certificate', '-----BEGIN CERTIFICATE-----');
  let cert = null;
  let key = null;
  if (config.clientCert) {
    cert = readPem('GINREF_CLIENT_CERT', config.clientCert, 'certificate',
      '-----BEGIN CERTIFICATE-----');
    key = readPem('GINREF_CLIENT_KEY', config.clientKey, 'private key', 'PRIVATE KEY-----');
  }
  let credentials;
  try {
    credentials = grpc.credentials.createSsl(ca, key, cert);
  } catch (err) {
    throw new ConfigError(`cannot use the TLS files: ${err.message}`);
  }
  const options = {};
  // grpc-js names the address's host to the server (SNI) even when it is an IP address
  // (grpc/grpc-node#1919), and Node warns of that on stderr (DEP0123) though the certificate is
  // still checked against the address; that one warning is dropped, any other printed.
  const printers = process.listeners('warning');
  process.removeAllListeners('warning');
  process.on('warning', (warning) => {
    if (warning.code !== 'DEP0123') printers.forEach((print) => print(warning));
  });
  if (config.serverName) {
    options['grpc.ssl_target_name_override'] = config.serverName;
    options['grpc.default_authority'] = config.serverName;
  }
  return { credentials, options };
}

/** One Play stream; calls done(code) when it is over. */
function playStream(client, decide, name, hello, done) {
  const call = client.Play();
  let exitCode = 0;
  // What the deal check needs: MatchStart's commitment, seat and number of players, and this
  // bot's every HandStart (with three or four players each says which hand seat it played).
  let match = null;
  call.on('data', (message) => {
    messageLines(message).forEach((line) => process.stderr.write(`${name}: ${line}\n`));
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
  // The end of the stream: its status says how (an error status comes as 'error' too).
  call.on('error', () => {});
  call.on('status', (status) => {
    if (exitCode === 0) {
      const [line, code] = ending(grpc.status[status.code] || String(status.code), status.details);
      process.stderr.write(`${name}: ${line}\n`);
      exitCode = code;
    }
    done(exitCode);
  });
  call.write({ hello });
}

/**
 * Play with the launch environment until the referee ends the stream (every stream, with
 * GINREF_MATCHES), then exit with the worst stream's code. Node runs decide for one request at a
 * time, whatever the number of streams.
 */
function runBot(decide, name, version) {
  let config;
  let settings;
  try {
    config = configFromEnv(process.env);
    settings = channelSettings(config);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`${name}: ${err.message}\n`);
    process.exit(2);
  }
  const Referee = loadReferee();
  const client = new Referee(config.address, settings.credentials, settings.options);
  const hello = {
    token: config.token, bot_name: name, bot_version: version,
    protocol_version: PROTOCOL_VERSION,
    concurrent_matches: config.matches > 1 ? config.matches : 0,
  };
  let open = config.matches;
  let worst = 0;
  for (let i = 0; i < config.matches; i += 1) {
    playStream(client, decide, name, hello, (code) => {
      worst = Math.max(worst, code);
      open -= 1;
      if (open === 0) {
        client.close();
        process.exit(worst);
      }
    });
  }
}

module.exports = { runBot, configFromEnv, ConfigError };
