package org.ginref.bots;

import java.lang.reflect.Array;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * An agent of Neller's EAAI framework (a class implementing ginrummy.GinRummyPlayer), reached by
 * reflection so that this jar needs no copy of the framework: the user's own framework classes
 * and agent are loaded at run time, and the agent is called through the interface's ten methods.
 *
 * <p>Cards cross as the framework's own objects, those of ginrummy.Card.allCards, so that an agent
 * that compares cards by identity (the framework's game does: list.remove, ==) finds its own.
 * A card goes back to the wire as its toString(), which is the framework's "TD" notation and
 * ours (its suits are numbered C H S D, ours C D H S: only the names are shared).
 */
final class EaaiAgent {
  /** The agent or the framework cannot be loaded; the message is one line saying what to do. */
  static final class LoadError extends Exception {
    private static final long serialVersionUID = 1L;

    LoadError(String message) {
      super(message);
    }
  }

  /** The agent threw (or could not be called): the client prints it and leaves the stream. */
  static final class AgentFailed extends RuntimeException {
    private static final long serialVersionUID = 1L;

    AgentFailed(String method, Throwable cause) {
      super("the agent's " + method + " threw " + cause, cause);
    }
  }

  private static final String HOW = " (give the framework's and the agent's jars or class "
      + "directories with --classpath PATH; a sandboxed bot sees only its own directory and what "
      + "ginref match --bind PATH shows it)";

  private final Object agent;
  private final Class<?> cardClass;
  private final Map<String, Object> cards = new HashMap<>();
  private final Map<String, Method> methods = new HashMap<>();

  private EaaiAgent(Object agent, Class<?> cardClass) {
    this.agent = agent;
    this.cardClass = cardClass;
  }

  private static Class<?> find(ClassLoader loader, String name, String missing) throws LoadError {
    try {
      return Class.forName(name, true, loader);
    } catch (ClassNotFoundException e) {
      throw new LoadError(missing + HOW);
    } catch (LinkageError e) {
      throw new LoadError("cannot load " + name + ": " + e);
    }
  }

  /** The agent named className, built with no arguments as the framework builds its players. */
  static EaaiAgent load(ClassLoader loader, String className) throws LoadError {
    Class<?> player = find(loader, "ginrummy.GinRummyPlayer",
        "no ginrummy.GinRummyPlayer on the classpath: the EAAI framework is missing");
    Class<?> card = find(loader, "ginrummy.Card", "no ginrummy.Card on the classpath");
    Class<?> agentClass = find(loader, className, "no class " + className + " on the classpath");
    if (!player.isAssignableFrom(agentClass)) {
      throw new LoadError(className + " does not implement ginrummy.GinRummyPlayer");
    }
    Object instance;
    try {
      instance = agentClass.getConstructor().newInstance();
    } catch (NoSuchMethodException e) {
      throw new LoadError(className + " has no public constructor without arguments (the "
          + "framework builds its players with new " + agentClass.getSimpleName() + "())");
    } catch (InvocationTargetException e) {
      throw new LoadError("new " + className + "() threw " + e.getCause());
    } catch (ReflectiveOperationException e) {
      throw new LoadError("cannot build " + className + ": " + e);
    }
    EaaiAgent loaded = new EaaiAgent(instance, card);
    loaded.readCards();
    Class<?> cards = Array.newInstance(card, 0).getClass();
    loaded.method(player, "startGame", int.class, int.class, cards);
    loaded.method(player, "willDrawFaceUpCard", card);
    loaded.method(player, "reportDraw", int.class, card);
    loaded.method(player, "getDiscard");
    loaded.method(player, "reportDiscard", int.class, card);
    loaded.method(player, "getFinalMelds");
    loaded.method(player, "reportFinalMelds", int.class, ArrayList.class);
    loaded.method(player, "reportScores", int[].class);
    loaded.method(player, "reportLayoff", int.class, card, ArrayList.class);
    loaded.method(player, "reportFinalHand", int.class, ArrayList.class);
    return loaded;
  }

  private void readCards() throws LoadError {
    Object all;
    try {
      all = cardClass.getField("allCards").get(null);
    } catch (ReflectiveOperationException | RuntimeException e) {
      throw new LoadError("ginrummy.Card has no public static allCards: not the EAAI framework's");
    }
    int n = all instanceof Object[] array ? array.length : 0;
    for (int i = 0; i < n; i++) {
      Object card = ((Object[]) all)[i];
      cards.put(String.valueOf(card), card);
    }
    for (int index = 0; index < 52; index++) {
      if (!cards.containsKey(Cards.text(index))) {
        throw new LoadError("ginrummy.Card.allCards has no " + Cards.text(index)
            + ": the framework's cards are named like ginref's (\"TD\")");
      }
    }
  }

  private void method(Class<?> player, String name, Class<?>... types) throws LoadError {
    try {
      methods.put(name, player.getMethod(name, types));
    } catch (NoSuchMethodException e) {
      throw new LoadError("ginrummy.GinRummyPlayer has no " + name
          + ": not the EAAI framework's interface");
    }
  }

  private Object call(String name, Object... args) {
    try {
      return methods.get(name).invoke(agent, args);
    } catch (InvocationTargetException e) {
      throw new AgentFailed(name, e.getCause());
    } catch (ReflectiveOperationException e) {
      throw new AgentFailed(name, e);
    }
  }

  /** The framework's card of a wire card such as "TD". */
  Object card(String text) {
    Object card = cards.get(text);
    if (card == null) {
      throw new IllegalArgumentException("not a wire card: \"" + text + "\"");
    }
    return card;
  }

  /** The framework's cards of wire cards, in the same order. */
  ArrayList<Object> cards(List<String> texts) {
    ArrayList<Object> out = new ArrayList<>();
    for (String text : texts) {
      out.add(card(text));
    }
    return out;
  }

  /** The wire text of one of the agent's cards (null: "null", which the referee refuses). */
  static String text(Object card) {
    return String.valueOf(card);
  }

  void startGame(int playerNum, int startingPlayerNum, List<String> dealt) {
    Object array = Array.newInstance(cardClass, dealt.size());
    for (int i = 0; i < dealt.size(); i++) {
      Array.set(array, i, card(dealt.get(i)));
    }
    call("startGame", playerNum, startingPlayerNum, array);
  }

  boolean willDrawFaceUpCard(Object card) {
    return (Boolean) call("willDrawFaceUpCard", card);
  }

  void reportDraw(int playerNum, Object drawnCard) {
    call("reportDraw", playerNum, drawnCard);
  }

  Object getDiscard() {
    return call("getDiscard");
  }

  void reportDiscard(int playerNum, Object discardedCard) {
    call("reportDiscard", playerNum, discardedCard);
  }

  /** The agent's melds, each a new list of its cards; null when it returns null. */
  List<List<Object>> getFinalMelds() {
    Object melds = call("getFinalMelds");
    if (melds == null) {
      return null;
    }
    List<List<Object>> out = new ArrayList<>();
    for (Object meld : (List<?>) melds) {
      out.add(new ArrayList<>((List<?>) meld));
    }
    return out;
  }

  /** Reports melds as the framework does: a new list of new lists. */
  void reportFinalMelds(int playerNum, List<List<Object>> melds) {
    ArrayList<ArrayList<Object>> copy = new ArrayList<>();
    for (List<Object> meld : melds) {
      copy.add(new ArrayList<>(meld));
    }
    call("reportFinalMelds", playerNum, copy);
  }

  void reportScores(int[] scores) {
    call("reportScores", (Object) scores);
  }

  void reportLayoff(int playerNum, Object layoffCard, List<Object> opponentMeld) {
    call("reportLayoff", playerNum, layoffCard, new ArrayList<>(opponentMeld));
  }

  void reportFinalHand(int playerNum, List<String> hand) {
    call("reportFinalHand", playerNum, cards(hand));
  }
}
