package org.ginref.bots;

import io.netty.handler.ssl.IdentityCipherSuiteFilter;
import io.netty.handler.ssl.JdkApplicationProtocolNegotiator;
import io.netty.handler.ssl.JdkSslClientContext;
import io.netty.handler.ssl.SslContext;
import java.io.File;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.util.List;
import java.util.Set;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;

/**
 * TLS for grpc-java through the JDK's own provider, on Debian's Netty.
 *
 * <p>gRPC needs ALPN to agree on HTTP/2 ("h2"). The JDK has done ALPN since Java 9, but Debian's
 * Netty 4.1.48 is built without the negotiator that asks it to (its JdkSslContext accepts no
 * ALPN configuration: "JDK provider does not support ALPN protocol"), so neither
 * TlsChannelCredentials nor GrpcSslContexts with SslProvider.JDK can make a context. The engine
 * that does the work, Netty's Java9SslEngine, is still in the jar; this negotiator creates it,
 * listing "h2" alone, which is what the missing class did. With a Netty that has it (any build
 * from Maven Central), GrpcSslContexts.forClient() is all a bot needs.
 */
@SuppressWarnings("deprecation") // Netty deprecates the negotiator interfaces, not replaced in 4.1
final class JdkAlpn implements JdkApplicationProtocolNegotiator {
  private static final List<String> H2 = List.of("h2");
  private final Constructor<?> engine;

  private JdkAlpn() throws SSLException {
    try {
      engine = Class.forName("io.netty.handler.ssl.Java9SslEngine").getDeclaredConstructor(
          SSLEngine.class, JdkApplicationProtocolNegotiator.class, boolean.class);
      engine.setAccessible(true);
    } catch (ReflectiveOperationException | RuntimeException e) {
      throw new SSLException("this Netty has no ALPN engine for the JDK's TLS (" + e + ")");
    }
  }

  /** A client context trusting the CA in caFile alone, presenting certFile and keyFile if given. */
  static SslContext clientContext(File caFile, File certFile, File keyFile) throws SSLException {
    return new JdkSslClientContext(caFile, null, certFile, keyFile, null, null, null,
        IdentityCipherSuiteFilter.INSTANCE, new JdkAlpn(), 0, 0);
  }

  @Override
  public List<String> protocols() {
    return H2;
  }

  @Override
  public SslEngineWrapperFactory wrapperFactory() {
    return (sslEngine, negotiator, isServer) -> {
      try {
        return (SSLEngine) engine.newInstance(sslEngine, negotiator, isServer);
      } catch (InvocationTargetException e) {
        throw new IllegalStateException(e.getCause());
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException(e);
      }
    };
  }

  @Override
  public ProtocolSelectorFactory protocolSelectorFactory() {
    // A client never selects: the server does.
    return (SSLEngine sslEngine, Set<String> protocols) -> {
      throw new UnsupportedOperationException("a client does not select the protocol");
    };
  }

  @Override
  public ProtocolSelectionListenerFactory protocolListenerFactory() {
    return (sslEngine, protocols) -> new ProtocolSelectionListener() {
      @Override
      public void unsupported() {
        // gRPC reports it: "Failed ALPN negotiation".
      }

      @Override
      public void selected(String protocol) throws Exception {
        if (!H2.contains(protocol)) {
          throw new SSLHandshakeException("the referee chose " + protocol + ", not h2");
        }
      }
    };
  }
}
