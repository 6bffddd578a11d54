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
// Exit codes:
//   0  the referee ended the stream with status OK (every stream, with GINREF_MATCHES)
//   1  the connection failed, a stream ended with an error status, or decide threw
//   2  the launch environment is missing or malformed
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
      const status = grpc.status[err.code] || err.code;
      process.stderr.write(`${name}: the referee ended the stream: ${status}: ${err.details}\n`);
      exitCode = 1;
    }
  });
  call.on('status', (status) => {
    if (status.code !== grpc.status.OK) exitCode = exitCode || 1;
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
