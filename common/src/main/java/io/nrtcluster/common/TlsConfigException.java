package io.nrtcluster.common;

/**
 * Raised at startup when this node's TLS key material cannot be used: a keystore, truststore,
 * certificate chain, private key or trusted-certificate file that is missing, unreadable, has a
 * wrong password or does not parse. The message names the file.
 */
@Stable
public class TlsConfigException extends NrtClusterException {
  private static final long serialVersionUID = 1L;

  /** Creates one with {@code message}, which says what failed, and the failure that caused it. */
  public TlsConfigException(String message, Throwable cause) {
    super(ErrorCode.TLS_CONFIG, message, cause);
  }
}
