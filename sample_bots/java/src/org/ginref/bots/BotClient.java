package org.ginref.bots;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.ginref.ginrummy.v1.Action;
import org.ginref.ginrummy.v1.ActionReply;
import org.ginref.ginrummy.v1.BotMessage;
import org.ginref.ginrummy.v1.Fault;
import org.ginref.ginrummy.v1.GameEvent;
import org.ginref.ginrummy.v1.Hello;
import org.ginref.ginrummy.v1.MatchResult;
import org.ginref.ginrummy.v1.MatchStart;
import org.ginref.ginrummy.v1.RefereeGrpc;
import org.ginref.ginrummy.v1.RefereeMessage;
import org.ginref.ginrummy.v1.Termination;

/**
 * Connects a Java bot to the ginref referee: launch contract, Play stream, decision loop.
 *
 * <p>The message and service classes (package org.ginref.ginrummy.v1) are generated from
 * proto/ginrummy/v1/ginrummy.proto by protoc and grpc_java_plugin at build time
 * (sample_bots/java/build); they are never committed.
 */
public final class BotClient {
  private BotClient() {}

  /** What the gRPC thread hands to the stream's thread: a message, or the end of the stream. */
  private record Event(RefereeMessage message, Status status) {}

  /** The statuses that refuse the bot itself: the same connection again would be refused. */
  private static final List<String> REFUSALS = List.of("UNAUTHENTICATED", "PERMISSION_DENIED",
      "ALREADY_EXISTS", "FAILED_PRECONDITION", "INVALID_ARGUMENT");

  /** The exit code of a bot that the referee refused (its token unknown or revoked, ...). */
  public static final int EXIT_REFUSED = 3;

  /** The other players' names, by seat (with partnerships, the partner left out). */
  private static String opponents(MatchStart start) {
    List<String> names = new ArrayList<>();
    for (int seat = 0; seat < start.getPlayerNamesCount(); seat++) {
      if (seat != start.getSeat() && !(start.getPlayers() == 4 && seat == start.getPartner())) {
        names.add(start.getPlayerNames(seat));
      }
    }
    return names.isEmpty() ? start.getOpponentName() : String.join(", ", names);
  }

  /** Who won, by how much and how, e.g. "seat 0 won by 131 (target_reached)". */
  private static String resultText(MatchResult result) {
    String who = "no winner";
    if (result.hasWinner()) {
      who = "seat " + result.getWinner() + " won by " + result.getMargin();
    } else if (result.hasWinningTeam()) {
      who = "team " + result.getWinningTeam() + " won by " + result.getMargin();
    }
    String how = result.getTermination().name().replaceFirst("^TERMINATION_", "").toLowerCase();
    if (result.getTermination() == Termination.TERMINATION_FORFEIT) {
      how += ", " + result.getForfeit().getRule() + ": " + result.getForfeit().getReason();
    }
    return who + " (" + how + ")";
  }

  /** The lines a referee message is worth: a Welcome, a MatchStart or a MatchEnd; none else. */
  private static List<String> messageLines(RefereeMessage message) {
    if (message.hasWelcome()) {
      return List.of("connected to " + message.getWelcome().getRefereeVersion() + " as "
          + message.getWelcome().getBotName(), "waiting for a match");
    }
    if (message.hasMatchStart()) {
      MatchStart start = message.getMatchStart();
      return List.of("match " + start.getMatchId() + " started: seat " + start.getSeat()
          + " against " + opponents(start));
    }
    if (message.hasMatchEnd()) {
      return List.of("match " + message.getMatchEnd().getMatchId() + " ended: "
          + resultText(message.getMatchEnd().getResult()), "waiting for a match");
    }
    return List.of();
  }

  /** How a stream ended: the line to print and the exit code it calls for. */
  private record Ending(String line, int code) {}

  /** The end of the stream with status code (a name) and details. */
  private static Ending ending(String code, String details) {
    if (code.equals("OK")) {
      return new Ending("no more matches: the referee ended the stream (OK)", 0);
    }
    if (REFUSALS.contains(code)) {
      return new Ending("refused by the referee: " + code + ": " + details, EXIT_REFUSED);
    }
    return new Ending("the referee ended the stream: " + code + ": " + details, 1);
  }

