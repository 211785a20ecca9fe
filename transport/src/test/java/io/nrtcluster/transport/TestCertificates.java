package io.nrtcluster.transport;

import java.io.IOException;
import java.io.OutputStream;
import java.io.Writer;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * TLS key material made at run time for tests: certificate authorities, and node certificates they
 * sign (EC P-256, valid from an hour ago for a day), written as PEM files or PKCS#12 stores and
 * handed out as {@link TlsConfig} builders. Nothing is checked in; every test run has fresh keys.
 */
public final class TestCertificates {
  private static final AtomicLong SERIAL = new AtomicLong(System.nanoTime());

  private TestCertificates() {}

  /** A new self-signed certificate authority. */
  public static Authority authority(String name) {
    KeyPair keys = keyPair();
    X500Name subject = new X500Name("CN=" + name);
    try {
      X509v3CertificateBuilder b = builder(subject, subject, keys);
      b.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
      b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
      return new Authority(name, sign(b, keys.getPrivate()), keys.getPrivate());
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A certificate authority and what it signed. */
  public static final class Authority {
    final String name;
    final X509Certificate certificate;
    final PrivateKey key;

    Authority(String name, X509Certificate certificate, PrivateKey key) {
      this.name = name;
      this.certificate = certificate;
      this.key = key;
    }

    public X509Certificate certificate() {
      return certificate;
    }

    /** A node certificate for the loopback names: DNS {@code localhost} and IP 127.0.0.1. */
    public Identity issueLoopback(String commonName) {
      return issue(commonName, List.of("localhost"), List.of("127.0.0.1"));
    }

    /** A certificate for client and server use, naming the given hosts in its subject alternative names. */
    public Identity issue(String commonName, List<String> dnsNames, List<String> ipAddresses) {
      KeyPair keys = keyPair();
      try {
        X509v3CertificateBuilder b = builder(new X500Name("CN=" + name), new X500Name("CN=" + commonName), keys);
        b.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
        b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyAgreement));
        b.addExtension(Extension.extendedKeyUsage, false,
            new ExtendedKeyUsage(new KeyPurposeId[] {KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth}));
        List<GeneralName> names = new ArrayList<>();
        dnsNames.forEach(n -> names.add(new GeneralName(GeneralName.dNSName, n)));
        ipAddresses.forEach(n -> names.add(new GeneralName(GeneralName.iPAddress, n)));
        if (!names.isEmpty()) {
          b.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(names.toArray(new GeneralName[0])));
        }
        return new Identity(sign(b, key), keys.getPrivate(), this);
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    }

    /** Writes this authority's certificate as PEM. */
    public Path writePem(Path file) throws IOException {
      writePemObjects(file, certificate);
      return file;
    }
  }

  /** A node's private key and its certificate, signed by {@link #issuer}. */
  public static final class Identity {
    final X509Certificate certificate;
    final PrivateKey key;
    final Authority issuer;

    Identity(X509Certificate certificate, PrivateKey key, Authority issuer) {
      this.certificate = certificate;
      this.key = key;
      this.issuer = issuer;
    }

    /**
     * Writes {@code cert.pem}, {@code key.pem} and {@code ca.pem} (the certificates of {@code
     * trusted}) into {@code dir} and returns a builder with those files set.
     */
    public TlsConfig.Builder pem(Path dir, Authority... trusted) throws IOException {
      Files.createDirectories(dir);
      Path cert = dir.resolve("cert.pem");
      Path key = dir.resolve("key.pem");
      Path ca = dir.resolve("ca.pem");
      writePemObjects(cert, certificate);
      writePemObjects(key, new JcaPKCS8Generator(this.key, null));
      Object[] cas = new Object[trusted.length];
      for (int i = 0; i < trusted.length; i++) {
        cas[i] = trusted[i].certificate;
      }
      writePemObjects(ca, cas);
      return TlsConfig.builder().pem(cert, key, ca);
    }

    /**
     * Writes {@code keystore.p12} (this key and certificate) and {@code truststore.p12} (the
     * certificates of {@code trusted}) into {@code dir}, both with {@code password}, and returns a
     * builder with those stores set.
     */
    public TlsConfig.Builder keyStores(Path dir, String password, Authority... trusted) throws IOException {
      Files.createDirectories(dir);
      try {
        KeyStore keys = KeyStore.getInstance("PKCS12");
        keys.load(null, null);
        keys.setKeyEntry("node", key, password.toCharArray(), new X509Certificate[] {certificate, issuer.certificate});
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        for (Authority a : trusted) {
          trust.setCertificateEntry(a.name, a.certificate);
        }
        Path keyStore = dir.resolve("keystore.p12");
        Path trustStore = dir.resolve("truststore.p12");
        try (OutputStream out = Files.newOutputStream(keyStore)) {
          keys.store(out, password.toCharArray());
        }
        try (OutputStream out = Files.newOutputStream(trustStore)) {
          trust.store(out, password.toCharArray());
        }
        return TlsConfig.builder().keyStore(keyStore, password).trustStore(trustStore, password);
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException(e);
      }
    }
  }

  private static KeyPair keyPair() {
    try {
      KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
      g.initialize(new ECGenParameterSpec("secp256r1"));
      return g.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private static X509v3CertificateBuilder builder(X500Name issuer, X500Name subject, KeyPair keys) {
    Instant now = Instant.now();
    return new JcaX509v3CertificateBuilder(issuer, BigInteger.valueOf(SERIAL.incrementAndGet()),
        Date.from(now.minus(Duration.ofHours(1))), Date.from(now.plus(Duration.ofDays(1))), subject, keys.getPublic());
  }

  private static X509Certificate sign(X509v3CertificateBuilder b, PrivateKey issuerKey) {
    try {
      ContentSigner signer = new JcaContentSignerBuilder("SHA256withECDSA").build(issuerKey);
      return new JcaX509CertificateConverter().getCertificate(b.build(signer));
    } catch (GeneralSecurityException | org.bouncycastle.operator.OperatorCreationException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void writePemObjects(Path file, Object... objects) throws IOException {
    try (Writer w = Files.newBufferedWriter(file); JcaPEMWriter pem = new JcaPEMWriter(w)) {
      for (Object o : objects) {
        pem.writeObject(o);
      }
    }
  }
}
