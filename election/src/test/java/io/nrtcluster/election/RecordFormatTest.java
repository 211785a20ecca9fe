package io.nrtcluster.election;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nrtcluster.common.ProtocolException;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.Test;

/**
 * The rolling-upgrade rule for ZooKeeper records (docs/operations.md, "Rolling upgrades"): every
 * record carries a format version, a node reads what a node of the previous format wrote and what
 * one of a later format writes (extra fields ignored). The "previous" texts below are byte for byte
 * what the code before format versions wrote (the date comment aside); they must keep decoding.
 */
class RecordFormatTest {
  private static final MemberInfo MEMBER = new MemberInfo(3, "10.0.0.3:7000", Role.REPLICA, 4, 120, 110, true, 1_700_000_000_000L);
  private static final String PREVIOUS_MEMBER = """
      #Tue Nov 24 11:00:39 UTC 2026
      address=10.0.0.3\\:7000
      candidate=true
      commitVersion=110
      consecutiveCopyFailures=0
      copying=true
      corruptFilesAtStart=0
      corruptFilesByScrub=0
      eligible=true
      lastCopyMillis=1700000000000
      nodeId=3
      primaryGen=4
      quarantinedFiles=0
      role=REPLICA
      searchingVersion=120
      """;
  private static final PrimaryInfo PRIMARY = new PrimaryInfo(3, "10.0.0.3:7000", 4);
  private static final String PREVIOUS_PRIMARY = "3\n10.0.0.3:7000\n4";
  private static final String PREVIOUS_COMMAND = "#Tue Nov 24 11:00:39 UTC 2026\nkind=COMMIT\ntarget=2\n";
  private static final String PREVIOUS_ACK = "#Tue Nov 24 11:00:39 UTC 2026\ncommitVersion=12\nmessage=\nstatus=OK\n";
  private static final Handoff HANDOFF = new Handoff("id-1", 2, 3000, Handoff.Status.REQUESTED, -1, "");
  private static final String PREVIOUS_HANDOFF = """
      #Tue Nov 24 11:00:39 UTC 2026
      finalVersion=-1
      message=
      requestId=id-1
      status=REQUESTED
      target=2
      timeoutMillis=3000
      """;
  private static final String PREVIOUS_HOST = "#Tue Nov 24 11:00:39 UTC 2026\nformat=1\nnodeId=3\nprimaries=a,b\n";

  @Test
  void everyRecordThisNodeWritesCarriesTheCurrentFormat() {
    String format = "format=" + RecordFormat.CURRENT;
    assertThat(text(MEMBER.encode())).contains(format);
    assertThat(text(PRIMARY.encode())).endsWith("\n" + format);
    assertThat(text(OperatorCommand.commit(2).encode())).contains(format);
    assertThat(text(CommandAck.ok(12).encode())).contains(format);
    assertThat(text(HANDOFF.encode())).contains(format);
    assertThat(text(HostRecord.of(3, Set.of("a", "b")).encode())).contains(format);
  }

  @Test
  void recordsOfThePreviousFormatDecode() throws Exception {
    assertThat(MemberInfo.decode(bytes(PREVIOUS_MEMBER))).isEqualTo(MEMBER);
    assertThat(PrimaryInfo.decode(bytes(PREVIOUS_PRIMARY))).isEqualTo(PRIMARY);
    assertThat(OperatorCommand.decode(bytes(PREVIOUS_COMMAND))).isEqualTo(OperatorCommand.commit(2));
    assertThat(CommandAck.decode(bytes(PREVIOUS_ACK))).isEqualTo(CommandAck.ok(12));
    assertThat(Handoff.decode(bytes(PREVIOUS_HANDOFF))).isEqualTo(HANDOFF);
    assertThat(HostRecord.decode(bytes(PREVIOUS_HOST))).isEqualTo(HostRecord.of(3, Set.of("a", "b")));
  }

