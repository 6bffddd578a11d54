// Shared code of the C++ sample bots (see bot.h).
#include "bot.h"

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstring>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "ginrummy/v1/ginrummy.grpc.pb.h"

namespace ginref {

namespace {

constexpr const char* kRanks = "A23456789TJQK";
constexpr const char* kSuits = "CDHS";

std::string trimmed_env(const char* name) {
  const char* value = std::getenv(name);
  std::string s = value ? value : "";
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(" \t\r\n") - first + 1);
}

int rank_value(int rank) { return std::min(rank + 1, 10); }

// kRunDw[m]: least deadwood of one suit's cards (13-bit mask m) using runs only. The lowest
// card of m is either deadwood or the low end of a run of 3 or more.
const std::array<int, 8192> kRunDw = [] {
  std::array<int, 8192> best{};
  for (int m = 1; m < 8192; ++m) {
    const int low = m & -m;
    const int r = __builtin_ctz(low);
    int val = rank_value(r) + best[m ^ low];
    int run = low;
    for (int k = r + 1; k < 13 && ((m >> k) & 1); ++k) {
      run |= 1 << k;
      if (k - r + 1 >= 3 && best[m ^ run] < val) val = best[m ^ run];
    }
    best[m] = val;
  }
  return best;
}();

void take_sets(std::array<int, 4>& suits, const std::vector<int>& ranks,
               const std::vector<int>& patterns, size_t i, int& best) {
  if (i == ranks.size()) {
    best = std::min(best, kRunDw[suits[0]] + kRunDw[suits[1]] + kRunDw[suits[2]] + kRunDw[suits[3]]);
    return;
  }
  const int r = ranks[i];
  const int pattern = patterns[i];
  static const std::vector<int> kFour = {0, 15, 14, 13, 11, 7};
  const std::vector<int> options = pattern == 15 ? kFour : std::vector<int>{0, pattern};
  for (int p : options) {
    for (int s = 0; s < 4; ++s) if ((p >> s) & 1) suits[s] ^= 1 << r;
    take_sets(suits, ranks, patterns, i + 1, best);
    for (int s = 0; s < 4; ++s) if ((p >> s) & 1) suits[s] ^= 1 << r;
  }
}

std::string fault_line(const pb::Fault& fault) {
  std::string kind = pb::FaultKind_Name(fault.kind());
  if (kind.rfind("FAULT_KIND_", 0) == 0) kind = kind.substr(11);
  return "fault " + kind + " (" + fault.rule() + ") on request " +
         std::to_string(fault.request_id()) + ": " + fault.message() + " -- " +
         (fault.retry() ? "a new request follows" : "the match is forfeited");
}

}  // namespace

int card_index(const std::string& text) {
  if (text.size() != 2) throw std::invalid_argument("not a wire card: \"" + text + "\"");
  const char* rank = text[0] ? std::strchr(kRanks, text[0]) : nullptr;
  const char* suit = text[1] ? std::strchr(kSuits, text[1]) : nullptr;
  if (!rank || !suit) throw std::invalid_argument("not a wire card: \"" + text + "\"");
  return static_cast<int>(suit - kSuits) * 13 + static_cast<int>(rank - kRanks);
}

int card_value(int card) { return rank_value(card % 13); }

// Sets are the only melds that span suits: every arrangement is a choice of sets among the
// ranks holding 3 or 4 cards plus runs inside each suit, so try every such choice.
int min_deadwood(const std::vector<int>& cards) {
  std::array<int, 4> suits{};
  for (int c : cards) suits[c / 13] |= 1 << (c % 13);
  std::vector<int> ranks, patterns;
  for (int r = 0; r < 13; ++r) {
    int pattern = 0;
    for (int s = 0; s < 4; ++s) if ((suits[s] >> r) & 1) pattern |= 1 << s;
    if (__builtin_popcount(pattern) >= 3) {
      ranks.push_back(r);
      patterns.push_back(pattern);
    }
  }
  int best = INT_MAX;
  take_sets(suits, ranks, patterns, 0, best);
  return best;
}

