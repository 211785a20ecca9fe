package io.nrtcluster.transport;

import io.nrtcluster.common.Checks;
import io.nrtcluster.common.Internal;
import io.nrtcluster.common.Stable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

/**
 * TLS settings of one {@link Transport}: with them, every connection the transport accepts or opens
 * is encrypted, and (by default) both ends must show a certificate signed by a trusted authority,
 * so only holders of the cluster's certificates can replicate. Built with {@link #builder()}, which
 * validates every field and names the offending one; the key material itself is loaded (and a
 * wrong password or a file that does not parse reported with its name) when the transport starts.
 *
 * <p>Key material comes in one of two forms, never both:
 *
 * <ul>
 *   <li>{@link Builder#keyStore keyStore} and {@link Builder#trustStore trustStore}: PKCS#12 or JKS
 *       files (the type is detected) with their passwords;
 *   <li>{@link Builder#pem PEM} files: this node's certificate chain, its unencrypted PKCS#8
 *       private key (protect it with file permissions) and the trusted CA certificates.
 * </ul>
 *
 * <p>Passwords are never part of {@link #toString()}.
 *
 * @param keyStore this node's key and certificate chain (PKCS#12 or JKS), or null with PEM
 * @param keyStorePassword password of {@code keyStore} (and of the key in it)
 * @param trustStore certificates of the authorities whose peers are trusted, or null with PEM
 * @param trustStorePassword password of {@code trustStore}
 * @param certChain PEM certificate chain of this node, leaf first, or null with key stores
 * @param privateKey unencrypted PEM PKCS#8 private key of {@code certChain}'s leaf, or null with key stores
 * @param trustedCerts PEM certificates of the trusted authorities, or null with key stores
 * @param clientAuthRequired the server refuses a client that shows no trusted certificate (mutual
 *     authentication); default true
 * @param hostnameVerification the client refuses a server whose certificate does not name the host
 *     it connected to; no default, it must be chosen
 * @param protocols TLS protocol versions allowed, default TLSv1.3 only
 */
