package org.ginref.bots;

import java.io.File;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.ginref.ginrummy.v1.Action;
import org.ginref.ginrummy.v1.Action.KindCase;
import org.ginref.ginrummy.v1.Arrangement;
import org.ginref.ginrummy.v1.DecisionRequest;
import org.ginref.ginrummy.v1.DefenderPlay;
import org.ginref.ginrummy.v1.Discard;
import org.ginref.ginrummy.v1.GameEvent;
import org.ginref.ginrummy.v1.HandEnd;
import org.ginref.ginrummy.v1.HandStart;
import org.ginref.ginrummy.v1.Knock;
import org.ginref.ginrummy.v1.Layoff;
import org.ginref.ginrummy.v1.MatchStart;
import org.ginref.ginrummy.v1.Meld;
import org.ginref.ginrummy.v1.SeatCards;
import org.ginref.ginrummy.v1.SeatScore;
import org.ginref.ginrummy.v1.Showdown;

/**
 * Plays an agent of Neller's EAAI framework (a class implementing ginrummy.GinRummyPlayer) as a
 * ginref bot, unchanged; the Java twin of sample_bots/eaai_bridge.py, which plays agents of the
 * framework's Python port.
 *
 * <pre>
 * sample_bots/java/out/eaai_bridge [--classpath PATH]... [--name NAME] CLASS
 * java -cp sample_bots/java/out/ginref-bots.jar:framework.jar:agent.jar \
 *     org.ginref.bots.EaaiBridge CLASS
 * </pre>
 *
 * <p>The framework's classes and the agent come from the classpath the user gives (their own
 * copy of the framework: this jar holds none), and the agent is built once with no arguments,
 * as the framework builds its players once for all its games. The calls come in the order of
 * the framework's GinRummyGame.play, one hand being one of its games (profile neller-eaai,
 * docs/rules.md §12.6): startGame(seat, non-dealer, dealt cards); willDrawFaceUpCard when the
 * agent may take the face-up card (not for the stock draw that follows two declined upcards);
 * reportDraw of each draw to the agent (the opponent's stock draw as null); after its own draw
 * getDiscard, reportDiscard of it, then getFinalMelds: melds mean a knock with them and that
 * discard (face up), null a plain discard; a card it may not discard is sent as it is, and the
 * referee refuses it as the framework forfeits it. After a knock: the knocker's discard and
 * melds (reportDiscard, reportFinalMelds), the defender's getFinalMelds (its own melds: the
 * referee lays off the rest as the framework does) and melds, each layoff with the meld as it
 * was before the card; at the hand's end reportFinalHand of seat 0 then seat 1, then
 * reportScores with the match scores. The knocker's melds reach the opponent in ginref's order
 * (sets, then runs), not in the order the knocker declared them.
 */
public final class EaaiBridge implements Bot {
  static final String PROG = "eaai-bridge";
  private static final String USAGE =
      "usage: eaai_bridge [--classpath PATH]... [--name NAME] CLASS";

  private final EaaiAgent agent;
  private int seat;
  private boolean knockDiscardFaceUp = true;
  // The agent's own melds as it returned them, reported back to it unchanged as the framework
  // does (the wire shows them in ginref's order); null: the referee arranged.
  private List<List<Object>> knockMelds;
  private List<List<Object>> defenderMelds = List.of();
  // The opponent's knock, reported when the pile it discarded onto is known (the defender's
  // request, or the showdown).
  private GameEvent pendingKnock;

  EaaiBridge(EaaiAgent agent) {
    this.agent = agent;
  }

  @Override
  public void onMatchStart(MatchStart start) {
    if (!start.getRules().getProfile().equals("neller-eaai")) {
      System.err.println(PROG + ": this match plays " + start.getRules().getProfile()
          + "; the EAAI framework's game is neller-eaai (ginref match -p neller-eaai)");
    }
    knockDiscardFaceUp =
        start.getRules().getParamsOrDefault("knock_discard", "").equals("face_up");
  }

  @Override
  public void onHandStart(HandStart start) {
    seat = start.getHandSeat();
    pendingKnock = null;
    knockMelds = null;
    agent.startGame(seat, 1 - start.getDealer(), start.getHandList());
  }

