package io.nrtcluster.stress;

import static org.assertj.core.api.Assertions.assertThat;

import io.nrtcluster.stress.AckLog.Ack;
import io.nrtcluster.stress.PublicationAudit.Publication;
import io.nrtcluster.stress.PublicationAudit.Publications;
import io.nrtcluster.stress.SearchLog.Seen;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The verdict's safety rules on hand-made records: each fires on its violation and only then. */
@Timeout(30)
class SafetyCheckTest {
  /** Gen 1 (N1) published 10 and 12; gen 2 (N2) took over and published 20 at t=5000. */
  private static final Publications PUBLISHED = new Publications(List.of(
      new Publication(1, 1_000, 1, 1, 10), new Publication(2, 2_000, 1, 1, 12), new Publication(3, 5_000, 2, 2, 20)), 1, 3);

  @Test
  void acknowledgementsOfPublishedVersionsAreClean() {
    SafetyCheck.Result r = SafetyCheck.check(List.of(
        ack(1, 1, 10, 900, 1_001, false),
        ack(1, 1, 12, 4_000, 4_100, true), // nothing new: the same version again, before gen 2 acknowledged
        ack(2, 2, 20, 4_900, 5_001, false),
        ack(3, -1, 20, 5_000, 5_100, true)), List.of(), PUBLISHED, List.of()); // generation unknown, version published
    assertThat(r.clean()).as(r.examples().toString()).isTrue();
    assertThat(r.acksJudged()).isEqualTo(4);
    assertThat(r.unattributedAcks()).isEqualTo(1);
  }

  @Test
  void aVersionAcknowledgedBeforeOrWithoutItsPublicationIsCounted() {
    SafetyCheck.Result r = SafetyCheck.check(List.of(
        ack(1, 1, 12, 1_500, 1_600, false), // 12 published only at 2000
        ack(1, 1, 13, 3_000, 3_100, false), // never published by gen 1
        ack(1, 1, 11, 3_000, 3_100, false), // below what gen 1 published, but never published itself
        ack(2, 2, 12, 6_000, 6_100, false)), // published, but by gen 1, not gen 2
        List.of(), PUBLISHED, List.of());
    assertThat(r.ackedUnpublished()).isEqualTo(4);
    assertThat(r.examples()).anySatisfy(e -> assertThat(e).contains("gen=1 acknowledged version 13"));
  }

  /** Issue 26: an acknowledgement whose generation is unknown was counted and never judged. */
  @Test
  void anAcknowledgementOfUnknownGenerationIsJudgedAgainstEveryGenerationsPublications() {
    SafetyCheck.Result r = SafetyCheck.check(List.of(
        ack(3, -1, 99, 5_000, 5_100, true), // no generation ever published 99
        ack(3, -1, 20, 4_000, 4_100, false)), // 20 was published only at 5000
        List.of(), PUBLISHED, List.of());
    assertThat(r.unattributedAcks()).isEqualTo(2);
    assertThat(r.ackedUnpublished()).isEqualTo(2);
    assertThat(r.clean()).isFalse();
  }

  /**
   * Issue 26: the verdict judged version numbers only. A node that searched a version the primary
   * published with other contents, or that answered from a commit no refresh published (a
   * stepped-down primary searching its reopened commit), passed.
   */
  @Test
  void searchedContentsAreJudgedAgainstWhatThePrimaryPublished() {
    List<Ack> acks = List.of(
        new Ack(1, 1, 10, 900, 1_001, false, 100, 0xABCL),
        new Ack(1, 1, 12, 1_900, 2_001, false, 120, 0xDEFL));
    List<AckLog.Commit> commits = List.of(new AckLog.Commit(1, 13, 2_500, true));
    List<Seen> fine = List.of(
        new Seen(2, 1, 1_100, 1_150, 10, 100, 0xABCL, false),
        new Seen(1, 1, 2_100, 2_150, 12, 120, 0xDEFL, true),
        new Seen(2, 1, 2_200, 2_250, 12, -1, 0, false), // a term search: no contents
        new Seen(3, 1, 2_200, 2_250, 11, 110, 0x111L, false)); // 11: contents unknown to the run
    SafetyCheck.Result ok = SafetyCheck.check(acks, commits, PUBLISHED, fine);
    assertThat(ok.clean()).as(ok.examples().toString()).isTrue();
    assertThat(ok.contents().judged()).isEqualTo(2);
    assertThat(ok.contents().unjudged()).isEqualTo(1);

    List<Seen> bad = List.of(
        new Seen(2, 1, 1_100, 1_150, 10, 101, 0xABCL, false), // version 10 with other contents
        new Seen(1, 1, 3_000, 3_050, 13, -1, 0, false)); // N1, no longer primary, searches its own commit 13
    SafetyCheck.Result r = SafetyCheck.check(acks, commits, PUBLISHED, bad);
    assertThat(r.contents().differ()).isEqualTo(1);
    assertThat(r.contents().unpublishedCommits()).isEqualTo(1);
    assertThat(r.clean()).isFalse();
    assertThat(r.examples()).anySatisfy(e -> assertThat(e).contains("only its own commit made"));

    // The same commit's version searched by another node too: it was published (an acknowledgement
    // was lost), and so was searching it on N1; N1 searching it as primary is its own published searcher.
    List<Seen> published = List.of(
        new Seen(1, 1, 3_000, 3_050, 13, -1, 0, false), new Seen(2, 1, 3_000, 3_050, 13, -1, 0, false));
    assertThat(SafetyCheck.check(acks, commits, PUBLISHED, published).contents().unpublishedCommits()).isZero();
    assertThat(SafetyCheck.check(acks, commits, PUBLISHED, List.of(new Seen(1, 1, 3_000, 3_050, 13, -1, 0, true)))
        .contents().unpublishedCommits()).isZero();
  }

