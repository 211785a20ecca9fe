package io.nrtcluster.cli;

import io.nrtcluster.cli.Main.CliException;
import io.nrtcluster.transport.TlsConfig;
import io.nrtcluster.transport.TransportConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * The TLS options of {@code nrt node}: PEM files or PKCS#12/JKS stores, mutual authentication
 * always, hostname verification chosen explicitly. Store passwords come from a file or an
 * environment variable, never from the command line (where {@code ps} would show them).
 */
final class TlsOptions {
  static final String PASSWORD_ENV = "NRT_TLS_PASSWORD";

  @Option(names = "--tls-cert", paramLabel = "FILE",
      description = "TLS: this node's PEM certificate chain (with --tls-key and --tls-ca).")
  Path cert;

  @Option(names = "--tls-key", paramLabel = "FILE", description = "TLS: this node's unencrypted PEM PKCS#8 private key.")
  Path key;

  @Option(names = "--tls-ca", paramLabel = "FILE", description = "TLS: PEM certificates of the authorities to trust.")
  Path ca;

  @Option(names = "--tls-keystore", paramLabel = "FILE",
      description = "TLS: this node's PKCS#12 or JKS key store (with --tls-truststore), instead of PEM files.")
  Path keyStore;

  @Option(names = "--tls-truststore", paramLabel = "FILE", description = "TLS: PKCS#12 or JKS store of trusted certificates.")
  Path trustStore;

  @Option(names = "--tls-password-file", paramLabel = "FILE",
      description = "TLS: file whose first line is the password of both stores (default: environment variable "
          + PASSWORD_ENV + ").")
  Path passwordFile;

  @Option(names = "--tls-hostname-verification", paramLabel = "true|false", arity = "1",
      description = "TLS: required with TLS. true: refuse a node whose certificate does not name the address it is "
          + "dialled at; false: accept any certificate a trusted authority signed.")
  Boolean hostnameVerification;

  /** The transport settings with TLS as the options say (unchanged without TLS options). */
  TransportConfig apply(TransportConfig transport, CommandLine cmd, Map<String, String> env) {
    boolean pem = cert != null || key != null || ca != null;
    boolean stores = keyStore != null || trustStore != null;
    if (!pem && !stores) {
      if (hostnameVerification != null || passwordFile != null) {
        throw new ParameterException(cmd, "--tls-hostname-verification and --tls-password-file need TLS: "
            + "--tls-cert/--tls-key/--tls-ca or --tls-keystore/--tls-truststore");
      }
      return transport;
    }
    if (pem && stores) {
      throw new ParameterException(cmd, "give either --tls-cert/--tls-key/--tls-ca or --tls-keystore/--tls-truststore, not both");
    }
    if (pem && (cert == null || key == null || ca == null)) {
      throw new ParameterException(cmd, "PEM TLS needs all of --tls-cert, --tls-key and --tls-ca");
    }
    if (stores && (keyStore == null || trustStore == null)) {
      throw new ParameterException(cmd, "store TLS needs both --tls-keystore and --tls-truststore");
    }
    if (hostnameVerification == null) {
      throw new ParameterException(cmd, "with TLS, --tls-hostname-verification true|false must be given");
    }
    TlsConfig.Builder tls = TlsConfig.builder().hostnameVerification(hostnameVerification);
    if (pem) {
      tls.pem(cert, key, ca);
    } else {
      String password = password(env);
      tls.keyStore(keyStore, password).trustStore(trustStore, password);
    }
    try {
      return transport.toBuilder().tls(tls.build()).build();
    } catch (IllegalArgumentException e) {
      throw new CliException(e.getMessage(), e);
    }
  }

  private String password(Map<String, String> env) {
    if (passwordFile != null) {
      try {
        return Files.readAllLines(passwordFile).stream().findFirst().orElse("");
      } catch (IOException e) {
        throw new CliException("--tls-password-file " + passwordFile + " is not readable: " + Main.describe(e), e);
      }
    }
    String fromEnv = env.get(PASSWORD_ENV);
    if (fromEnv == null) {
      throw new CliException("TLS key stores need a password: --tls-password-file FILE or the environment variable "
          + PASSWORD_ENV);
    }
    return fromEnv;
  }
}