  @Test
  void recordsOfALaterFormatWithExtraFieldsDecode() throws Exception {
    assertThat(MemberInfo.decode(bytes(later(PREVIOUS_MEMBER)))).isEqualTo(MEMBER);
    assertThat(PrimaryInfo.decode(bytes(PREVIOUS_PRIMARY + "\nformat=2\nzone=eu-west-1"))).isEqualTo(PRIMARY);
    assertThat(OperatorCommand.decode(bytes(later(PREVIOUS_COMMAND)))).isEqualTo(OperatorCommand.commit(2));
    assertThat(CommandAck.decode(bytes(later(PREVIOUS_ACK)))).isEqualTo(CommandAck.ok(12));
    assertThat(Handoff.decode(bytes(later(PREVIOUS_HANDOFF)))).isEqualTo(HANDOFF);
    assertThat(HostRecord.decode(bytes(later(PREVIOUS_HOST)))).isEqualTo(HostRecord.of(3, Set.of("a", "b")));
  }

  /** The writability fields: written by this node, read back; absent (an older node), what the role says; unknown, UNKNOWN. */
  @Test
  void aMemberRecordSaysWhetherItIsWritableAndWhyNot() throws Exception {
    MemberInfo full = new MemberInfo(3, "10.0.0.3:7000", Role.PRIMARY, 4, 120, 110, false, 0, null, 0, null, true, null,
        NotWritableReason.BELOW_DISK_FLOOR);
    assertThat(text(full.encode())).contains("writable=false", "notWritable=BELOW_DISK_FLOOR");
    assertThat(MemberInfo.decode(full.encode())).isEqualTo(full);
    assertThat(MemberInfo.decode(full.withRole(Role.REPLICA).encode()).notWritable()).isEqualTo(NotWritableReason.NOT_PRIMARY);

    MemberInfo olderPrimary = MemberInfo.decode(bytes(PREVIOUS_MEMBER.replace("role=REPLICA", "role=PRIMARY")));
    assertThat(olderPrimary.writable()).isTrue();
    assertThat(MemberInfo.decode(bytes(PREVIOUS_MEMBER)).notWritable()).isEqualTo(NotWritableReason.NOT_PRIMARY);
    assertThat(MemberInfo.decode(bytes(later(PREVIOUS_MEMBER) + "writable=false\nnotWritable=OUT_OF_COFFEE\n")).notWritable())
        .isEqualTo(NotWritableReason.UNKNOWN);
  }

  @Test
  void aFormatFieldThatIsNoFormatIsMalformed() {
    assertThatThrownBy(() -> MemberInfo.decode(bytes(PREVIOUS_MEMBER + "format=two\n"))).isInstanceOf(ProtocolException.class);
    assertThatThrownBy(() -> PrimaryInfo.decode(bytes(PREVIOUS_PRIMARY + "\nformat=0"))).isInstanceOf(ProtocolException.class);
    assertThatThrownBy(() -> Handoff.decode(bytes(PREVIOUS_HANDOFF + "format=-1\n"))).isInstanceOf(ProtocolException.class);
    assertThatThrownBy(() -> HostRecord.decode(bytes(PREVIOUS_HOST.replace("format=1\n", ""))))
        .as("host records always carried a format").isInstanceOf(ProtocolException.class);
  }

  /** Through ZooKeeper: members and the primary as a node of the previous format left them, and of a later one. */
  @Test
  void aNodeReadsTheMembersAndPrimaryOtherFormatsWrote() throws Exception {
    try (TestingServer zk = new TestingServer(true);
        CuratorFramework client = TestZkClients.builder(zk.getConnectString()).build()) {
      client.start();
      ZkLayout layout = ZkLayout.of("c1", "idx");
      MemberInfo newer = new MemberInfo(4, "10.0.0.4:7000", Role.REPLICA, 4, 118, 110, false, 1_700_000_000_500L);
      create(client, layout.member(3), PREVIOUS_MEMBER);
      create(client, layout.member(4), later(text(newer.encode())));
      create(client, layout.primary(), PREVIOUS_PRIMARY);

      assertThat(ClusterView.members(client, layout)).containsExactlyInAnyOrder(MEMBER, newer);
      assertThat(ClusterView.primary(client, layout)).contains(PRIMARY);
    }
  }

  /** {@code record} as a writer of format 2 that added a field would write it (a repeated key: the last wins). */
  private static String later(String record) {
    return record + "format=2\nfieldOfFormat2=something new\n";
  }

  private static void create(CuratorFramework client, String path, String data) throws Exception {
    client.create().creatingParentsIfNeeded().withMode(CreateMode.PERSISTENT).forPath(path, bytes(data));
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String text(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }
}