uint64_t splitmix64(uint64_t& state) {
  state += 0x9e3779b97f4a7c15ULL;
  uint64_t z = state;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

namespace {

struct Config {
  std::string address, token;
  std::string ca_cert, client_cert, client_key;  // TLS when ca_cert is set; mutual TLS
  std::string server_name;  // the name the referee's certificate must carry
  int matches = 1;  // streams at once, one match each
};

constexpr int kMaxStreams = 64;  // more than this is surely a typo

// The launch environment (the variables of sample_bots/client.py, with the same meaning and
// the same errors); returns "" or the one line to print before exiting 2.
std::string config_from_env(Config& c) {
  c.address = trimmed_env("GINREF_ADDRESS");
  c.token = trimmed_env("GINREF_TOKEN");
  c.ca_cert = trimmed_env("GINREF_CA_CERT");
  c.client_cert = trimmed_env("GINREF_CLIENT_CERT");
  c.client_key = trimmed_env("GINREF_CLIENT_KEY");
  c.server_name = trimmed_env("GINREF_SERVER_NAME");
  if (c.address.empty() || c.token.empty()) {
    return "GINREF_ADDRESS and GINREF_TOKEN must be set (the referee sets them when it starts "
           "the bot; a hosted referee's organiser gives them to you)";
  }
  if (c.client_cert.empty() != c.client_key.empty()) {
    return "GINREF_CLIENT_CERT and GINREF_CLIENT_KEY go together: set both or neither";
  }
  if (!c.client_cert.empty() && c.ca_cert.empty()) {
    return "GINREF_CLIENT_CERT needs GINREF_CA_CERT: a client certificate is for TLS";
  }
  std::string text = trimmed_env("GINREF_MATCHES");
  if (text.empty()) text = "1";
  const bool digits = text.size() <= 3 && text.find_first_not_of("0123456789") == std::string::npos;
  c.matches = digits ? std::stoi(text) : 0;
  if (c.matches < 1 || c.matches > kMaxStreams) {
    return "GINREF_MATCHES=\"" + text + "\": expected a whole number, 1 to " +
           std::to_string(kMaxStreams);
  }
  return "";
}

// Reads the file a variable names into `out`; returns "" or the one line saying what is wrong.
std::string read_pem(const char* variable, const std::string& path, const char* what,
                     const char* mark, std::string& out) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    return std::string("cannot read ") + variable + " \"" + path + "\": " + std::strerror(errno);
  }
  std::ostringstream data;
  data << file.rdbuf();
  out = data.str();
  if (out.find(mark) == std::string::npos) {
    return std::string(variable) + " \"" + path + "\" is not a PEM " + what;
  }
  return "";
}

const char* status_name(grpc::StatusCode code) {
  static const char* const kNames[] = {
      "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
      "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
      "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS",
      "UNAUTHENTICATED"};
  const int index = static_cast<int>(code);
  return index >= 0 && index < 17 ? kNames[index] : "UNKNOWN";
}

constexpr int kExitRefused = 3;

// The other players' names, by seat (with partnerships, the partner left out).
std::string opponents(const pb::MatchStart& start) {
  std::string names;
  for (int seat = 0; seat < start.player_names_size(); ++seat) {
    if (seat == start.seat() || (start.players() == 4 && seat == start.partner())) continue;
    names += (names.empty() ? "" : ", ") + start.player_names(seat);
  }
  return names.empty() ? start.opponent_name() : names;
}