  @Override
  public void onEvent(GameEvent event) {
    int who = event.getSeat();
    switch (event.getKindCase()) {
      case TAKE_UPCARD -> draw(who, event.getTakeUpcard().getCard());
      case DRAW_DISCARD -> draw(who, event.getDrawDiscard().getCard());
      case DRAW_STOCK -> draw(who, event.getDrawStock().getCard());
      case DISCARD -> {
        if (who != seat) { // the agent's own was reported as it discarded
          agent.reportDiscard(who, agent.card(event.getDiscard().getCard()));
        }
      }
      case KNOCK -> {
        if (who == seat) { // its discard was reported as it was made
          agent.reportFinalMelds(who, knockMelds != null ? knockMelds
              : melds(event.getKnock().getArrangement().getMeldsList()));
        } else {
          pendingKnock = event;
        }
      }
      case SHOWDOWN -> showdown(event.getShowdown());
      default -> {
        // Passes, and what the framework's game has no call for.
      }
    }
  }

  private void draw(int who, String card) {
    agent.reportDraw(who, card.isEmpty() ? null : agent.card(card));
  }

  /** The opponent's knock: its face-up discard (topCard, "" if unknown), then its melds. */
  private void reportKnock(String topCard) {
    if (pendingKnock == null) {
      return;
    }
    int knocker = pendingKnock.getSeat();
    if (knockDiscardFaceUp && !topCard.isEmpty()) {
      agent.reportDiscard(knocker, agent.card(topCard));
    }
    agent.reportFinalMelds(knocker, melds(pendingKnock.getKnock().getArrangement().getMeldsList()));
    pendingKnock = null;
  }

  private List<List<Object>> melds(List<Meld> melds) {
    List<List<Object>> out = new ArrayList<>();
    for (Meld meld : melds) {
      out.add(agent.cards(meld.getCardsList()));
    }
    return out;
  }

  private void showdown(Showdown show) {
    reportKnock(show.getKnockDiscard());
    int defender = 1 - show.getKnocker();
    agent.reportFinalMelds(defender,
        defender == seat ? defenderMelds : melds(show.getDefenderMeldsList()));
    List<List<Object>> targets = melds(show.getKnockerArrangement().getMeldsList());
    for (Layoff layoff : show.getLayoffsList()) {
      Object card = agent.card(layoff.getCard());
      List<Object> meld = targets.get(layoff.getMeldIndex());
      agent.reportLayoff(defender, card, meld);
      meld.add(card);
    }
  }

  @Override
  public void onHandEnd(HandEnd end) {
    List<SeatCards> hands = end.getResult().getFinalHandsList();
    for (int held = 0; held < hands.size(); held++) {
      agent.reportFinalHand(held, hands.get(held).getCardsList());
    }
    int[] scores = end.getScoresList().stream().mapToInt(SeatScore::getPoints).toArray();
    agent.reportScores(scores);
  }

  @Override
  public Action decide(DecisionRequest request) {
    List<String> pile = request.getObservation().getDiscardPileList();
    reportKnock(pile.isEmpty() ? "" : pile.get(pile.size() - 1));
    Map<KindCase, List<Action>> byKind = new EnumMap<>(KindCase.class);
    for (Action action : request.getLegalActionsList()) {
      byKind.computeIfAbsent(action.getKindCase(), k -> new ArrayList<>()).add(action);
    }
    if (byKind.containsKey(KindCase.DEFENDER_PLAY)) {
      List<List<Object>> melds = agent.getFinalMelds();
      // null, which the framework cannot take from a defender, counts as no melds.
      defenderMelds = melds == null ? List.of() : melds;
      return Action.newBuilder()
          .setDefenderPlay(DefenderPlay.newBuilder().addAllMelds(wireMelds(defenderMelds)))
          .build();
    }
    if (byKind.containsKey(KindCase.DISCARD) || byKind.containsKey(KindCase.KNOCK)) {
      return discard(byKind);
    }
    if (byKind.containsKey(KindCase.DRAW_DISCARD) && !pile.isEmpty()) {
      if (agent.willDrawFaceUpCard(agent.card(pile.get(pile.size() - 1)))) {
        return byKind.get(KindCase.DRAW_DISCARD).get(0);
      }
      for (KindCase declined : new KindCase[] {KindCase.DRAW_STOCK, KindCase.PASS_OFFER}) {
        if (byKind.containsKey(declined)) {
          return byKind.get(declined).get(0);
        }
      }
    }
    if (byKind.containsKey(KindCase.DRAW_STOCK)) { // after two declined upcards: nobody asked
      return byKind.get(KindCase.DRAW_STOCK).get(0);
    }
    // What the framework's game has no call for (other profiles: the wall, the choice of
    // dealer, big gin): the first legal action.
    return request.getLegalActions(0);
  }

