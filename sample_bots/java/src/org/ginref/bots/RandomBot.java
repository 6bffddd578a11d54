package org.ginref.bots;

import java.security.SecureRandom;
import java.util.List;
import org.ginref.ginrummy.v1.Action;

/**
 * The random bot in Java: answers every request with a uniformly random entry of legal_actions,
 * sent back unchanged. GINREF_BOT_SEED=&lt;integer&gt; makes its choices reproducible
 * (SplitMix64, the same generator as the JavaScript, C++ and Go random bots); otherwise it seeds
 * itself from the operating system. Run: sample_bots/java/out/random_bot
 */
public final class RandomBot {
  private RandomBot() {}

  public static void main(String[] args) throws InterruptedException {
    long[] state = new long[1];
    String text = System.getenv().getOrDefault("GINREF_BOT_SEED", "").trim();
    if (text.isEmpty()) {
      state[0] = new SecureRandom().nextLong();
    } else {
      try {
        state[0] = Long.parseLong(text);
      } catch (NumberFormatException e) {
        System.err.println("random-bot-java: GINREF_BOT_SEED=\"" + text
            + "\": expected an integer");
        System.exit(2);
      }
    }
    System.exit(BotClient.run(request -> {
      List<Action> legal = request.getLegalActionsList();
      return legal.get((int) Long.remainderUnsigned(Cards.splitMix64(state), legal.size()));
    }, "random-bot-java", "1.0.0"));
  }
}