@Stable
public record TlsConfig(
    Path keyStore,
    String keyStorePassword,
    Path trustStore,
    String trustStorePassword,
    Path certChain,
    Path privateKey,
    Path trustedCerts,
    boolean clientAuthRequired,
    boolean hostnameVerification,
    List<String> protocols) {

  /** Protocol versions a node may allow: older ones are broken. */
  public static final Set<String> SUPPORTED_PROTOCOLS = Set.of("TLSv1.2", "TLSv1.3");

  /** Which form the key material takes. */
  public enum Format {
    /** PKCS#12 or JKS key store and trust store. */
    KEY_STORE,
    /** PEM certificate chain, private key and trusted certificates. */
    PEM
  }

  /** Canonical constructor: validates; services build through {@link Builder}, which may gain fields. */
  @Internal
  public TlsConfig {
    boolean stores = keyStore != null || trustStore != null;
    boolean pem = certChain != null || privateKey != null || trustedCerts != null;
    if (stores && pem) {
      throw new IllegalArgumentException(
          "transport.tls: give either keyStore and trustStore or PEM certChain, privateKey and trustedCerts, not both");
    }
    if (!stores && !pem) {
      throw new IllegalArgumentException(
          "transport.tls: key material must be set: keyStore and trustStore, or PEM certChain, privateKey and trustedCerts");
    }
    if (stores) {
      readable("transport.tls.keyStore", keyStore);
      Checks.notNull("transport.tls.keyStorePassword", keyStorePassword);
      readable("transport.tls.trustStore", trustStore);
      Checks.notNull("transport.tls.trustStorePassword", trustStorePassword);
    } else {
      readable("transport.tls.certChain", certChain);
      readable("transport.tls.privateKey", privateKey);
      readable("transport.tls.trustedCerts", trustedCerts);
    }
    Checks.notNull("transport.tls.protocols", protocols);
    protocols = List.copyOf(protocols);
    if (protocols.isEmpty() || !SUPPORTED_PROTOCOLS.containsAll(protocols)) {
      throw new IllegalArgumentException(
          "transport.tls.protocols must be a non-empty subset of " + SUPPORTED_PROTOCOLS + ", got " + protocols);
    }
  }

  private static void readable(String field, Path file) {
    Checks.notNull(field, file);
    if (!Files.isRegularFile(file)) {
      throw new IllegalArgumentException(field + ": " + file + " does not exist or is not a file");
    }
    if (!Files.isReadable(file)) {
      throw new IllegalArgumentException(field + ": " + file + " is not readable");
    }
  }

  /** Whether the keys and trust anchors come from a key store or from PEM files. */
  public Format format() {
    return keyStore != null ? Format.KEY_STORE : Format.PEM;
  }

  /** A builder with nothing set; {@link Builder#build()} requires one of the two formats, whole. */
  public static Builder builder() {
    return new Builder();
  }

  @Override
  public String toString() {
    return format() == Format.KEY_STORE
        ? "TlsConfig[keyStore=" + keyStore + ", trustStore=" + trustStore + common()
        : "TlsConfig[certChain=" + certChain + ", privateKey=" + privateKey + ", trustedCerts=" + trustedCerts + common();
  }

  private String common() {
    return ", clientAuthRequired=" + clientAuthRequired + ", hostnameVerification=" + hostnameVerification
        + ", protocols=" + protocols + "]";
  }

  /**
   * Builds a validated {@link TlsConfig}. {@link #hostnameVerification(boolean)} has no default:
   * whether a client checks the server's host name against its certificate is a decision about how
   * certificates are issued, so {@link #build()} fails until it is made.
   */
  public static final class Builder {
    private Path keyStore;
    private String keyStorePassword;
    private Path trustStore;
    private String trustStorePassword;
    private Path certChain;
    private Path privateKey;
    private Path trustedCerts;
    private boolean clientAuthRequired = true;
    private Boolean hostnameVerification;
    private List<String> protocols = List.of("TLSv1.3");

    /** This node's key and certificate chain: a PKCS#12 or JKS file and its password. */
    public Builder keyStore(Path file, String password) {
      keyStore = file;
      keyStorePassword = password;
      return this;
    }

    /** Trusted authorities: a PKCS#12 or JKS file of certificates and its password. */
    public Builder trustStore(Path file, String password) {
      trustStore = file;
      trustStorePassword = password;
      return this;
    }

    /** PEM files: this node's certificate chain, its PKCS#8 private key, the trusted CA certificates. */
    public Builder pem(Path certChain, Path privateKey, Path trustedCerts) {
      this.certChain = certChain;
      this.privateKey = privateKey;
      this.trustedCerts = trustedCerts;
      return this;
    }

    /** Whether the server requires a trusted client certificate (default true: mutual authentication). */
    public Builder clientAuthRequired(boolean v) {
      clientAuthRequired = v;
      return this;
    }

    /** Whether a client checks that the server's certificate names the host it connected to. Required. */
    public Builder hostnameVerification(boolean v) {
      hostnameVerification = v;
      return this;
    }

    /** Allowed protocol versions, from {@link #SUPPORTED_PROTOCOLS}; default TLSv1.3. */
    public Builder protocols(String... v) {
      protocols = List.of(v);
      return this;
    }

    /**
     * The validated configuration; throws {@link IllegalArgumentException} naming the first bad or
     * missing field (files are checked to be readable).
     */
    public TlsConfig build() {
      if (hostnameVerification == null) {
        throw new IllegalArgumentException("transport.tls.hostnameVerification must be set explicitly: true makes a "
            + "client refuse a server whose certificate does not name the host it connected to; false accepts any "
            + "certificate a trusted authority signed");
      }
      return new TlsConfig(keyStore, keyStorePassword, trustStore, trustStorePassword, certChain, privateKey,
          trustedCerts, clientAuthRequired, hostnameVerification, protocols);
    }
  }
}
