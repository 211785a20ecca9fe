package io.nrtcluster.common;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Properties;

/**
 * The two parsers in {@code common} that read what another node (or ZooKeeper) sent: file names a
 * peer asks for ({@link PeerFileNames}) and the {@code key=value} records kept in ZooKeeper
 * ({@link PropertiesCodec}). The only failures allowed are the typed ones they declare; anything
 * else is a finding. Seed inputs are committed under {@code PeerTextFuzzTestInputs/}; {@code mvn
 * test} replays them and {@code JAZZER_FUZZ=1} fuzzes (see docs/testing.md, "Fuzzing"). No
 * {@code @Timeout} of its own: Jazzer would apply it to a whole fuzzing session; the suite's default
 * applies per input.
 */
class PeerTextFuzzTest {
  private static final Path INDEX = Path.of("/srv/nrt/index");

  /**
   * A name is accepted exactly when it is safe to join to the index directory: joined and
   * normalized it is a direct child of that directory with the very same name, and it holds no
   * separator or control character. A refused name raises {@link FileNotServableException} whose
   * message holds no control character (it is logged and sent back).
   */
  @FuzzTest(maxDuration = "30s")
  void fileNames(byte[] data) {
    // As the transport reads a name: UTF-8, malformed sequences replaced.
    String name = new String(data, StandardCharsets.UTF_8);
    boolean safe = PeerFileNames.isSafe(name);
    try {
      PeerFileNames.requireSafe(name);
      if (!safe) {
        throw new AssertionError("requireSafe accepted what isSafe refuses: " + name);
      }
    } catch (FileNotServableException e) {
      if (safe) {
        throw new AssertionError("requireSafe refused what isSafe accepts: " + name);
      }
      if (e.getMessage().chars().anyMatch(c -> c < 0x20 || c == 0x7f)) {
        throw new AssertionError("control character in a refusal message");
      }
      return;
    }
    if (name.indexOf('/') >= 0 || name.indexOf('\\') >= 0 || name.chars().anyMatch(c -> c < 0x20 || c == 0x7f)) {
      throw new AssertionError("accepted a separator or control character: " + name);
    }
    Path joined = INDEX.resolve(name).normalize();
    if (!INDEX.equals(joined.getParent()) || !joined.getFileName().toString().equals(name)) {
      throw new AssertionError("accepted '" + name + "', which resolves to " + joined);
    }
  }

  /**
   * Any bytes decode to a record or raise {@link ProtocolException}; a decoded record encodes and
   * decodes again to the same keys and values.
   */
  @FuzzTest(maxDuration = "30s")
  void records(byte[] data) {
    Properties p;
    try {
      p = PropertiesCodec.decode(data);
    } catch (ProtocolException refused) {
      return;
    }
    Properties again;
    try {
      again = PropertiesCodec.decode(PropertiesCodec.encode(p));
    } catch (ProtocolException e) {
      throw new AssertionError("a decoded record does not survive encoding", e);
    }
    if (!p.equals(again)) {
      throw new AssertionError("round trip changed " + p + " into " + again);
    }
  }
}