  /**
   * A replica's commit makes no version: it commits the point it copied, which a primary published.
   * Chaos seed 2 (replicated, namespaces, 300 s) counted 15 "searches of unpublished commits": N2, a
   * replica, committed version 5135 that it had copied from P3, whose refresh acknowledgement the
   * harness never got (the refresh was given up), and searched it; no other node searched 5135 before
   * P3 was cut off.
   */
  @Test
  void aReplicasCommitOfACopiedVersionIsNotACommitOnlyItMade() {
    List<Ack> acks = List.of(new Ack(3, 20, 5_130, 900, 1_001, false, 100, 0xABCL));
    List<AckLog.Commit> commits = List.of(new AckLog.Commit(2, 5_135, 2_500, false));
    List<Seen> searches = List.of(new Seen(2, 4, 2_600, 2_650, 5_135, -1, 0, false));
    SafetyCheck.Result r = SafetyCheck.check(acks, commits, PUBLISHED, searches);
    assertThat(r.contents().unpublishedCommits()).as(r.examples().toString()).isZero();
  }

  /** Two primaries acknowledging one version number with different contents: the version was published twice. */
  @Test
  void aVersionPublishedWithTwoContentsIsCounted() {
    SafetyCheck.Result r = SafetyCheck.check(List.of(
        new Ack(1, 1, 12, 1_900, 2_001, false, 120, 0xDEFL),
        new Ack(2, 2, 12, 5_900, 6_001, false, 130, 0x123L)), List.of(), PUBLISHED, List.of());
    assertThat(r.contents().differ()).isEqualTo(1);
    assertThat(r.clean()).isFalse();
  }

  private static Ack ack(int node, long gen, long version, long sent, long received, boolean probe) {
    return new Ack(node, gen, version, sent, received, probe, -1, 0);
  }

  private static Seen seen(int node, int incarnation, long sent, long received, long version) {
    return new Seen(node, incarnation, sent, received, version, -1, 0, false);
  }

  @Test
  void anOldGenerationAcknowledgingANewVersionAfterANewerOneIsAnOverlap() {
    Publications published = new Publications(List.of(new Publication(1, 1_000, 1, 1, 10),
        new Publication(2, 5_000, 2, 2, 20), new Publication(3, 5_500, 1, 1, 15)), 1, 3);
    SafetyCheck.Result r = SafetyCheck.check(List.of(
        ack(1, 1, 10, 900, 1_001, false),
        ack(2, 2, 20, 4_900, 5_001, false),
        ack(1, 1, 10, 6_000, 6_100, true), // an old version again: acknowledges no write
        ack(1, 1, 15, 5_200, 5_600, true)), // a new version, asked for after gen 2 had acknowledged
        List.of(), published, List.of());
    assertThat(r.epochOverlaps()).isEqualTo(1);
    assertThat(r.ackedUnpublished()).isZero();
  }

  @Test
  void aSearchOlderThanOneAlreadyAnsweredByTheSameProcessGoesBackInTime() {
    List<Seen> fine = List.of(
        seen(1, 1, 0, 100, 10),
        seen(1, 1, 50, 300, 9), // overlapped the first: no order between them
        seen(1, 1, 200, 250, 11),
        seen(1, 2, 400, 450, 3), // a new process may start from its commit
        seen(2, 1, 400, 450, 1));
    assertThat(SafetyCheck.check(List.of(), List.of(), PUBLISHED, fine).searchesBackInTime()).isZero();
    List<Seen> back = List.of(seen(1, 1, 0, 100, 10), seen(1, 1, 150, 200, 0), seen(1, 1, 300, 320, 10));
    SafetyCheck.Result r = SafetyCheck.check(List.of(), List.of(), PUBLISHED, back);
    assertThat(r.searchesBackInTime()).isEqualTo(1);
    assertThat(r.examples()).singleElement().asString().contains("searched version 0");
  }
}
