import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import org.ginref.bots.Bot;
import org.ginref.bots.BotClient;
import org.ginref.bots.BotConfig;
import org.ginref.bots.GreedyBot;
import org.ginref.ginrummy.v1.Action;
import org.ginref.ginrummy.v1.DecisionRequest;
import org.ginref.ginrummy.v1.GameEvent;
import org.ginref.ginrummy.v1.HandEnd;
import org.ginref.ginrummy.v1.HandStart;
import org.ginref.ginrummy.v1.MatchEnd;
import org.ginref.ginrummy.v1.MatchStart;

/**
 * A test bot of tests/sample_bots/test_java_stream.py: plays as the greedy bot and logs every
 * callback on stderr ("stream: KIND ..."). It keeps its own hand and discard pile from HandStart
 * and the events alone, and at each decision compares them with the observation, logging
 * "stream: mismatch ..." if they differ: an event lost, repeated or late would show.
 */
public final class StreamLogBot implements Bot {
  private final List<String> hand = new ArrayList<>();
  private final List<String> pile = new ArrayList<>();
  private int seat;

  private static void log(String line) {
    System.err.println("stream: " + line);
  }

  @Override
  public void onMatchStart(MatchStart start) {
    seat = start.getSeat();
    log("match_start " + start.getMatchId());
  }

  @Override
  public void onHandStart(HandStart start) {
    hand.clear();
    hand.addAll(start.getHandList());
    pile.clear();
    if (!start.getUpcard().isEmpty()) {
      pile.add(start.getUpcard());
    }
    log("hand_start " + start.getHandNumber());
  }

  @Override
  public void onEvent(GameEvent event) {
    boolean mine = event.getSeat() == seat;
    String card = "";
    switch (event.getKindCase()) {
      case TAKE_UPCARD -> card = event.getTakeUpcard().getCard();
      case DRAW_DISCARD -> card = event.getDrawDiscard().getCard();
      case DRAW_STOCK -> card = event.getDrawStock().getCard();
      case DISCARD -> card = event.getDiscard().getCard();
      default -> { }
    }
    switch (event.getKindCase()) {
      case TAKE_UPCARD, DRAW_DISCARD -> {
        pile.remove(pile.size() - 1);
        if (mine) {
          hand.add(card);
        }
      }
      case DRAW_STOCK -> {
        if (mine) {
          hand.add(card);
        }
      }
      case DISCARD -> {
        pile.add(card);
        if (mine) {
          hand.remove(card);
        }
      }
      default -> { }
    }
    log("event " + event.getKindCase().name().toLowerCase() + " " + event.getSeat());
  }

  @Override
  public Action decide(DecisionRequest request) {
    List<String> seen = request.getObservation().getHandList();
    List<String> seenPile = request.getObservation().getDiscardPileList();
    if (!new HashSet<>(seen).equals(new HashSet<>(hand)) || seen.size() != hand.size()) {
      log("mismatch hand " + hand + " observed " + seen);
    }
    if (!seenPile.equals(pile)) {
      log("mismatch pile " + pile + " observed " + seenPile);
    }
    log("decide " + request.getObservation().getPhase().name().toLowerCase());
    return GreedyBot.decide(request);
  }

  @Override
  public void onHandEnd(HandEnd end) {
    log("hand_end " + end.getResult().getHandNumber());
  }

  @Override
  public void onMatchEnd(MatchEnd end) {
    log("match_end " + end.getMatchId());
  }

  public static void main(String[] args) throws Exception {
    // The configuration class is public: read the launch environment here, as a bot with
    // settings of its own would.
    BotConfig config;
    try {
      config = new BotConfig(System.getenv());
    } catch (BotConfig.Invalid e) {
      System.err.println("stream-log-bot: " + e.getMessage());
      System.exit(2);
      return;
    }
    System.exit(BotClient.runEach(StreamLogBot::new, "stream-log-bot", "1.0", config));
  }
}