  private Action discard(Map<KindCase, List<Action>> byKind) {
    Object card = agent.getDiscard();
    String text = EaaiAgent.text(card);
    Set<String> allowed = new HashSet<>();
    for (Action action : byKind.getOrDefault(KindCase.DISCARD, List.of())) {
      allowed.add(action.getDiscard().getCard());
    }
    for (Action action : byKind.getOrDefault(KindCase.KNOCK, List.of())) {
      allowed.add(action.getKnock().getDiscard());
    }
    Action plain = Action.newBuilder().setDiscard(Discard.newBuilder().setCard(text)).build();
    if (!allowed.contains(text)) {
      return plain; // refused by the referee, as the framework forfeits it
    }
    agent.reportDiscard(seat, card);
    List<List<Object>> melds = agent.getFinalMelds();
    if (melds == null && byKind.containsKey(KindCase.DISCARD)) {
      return plain;
    }
    // Only when the rules leave no plain discard (must_knock, not in the framework's game) does
    // a knock go without the agent's melds: the referee then arranges (R5.4).
    knockMelds = melds;
    Knock.Builder knock = Knock.newBuilder().setDiscard(text);
    if (melds != null) { // present even with no melds: the agent's own
      knock.setArrangement(Arrangement.newBuilder().addAllMelds(wireMelds(melds)));
    }
    return Action.newBuilder().setKnock(knock).build();
  }

  private static List<Meld> wireMelds(List<List<Object>> melds) {
    List<Meld> out = new ArrayList<>();
    for (List<Object> meld : melds) {
      Meld.Builder wire = Meld.newBuilder();
      for (Object card : meld) {
        wire.addCards(EaaiAgent.text(card));
      }
      out.add(wire.build());
    }
    return out;
  }

  /** The loader of the agent and the framework: --classpath's entries, else the JVM's own. */
  private static ClassLoader loader(List<String> classpath) throws EaaiAgent.LoadError {
    List<URL> urls = new ArrayList<>();
    for (String entry : classpath) {
      File file = new File(entry);
      if (!file.exists()) {
        throw new EaaiAgent.LoadError("--classpath " + entry + ": no such file or directory "
            + "(a sandboxed bot sees only its own directory and what ginref match --bind PATH "
            + "shows it)");
      }
      try {
        urls.add(file.toURI().toURL());
      } catch (MalformedURLException e) {
        throw new EaaiAgent.LoadError("--classpath " + entry + ": " + e.getMessage());
      }
    }
    ClassLoader own = EaaiBridge.class.getClassLoader();
    return urls.isEmpty() ? own : new URLClassLoader(urls.toArray(new URL[0]), own);
  }

  /** Loads the agent, then plays with the launch environment; the exit code. */
  static int run(String[] args) throws InterruptedException {
    List<String> classpath = new ArrayList<>();
    String name = null;
    String className = null;
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      if ((arg.equals("--classpath") || arg.equals("--name")) && i + 1 < args.length) {
        if (arg.equals("--name")) {
          name = args[++i];
        } else {
          for (String entry : args[++i].split(File.pathSeparator)) {
            if (!entry.isEmpty()) {
              classpath.add(entry);
            }
          }
        }
      } else if (arg.startsWith("-") || className != null) {
        System.err.println(PROG + ": " + (arg.startsWith("-") ? "unknown option or missing "
            + "value: " + arg : "one agent class, not two: " + arg) + "; " + USAGE);
        return 2;
      } else {
        className = arg;
      }
    }
    if (className == null) {
      System.err.println(PROG + ": which agent? " + USAGE);
      return 2;
    }
    if (name == null) {
      name = className.substring(className.lastIndexOf('.') + 1);
    }
    EaaiAgent agent;
    BotConfig config;
    try {
      agent = EaaiAgent.load(loader(classpath), className);
      config = new BotConfig(System.getenv());
    } catch (EaaiAgent.LoadError | BotConfig.Invalid e) {
      System.err.println(name + ": " + e.getMessage());
      return 2;
    }
    if (config.matches > 1) {
      // One agent, whose calls must not interleave between matches.
      System.err.println(name + ": GINREF_MATCHES=" + config.matches
          + ": an EAAI agent plays one match at a time");
      return 2;
    }
    EaaiBridge bridge = new EaaiBridge(agent);
    return BotClient.runEach(() -> bridge, name, "1.0.0", config);
  }

  public static void main(String[] args) throws InterruptedException {
    System.exit(run(args));
  }
}
