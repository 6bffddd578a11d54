package org.ginref.bots;

import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.ginref.ginrummy.v1.Action;
import org.ginref.ginrummy.v1.ActionReply;
import org.ginref.ginrummy.v1.BotMessage;
import org.ginref.ginrummy.v1.DecisionRequest;
import org.ginref.ginrummy.v1.Fault;
import org.ginref.ginrummy.v1.Hello;
import org.ginref.ginrummy.v1.RefereeGrpc;
import org.ginref.ginrummy.v1.RefereeMessage;

/**
 * Connects a Java bot to the ginref referee: launch contract, Play stream, decision loop.
 *
 * <p>The message and service classes (package org.ginref.ginrummy.v1) are generated from
 * proto/ginrummy/v1/ginrummy.proto by protoc and grpc_java_plugin at build time
 * (sample_bots/java/build); they are never committed.
 */
public final class BotClient {
  private BotClient() {}

  /** What the gRPC thread hands to the main thread: a message, or the end of the stream. */
  private record Event(RefereeMessage message, Status status) {}

  private static String formatFault(Fault fault) {
    String kind = fault.getKind().name().replaceFirst("^FAULT_KIND_", "");
    String then = fault.getRetry() ? "a new request follows" : "the match is forfeited";
    return "fault " + kind + " (" + fault.getRule() + ") on request " + fault.getRequestId()
        + ": " + fault.getMessage() + " -- " + then;
  }

  /**
   * Connects with GINREF_ADDRESS and GINREF_TOKEN, plays until the referee ends the stream and
   * returns the process exit code: 0 the stream ended with status OK; 1 an error status or
   * decide threw; 2 the launch environment is missing.
   */
  public static int run(Function<DecisionRequest, Action> decide, String name, String version)
      throws InterruptedException {
    String address = System.getenv().getOrDefault("GINREF_ADDRESS", "").trim();
    String token = System.getenv().getOrDefault("GINREF_TOKEN", "").trim();
    if (address.isEmpty() || token.isEmpty()) {
      System.err.println(name + ": GINREF_ADDRESS and GINREF_TOKEN must be set (the referee "
          + "sets them when it starts the bot)");
      return 2;
    }
    ManagedChannel channel = ManagedChannelBuilder.forTarget(address).usePlaintext().build();
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
    // withWaitForReady: the referee is listening before it starts the bot.
    StreamObserver<BotMessage> sender =
        RefereeGrpc.newStub(channel).withWaitForReady().play(receiver);
    sender.onNext(BotMessage.newBuilder()
        .setHello(Hello.newBuilder().setToken(token).setBotName(name).setBotVersion(version)
            .setProtocolVersion(1))
        .build());
    int code = 0;
    // Decisions run on this thread, one at a time, in the order the messages arrived.
    while (true) {
      Event event = inbox.take();
      if (event.status() != null) {
        if (event.status().isOk()) {
          sender.onCompleted();
        } else {
          System.err.println(name + ": the referee ended the stream: " + event.status());
          code = 1;
        }
        break;
      }
      RefereeMessage message = event.message();
      if (message.hasDecisionRequest()) {
        DecisionRequest request = message.getDecisionRequest();
        Action action;
        try {
          action = decide.apply(request);
        } catch (RuntimeException e) {
          System.err.println(name + ": decide threw; leaving the stream");
          e.printStackTrace();
          sender.onError(Status.CANCELLED.withDescription("the bot failed").asException());
          code = 1;
          break;
        }
        sender.onNext(BotMessage.newBuilder()
            .setActionReply(ActionReply.newBuilder()
                .setRequestId(request.getRequestId()).setAction(action))
            .build());
      } else if (message.hasFault()) {
        System.err.println(name + ": " + formatFault(message.getFault()));
      }
    }
    channel.shutdown();
    channel.awaitTermination(1, TimeUnit.SECONDS);
    return code;
  }
}