// Who won, by how much and how, e.g. "seat 0 won by 131 (target_reached)".
std::string result_text(const pb::MatchResult& result) {
  std::string who = "no winner";
  if (result.has_winner()) {
    who = "seat " + std::to_string(result.winner()) + " won by " + std::to_string(result.margin());
  } else if (result.has_winning_team()) {
    who = "team " + std::to_string(result.winning_team()) + " won by " +
          std::to_string(result.margin());
  }
  std::string how = pb::Termination_Name(result.termination()).substr(strlen("TERMINATION_"));
  std::transform(how.begin(), how.end(), how.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (result.termination() == pb::TERMINATION_FORFEIT) {
    how += ", " + result.forfeit().rule() + ": " + result.forfeit().reason();
  }
  return who + " (" + how + ")";
}

// The lines a referee message is worth: a Welcome, a MatchStart or a MatchEnd; none else.
std::vector<std::string> message_lines(const pb::RefereeMessage& message) {
  if (message.has_welcome()) {
    return {"connected to " + message.welcome().referee_version() + " as " +
                message.welcome().bot_name(),
            "waiting for a match"};
  }
  if (message.has_match_start()) {
    const pb::MatchStart& start = message.match_start();
    return {"match " + start.match_id() + " started: seat " + std::to_string(start.seat()) +
            " against " + opponents(start)};
  }
  if (message.has_match_end()) {
    return {"match " + message.match_end().match_id() + " ended: " +
                result_text(message.match_end().result()),
            "waiting for a match"};
  }
  return {};
}

// The line for the end of the stream with `status`; `code` is set to the exit code it calls for.
std::string ending(const grpc::Status& status, int& code) {
  const std::string name = status_name(status.error_code());
  static const std::array<const char*, 5> kRefusals = {
      "UNAUTHENTICATED", "PERMISSION_DENIED", "ALREADY_EXISTS", "FAILED_PRECONDITION",
      "INVALID_ARGUMENT"};
  if (status.ok()) {
    code = 0;
    return "no more matches: the referee ended the stream (OK)";
  }
  if (std::find(kRefusals.begin(), kRefusals.end(), name) != kRefusals.end()) {
    code = kExitRefused;
    return "refused by the referee: " + name + ": " + status.error_message();
  }
  code = 1;
  return "the referee ended the stream: " + name + ": " + status.error_message();
}

// One Play stream to its end; returns its exit code.
int play(pb::Referee::Stub& stub, const Decide& decide, const pb::BotMessage& hello,
         const std::string& name, bool wait) {
  grpc::ClientContext context;
  // A referee that starts the bot listens before it does, so a plain-text bot waits for the
  // connection; over TLS (a hosted referee, already up) a failed handshake is reported at once.
  context.set_wait_for_ready(wait);
  auto stream = stub.Play(&context);
  stream->Write(hello);

  int code = 0;
  pb::RefereeMessage message;
  while (stream->Read(&message)) {
    // One string a line, written at once: the streams' threads must not interleave its parts.
    for (const std::string& line : message_lines(message)) {
      std::cerr << (name + ": " + line + "\n") << std::flush;
    }
    if (message.has_decision_request()) {
      const pb::DecisionRequest& request = message.decision_request();
      pb::BotMessage reply;
      try {
        *reply.mutable_action_reply()->mutable_action() = decide(request);
      } catch (const std::exception& e) {
        std::cerr << name << ": decide threw (" << e.what() << "); leaving the stream" << std::endl;
        context.TryCancel();
        code = 1;
        break;
      }
      reply.mutable_action_reply()->set_request_id(request.request_id());
      stream->Write(reply);
    } else if (message.has_fault()) {
      std::cerr << name << ": " << fault_line(message.fault()) << std::endl;
    }
  }
  stream->WritesDone();
  const grpc::Status status = stream->Finish();
  if (code == 0) std::cerr << (name + ": " + ending(status, code) + "\n") << std::flush;
  return code;
}

}  // namespace

int run_bot(const Decide& decide, const std::string& name, const std::string& version) {
  Config config;
  std::string error = config_from_env(config);
  std::shared_ptr<grpc::ChannelCredentials> credentials = grpc::InsecureChannelCredentials();
  grpc::ChannelArguments arguments;
  if (error.empty() && !config.ca_cert.empty()) {
    grpc::SslCredentialsOptions tls;
    error = read_pem("GINREF_CA_CERT", config.ca_cert, "certificate",
                     "-----BEGIN CERTIFICATE-----", tls.pem_root_certs);
    if (error.empty() && !config.client_cert.empty()) {
      error = read_pem("GINREF_CLIENT_CERT", config.client_cert, "certificate",
                       "-----BEGIN CERTIFICATE-----", tls.pem_cert_chain);
    }
    if (error.empty() && !config.client_key.empty()) {
      error = read_pem("GINREF_CLIENT_KEY", config.client_key, "private key", "PRIVATE KEY-----",
                       tls.pem_private_key);
    }
    credentials = grpc::SslCredentials(tls);
    if (!config.server_name.empty()) arguments.SetSslTargetNameOverride(config.server_name);
  }
  if (!error.empty()) {
    std::cerr << name << ": " << error << std::endl;
    return 2;
  }
  auto channel = grpc::CreateCustomChannel(config.address, credentials, arguments);
  auto stub = pb::Referee::NewStub(channel);
  pb::BotMessage hello;
  hello.mutable_hello()->set_token(config.token);
  hello.mutable_hello()->set_bot_name(name);
  hello.mutable_hello()->set_bot_version(version);
  hello.mutable_hello()->set_protocol_version(1);
  if (config.matches > 1) hello.mutable_hello()->set_concurrent_matches(config.matches);
  const bool wait = config.ca_cert.empty();
  if (config.matches == 1) return play(*stub, decide, hello, name, wait);
  // Several streams at once, one thread each; decisions one at a time, so that a bot's own
  // state needs no lock.
  std::mutex one_decision;
  const Decide serial = [&](const pb::DecisionRequest& request) {
    std::lock_guard<std::mutex> lock(one_decision);
    return decide(request);
  };
  std::vector<int> codes(config.matches, 0);
  std::vector<std::thread> threads;
  for (int i = 0; i < config.matches; ++i) {
    threads.emplace_back([&, i] { codes[i] = play(*stub, serial, hello, name, wait); });
  }
  for (auto& thread : threads) thread.join();
  return *std::max_element(codes.begin(), codes.end());
}

}  // namespace ginref
