package org.ginref.bots;

import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.netty.NettyChannelBuilder;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Paths;
import java.util.Map;
import javax.net.ssl.SSLException;

/**
 * The launch environment: where the referee is, the token, and for a hosted referee the TLS
 * files and how many matches to play at once. The variables are those of sample_bots/client.py,
 * with the same meaning and the same errors: each is one line, and the bot exits with 2. Public,
 * so that a bot with a main of its own can read the environment (new BotConfig(System.getenv()))
 * or from a map of its own settings, and hand it to BotClient.runEach.
 */
public final class BotConfig {
  /** More streams than this is surely a typo. */
  public static final int MAX_STREAMS = 64;

  /** A launch environment that is missing or malformed; the message is one line. */
  public static final class Invalid extends Exception {
    private static final long serialVersionUID = 1L;

    Invalid(String message) {
      super(message);
    }
  }

  public final String address;
  public final String token;
  public final String caCert; // TLS, trusting this CA alone ("": plain text)
  public final String clientCert; // with clientKey: mutual TLS
  public final String clientKey;
  public final String serverName; // the name the referee's certificate must carry ("": the host's)
  public final int matches; // streams at once, one match each

  private static String get(Map<String, String> env, String name) {
    return env.getOrDefault(name, "").trim();
  }

  /** The launch contract read from env (System.getenv() for the process's own). */
  public BotConfig(Map<String, String> env) throws Invalid {
    address = get(env, "GINREF_ADDRESS");
    token = get(env, "GINREF_TOKEN");
    caCert = get(env, "GINREF_CA_CERT");
    clientCert = get(env, "GINREF_CLIENT_CERT");
    clientKey = get(env, "GINREF_CLIENT_KEY");
    serverName = get(env, "GINREF_SERVER_NAME");
    if (address.isEmpty() || token.isEmpty()) {
      throw new Invalid("GINREF_ADDRESS and GINREF_TOKEN must be set (the referee sets them "
          + "when it starts the bot; a hosted referee's organiser gives them to you)");
    }
    if (clientCert.isEmpty() != clientKey.isEmpty()) {
      throw new Invalid(
          "GINREF_CLIENT_CERT and GINREF_CLIENT_KEY go together: set both or neither");
    }
    if (!clientCert.isEmpty() && caCert.isEmpty()) {
      throw new Invalid("GINREF_CLIENT_CERT needs GINREF_CA_CERT: a client certificate is for TLS");
    }
    String text = get(env, "GINREF_MATCHES");
    if (text.isEmpty()) {
      text = "1";
    }
    int n = text.matches("[0-9]{1,3}") ? Integer.parseInt(text) : 0;
    if (n < 1 || n > MAX_STREAMS) {
      throw new Invalid("GINREF_MATCHES=\"" + text + "\": expected a whole number, 1 to "
          + MAX_STREAMS);
    }
    matches = n;
  }

  /** Whether the connection uses TLS: GINREF_CA_CERT is set. */
  public boolean tls() {
    return !caCert.isEmpty();
  }

  /** The file a variable names, checked to hold a PEM block of that kind. */
  private static String readPem(String variable, String path, String what, String mark)
      throws Invalid {
    byte[] data;
    try {
      data = Files.readAllBytes(Paths.get(path));
    } catch (NoSuchFileException e) {
      throw new Invalid("cannot read " + variable + " \"" + path + "\": No such file or directory");
    } catch (AccessDeniedException e) {
      throw new Invalid("cannot read " + variable + " \"" + path + "\": Permission denied");
    } catch (IOException e) {
      throw new Invalid("cannot read " + variable + " \"" + path + "\": " + e.getMessage());
    }
    String text = new String(data, StandardCharsets.ISO_8859_1);
    if (!text.contains(mark)) {
      throw new Invalid(variable + " \"" + path + "\" is not a PEM " + what);
    }
    return text;
  }

  /**
   * A channel to the referee: plain text, or TLS through the JDK's own provider (see JdkAlpn)
   * when GINREF_CA_CERT is set, its files read now.
   */
  public ManagedChannel channel() throws Invalid {
    if (!tls()) {
      return ManagedChannelBuilder.forTarget(address).usePlaintext().build();
    }
    readPem("GINREF_CA_CERT", caCert, "certificate", "-----BEGIN CERTIFICATE-----");
    File cert = null;
    File key = null;
    if (!clientCert.isEmpty()) {
      readPem("GINREF_CLIENT_CERT", clientCert, "certificate", "-----BEGIN CERTIFICATE-----");
      String pem = readPem("GINREF_CLIENT_KEY", clientKey, "private key", "PRIVATE KEY-----");
      if (!pem.contains("-----BEGIN PRIVATE KEY-----")) {
        throw new Invalid("GINREF_CLIENT_KEY \"" + clientKey + "\" is not a PKCS#8 key (BEGIN "
            + "PRIVATE KEY), the only form Java reads: convert it with openssl pkcs8 -topk8 "
            + "-nocrypt -in " + clientKey + " -out " + clientKey + ".pk8");
      }
      cert = new File(clientCert);
      key = new File(clientKey);
    }
    NettyChannelBuilder builder;
    try {
      builder = NettyChannelBuilder.forTarget(address)
          .sslContext(JdkAlpn.clientContext(new File(caCert), cert, key));
    } catch (SSLException | IllegalArgumentException e) {
      // The JDK reads PKCS#8 keys only ("BEGIN PRIVATE KEY").
      String files = "GINREF_CA_CERT \"" + caCert + "\"" + (clientCert.isEmpty() ? ""
          : ", GINREF_CLIENT_CERT \"" + clientCert + "\" and GINREF_CLIENT_KEY \"" + clientKey
              + "\"");
      throw new Invalid("cannot use " + files + ": " + e.getMessage());
    }
    if (!serverName.isEmpty()) {
      builder.overrideAuthority(serverName);
    }
    return builder.build();
  }
}