  private static String formatFault(Fault fault) {
    String kind = fault.getKind().name().replaceFirst("^FAULT_KIND_", "");
    String then = fault.getRetry() ? "a new request follows" : "the match is forfeited";
    return "fault " + kind + " (" + fault.getRule() + ") on request " + fault.getRequestId()
        + ": " + fault.getMessage() + " -- " + then;
  }

  /**
   * Connects with the launch environment (GINREF_ADDRESS and GINREF_TOKEN; over TLS with
   * GINREF_CA_CERT and the other variables of a hosted referee: see BotConfig), plays until the
   * referee ends the stream and returns the process exit code: 0 the stream ended with status
   * OK (no more matches); 1 the connection failed, an error status, or the bot threw; 2 the
   * launch environment is missing or malformed; 3 (EXIT_REFUSED) the referee refused the bot.
   * With GINREF_MATCHES=n it plays on n streams at once, all with this bot, calling it for one
   * message at a time, and returns the worst code. On stderr it says what happens, one line a
   * step, in the words of every language's client (docs/writing-a-bot.md §9).
   */
  public static int run(Bot bot, String name, String version) throws InterruptedException {
    return runEach(() -> bot, name, version);
  }

  /**
   * As run, with a bot of its own for each stream (GINREF_MATCHES=n calls newBot n times): for
   * a bot whose state belongs to one match at a time. Calls are still made one at a time.
   */
  public static int runEach(Supplier<? extends Bot> newBot, String name, String version)
      throws InterruptedException {
    BotConfig config;
    try {
      config = new BotConfig(System.getenv());
    } catch (BotConfig.Invalid e) {
      System.err.println(name + ": " + e.getMessage());
      return 2;
    }
    return runEach(newBot, name, version, config);
  }

  /** As runEach, with a launch configuration the caller made (e.g. from its own settings). */
  public static int runEach(Supplier<? extends Bot> newBot, String name, String version,
      BotConfig config) throws InterruptedException {
    ManagedChannel channel;
    try {
      channel = config.channel();
    } catch (BotConfig.Invalid e) {
      System.err.println(name + ": " + e.getMessage());
      return 2;
    }
    Hello.Builder hello = Hello.newBuilder().setToken(config.token).setBotName(name)
        .setBotVersion(version).setProtocolVersion(1);
    if (config.matches > 1) {
      hello.setConcurrentMatches(config.matches);
    }
    BotMessage helloMessage = BotMessage.newBuilder().setHello(hello).build();
    // A referee that starts the bot listens before it does, so a plain-text bot waits for the
    // connection; over TLS (a hosted referee, already up) a failed handshake is reported at once.
    boolean wait = !config.tls();
    // One call at a time over every stream, so that a bot's state needs no lock.
    Object oneCall = new Object();
    int code;
    if (config.matches == 1) {
      code = play(channel, newBot.get(), oneCall, helloMessage, name, wait);
    } else {
      int[] codes = new int[config.matches];
      List<Thread> threads = new ArrayList<>();
      for (int i = 0; i < config.matches; i++) {
        int index = i;
        Bot bot = newBot.get();
        Thread thread = new Thread(() -> {
          try {
            codes[index] = play(channel, bot, oneCall, helloMessage, name, wait);
          } catch (InterruptedException e) {
            codes[index] = 1;
          }
        });
        thread.start();
        threads.add(thread);
      }
      code = 0;
      for (int i = 0; i < threads.size(); i++) {
        threads.get(i).join();
        code = Math.max(code, codes[i]);
      }
    }
    channel.shutdown();
    channel.awaitTermination(1, TimeUnit.SECONDS);
    return code;
  }

  /** Thrown by deliver when the bot throws: which callback it was, and what it threw. */
  private static final class BotFailed extends Exception {
    final String callback;

    BotFailed(String callback, RuntimeException cause) {
      super(cause);
      this.callback = callback;
    }
  }

