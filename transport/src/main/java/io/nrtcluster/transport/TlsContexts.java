package io.nrtcluster.transport;

import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.nrtcluster.common.TlsConfigException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.Collection;
import java.util.Collections;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.TrustManagerFactory;

/**
 * The server and client {@link SslContext}s of one transport, built once from a {@link TlsConfig}.
 * Each piece of key material is loaded on its own first, so a failure names the file at fault.
 */
final class TlsContexts {
  final SslContext server;
  final SslContext client;

  private TlsContexts(SslContext server, SslContext client) {
    this.server = server;
    this.client = client;
  }

  static TlsContexts load(TlsConfig config) throws TlsConfigException {
    SslContextBuilder server;
    SslContextBuilder client;
    if (config.format() == TlsConfig.Format.KEY_STORE) {
      KeyStore keys = keyStore("keyStore", config.keyStore(), config.keyStorePassword());
      requirePrivateKey(config, keys);
      KeyStore trusted = keyStore("trustStore", config.trustStore(), config.trustStorePassword());
      KeyManagerFactory kmf = keyManagers(config, keys);
      TrustManagerFactory tmf = trustManagers(config, trusted);
      server = SslContextBuilder.forServer(kmf).trustManager(tmf);
      client = SslContextBuilder.forClient().keyManager(kmf).trustManager(tmf);
    } else {
      certificates("certChain", config.certChain());
      X509Certificate[] trusted = certificates("trustedCerts", config.trustedCerts());
      try {
        // Netty parses the key here; the certificates above parsed, so a failure is the key's.
        server = SslContextBuilder.forServer(config.certChain().toFile(), config.privateKey().toFile()).trustManager(trusted);
        client = SslContextBuilder.forClient().keyManager(config.certChain().toFile(), config.privateKey().toFile()).trustManager(trusted);
      } catch (RuntimeException e) {
        throw new TlsConfigException("transport.tls.privateKey: cannot use " + config.privateKey() + " (not an unencrypted "
            + "PKCS#8 PEM key, or not the key of certChain?): " + e.getMessage(), e);
      }
    }
    String[] protocols = config.protocols().toArray(new String[0]);
    server.sslProvider(SslProvider.JDK).protocols(protocols)
        .clientAuth(config.clientAuthRequired() ? ClientAuth.REQUIRE : ClientAuth.NONE);
    // Netty 4.2 verifies host names by default; the setting is explicit in TlsConfig, so say it here.
    client.sslProvider(SslProvider.JDK).protocols(protocols)
        .endpointIdentificationAlgorithm(config.hostnameVerification() ? "HTTPS" : null);
    return new TlsContexts(build(config, server, "server"), build(config, client, "client"));
  }

  private static SslContext build(TlsConfig config, SslContextBuilder builder, String side) throws TlsConfigException {
    try {
      return builder.build();
    } catch (IOException | RuntimeException e) {
      // Stores and certificates were loaded already: what is left to fail is the private key.
      String file = config.format() == TlsConfig.Format.PEM ? "transport.tls.privateKey " + config.privateKey()
          : "transport.tls.keyStore " + config.keyStore();
      throw new TlsConfigException("cannot set up the TLS " + side + " context from " + file + ": " + e.getMessage(), e);
    }
  }

  private static KeyStore keyStore(String field, Path file, String password) throws TlsConfigException {
    try {
      return KeyStore.getInstance(file.toFile(), password.toCharArray());
    } catch (IOException | GeneralSecurityException | RuntimeException e) {
      throw new TlsConfigException("transport.tls." + field + ": cannot load " + file + " (wrong password or not a "
          + "PKCS#12/JKS file?): " + e.getMessage(), e);
    }
  }

  private static void requirePrivateKey(TlsConfig config, KeyStore keys) throws TlsConfigException {
    try {
      for (String alias : Collections.list(keys.aliases())) {
        if (keys.isKeyEntry(alias)) {
          return;
        }
      }
    } catch (GeneralSecurityException e) {
      throw new TlsConfigException("transport.tls.keyStore: cannot read " + config.keyStore() + ": " + e.getMessage(), e);
    }
    throw new TlsConfigException("transport.tls.keyStore: " + config.keyStore() + " holds no private key (a node needs "
        + "its own key and certificate; trusted certificates belong in the trustStore)", null);
  }

  private static KeyManagerFactory keyManagers(TlsConfig config, KeyStore keys) throws TlsConfigException {
    try {
      KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      kmf.init(keys, config.keyStorePassword().toCharArray());
      return kmf;
    } catch (GeneralSecurityException e) {
      throw new TlsConfigException("transport.tls.keyStore: cannot use the key in " + config.keyStore() + ": "
          + e.getMessage(), e);
    }
  }

  private static TrustManagerFactory trustManagers(TlsConfig config, KeyStore trusted) throws TlsConfigException {
    try {
      TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(trusted);
      return tmf;
    } catch (GeneralSecurityException e) {
      throw new TlsConfigException("transport.tls.trustStore: cannot use " + config.trustStore() + ": "
          + e.getMessage(), e);
    }
  }

  private static X509Certificate[] certificates(String field, Path file) throws TlsConfigException {
    Collection<? extends Certificate> certs;
    try (InputStream in = Files.newInputStream(file)) {
      certs = CertificateFactory.getInstance("X.509").generateCertificates(in);
    } catch (IOException | GeneralSecurityException | RuntimeException e) {
      throw new TlsConfigException("transport.tls." + field + ": cannot read certificates from " + file + ": "
          + e.getMessage(), e);
    }
    if (certs.isEmpty()) {
      throw new TlsConfigException("transport.tls." + field + ": " + file + " holds no PEM certificate", null);
    }
    return certs.stream().map(X509Certificate.class::cast).toArray(X509Certificate[]::new);
  }
}
