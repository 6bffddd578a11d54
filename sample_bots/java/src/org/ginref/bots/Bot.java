package org.ginref.bots;

import org.ginref.ginrummy.v1.Action;
import org.ginref.ginrummy.v1.DecisionRequest;
import org.ginref.ginrummy.v1.Fault;
import org.ginref.ginrummy.v1.GameEvent;
import org.ginref.ginrummy.v1.HandEnd;
import org.ginref.ginrummy.v1.HandStart;
import org.ginref.ginrummy.v1.MatchStart;
import org.ginref.ginrummy.v1.MatchEnd;

/**
 * A Java bot as BotClient plays it: the whole stream, one callback per kind of message, in the
 * order the referee sent them. Only decide is required, so a lambda or a method reference is a
 * bot; a bot that keeps its own state (what it has seen of the opponent, say) overrides the
 * others, which do nothing by default. They mirror sample_bots/client.py, whose on_message sees
 * every message and whose message_events yields each event once.
 *
 * <p>The calls of one stream come one at a time on one thread; with GINREF_MATCHES=n the client
 * still calls one bot at a time (BotClient.run shares one bot among the streams and serialises
 * its calls; BotClient.runEach gives each stream a bot of its own).
 */
@FunctionalInterface
public interface Bot {
  /** The action that answers the request (normally an entry of its legal_actions). */
  Action decide(DecisionRequest request);

  /** A match begins: seat, rules, opponent, time control. */
  default void onMatchStart(MatchStart start) {}

  /** A hand begins: the dealer, this bot's cards, the upcard, the knock limit. */
  default void onHandStart(HandStart start) {}

  /**
   * A public event, each exactly once and in the order it happened: those of an Event message,
   * and those in a DecisionRequest's new_events, given here before decide is called.
   */
  default void onEvent(GameEvent event) {}

  /** A hand is over: its result (both hands once it is over) and the match scores. */
  default void onHandEnd(HandEnd end) {}

  /** A match is over: its result. Another MatchStart may follow on the same stream. */
  default void onMatchEnd(MatchEnd end) {}

  /** The referee faulted this bot; the client has already printed it on stderr. */
  default void onFault(Fault fault) {}
}