  /**
   * Hands one referee message to the bot, under the lock: the events it brings first, then the
   * message itself; returns the bot's action for a DecisionRequest, null for any other message.
   */
  private static Action deliver(Bot bot, Object lock, RefereeMessage message) throws BotFailed {
    String callback = "";
    synchronized (lock) {
      try {
        switch (message.getKindCase()) {
          case MATCH_START -> {
            callback = "onMatchStart";
            bot.onMatchStart(message.getMatchStart());
          }
          case HAND_START -> {
            callback = "onHandStart";
            bot.onHandStart(message.getHandStart());
          }
          case EVENT -> {
            callback = "onEvent";
            bot.onEvent(message.getEvent());
          }
          case DECISION_REQUEST -> {
            callback = "onEvent";
            for (GameEvent event : message.getDecisionRequest().getNewEventsList()) {
              bot.onEvent(event);
            }
            callback = "decide";
            Action action = bot.decide(message.getDecisionRequest());
            if (action == null) {
              throw new NullPointerException("decide returned null");
            }
            return action;
          }
          case HAND_END -> {
            callback = "onHandEnd";
            bot.onHandEnd(message.getHandEnd());
          }
          case MATCH_END -> {
            callback = "onMatchEnd";
            bot.onMatchEnd(message.getMatchEnd());
          }
          case FAULT -> {
            callback = "onFault";
            bot.onFault(message.getFault());
          }
          default -> {
            // A Welcome, or a kind this client does not know: nothing for the bot.
          }
        }
      } catch (RuntimeException e) {
        throw new BotFailed(callback, e);
      }
    }
    return null;
  }

  /** One Play stream to its end; returns its exit code. */
  private static int play(ManagedChannel channel, Bot bot, Object lock, BotMessage hello,
      String name, boolean wait) throws InterruptedException {
    LinkedBlockingQueue<Event> inbox = new LinkedBlockingQueue<>();
    StreamObserver<RefereeMessage> receiver = new StreamObserver<>() {
      @Override
      public void onNext(RefereeMessage message) {
        inbox.add(new Event(message, null));
      }

      @Override
      public void onError(Throwable t) {
        inbox.add(new Event(null, Status.fromThrowable(t)));
      }

      @Override
      public void onCompleted() {
        inbox.add(new Event(null, Status.OK));
      }
    };
    RefereeGrpc.RefereeStub stub = RefereeGrpc.newStub(channel);
    if (wait) {
      stub = stub.withWaitForReady();
    }
    StreamObserver<BotMessage> sender = stub.play(receiver);
    sender.onNext(hello);
    int code = 0;
    // Decisions run on this thread, one at a time, in the order the messages arrived.
    while (true) {
      Event event = inbox.take();
      if (event.status() != null) {
        Status status = event.status();
        String details = "";
        if (status.isOk()) {
          sender.onCompleted();
        } else {
          // One line: Netty appends the channel's pipeline to a failed connection's description.
          String description = String.valueOf(status.getDescription()).split("\n", 2)[0];
          String cause = status.getCause() == null ? "" : " (" + status.getCause() + ")";
          details = description + cause.replace('\n', ' ');
        }
        Ending ending = ending(status.getCode().name(), details);
        System.err.println(name + ": " + ending.line());
        code = ending.code();
        break;
      }
      RefereeMessage message = event.message();
      for (String line : messageLines(message)) {
        System.err.println(name + ": " + line);
      }
      if (message.hasFault()) {
        System.err.println(name + ": " + formatFault(message.getFault()));
      }
      Action action;
      try {
        action = deliver(bot, lock, message);
      } catch (BotFailed e) {
        System.err.println(name + ": " + e.callback + " threw; leaving the stream");
        e.getCause().printStackTrace();
        sender.onError(Status.CANCELLED.withDescription("the bot failed").asException());
        code = 1;
        break;
      }
      if (action != null) {
        sender.onNext(BotMessage.newBuilder()
            .setActionReply(ActionReply.newBuilder()
                .setRequestId(message.getDecisionRequest().getRequestId()).setAction(action))
            .build());
      }
    }
    return code;
  }
}
