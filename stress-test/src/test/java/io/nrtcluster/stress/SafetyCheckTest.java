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
        new Ack(1, 1, 10, 900, 1_001, false),
        new Ack(1, 1, 12, 4_000, 4_100, true), // nothing new: the same version again, before gen 2 acknowledged
        new Ack(2, 2, 20, 4_900, 5_001, false),
        new Ack(3, -1, 99, 5_000, 5_100, true)), PUBLISHED, List.of());
    assertThat(r.clean()).as(r.examples().toString()).isTrue();
    assertThat(r.acksJudged()).isEqualTo(3);
    assertThat(r.unattributedAcks()).isEqualTo(1);
  }

  @Test
  void aVersionAcknowledgedBeforeOrWithoutItsPublicationIsCounted() {
    SafetyCheck.Result r = SafetyCheck.check(List.of(
        new Ack(1, 1, 12, 1_500, 1_600, false), // 12 published only at 2000
        new Ack(1, 1, 13, 3_000, 3_100, false), // never published by gen 1
        new Ack(1, 1, 11, 3_000, 3_100, false), // below what gen 1 published, but never published itself
        new Ack(2, 2, 12, 6_000, 6_100, false)), // published, but by gen 1, not gen 2
        PUBLISHED, List.of());
    assertThat(r.ackedUnpublished()).isEqualTo(4);
    assertThat(r.examples()).anySatisfy(e -> assertThat(e).contains("gen=1 acknowledged version 13"));
  }

  @Test
  void anOldGenerationAcknowledgingANewVersionAfterANewerOneIsAnOverlap() {
    Publications published = new Publications(List.of(new Publication(1, 1_000, 1, 1, 10),
        new Publication(2, 5_000, 2, 2, 20), new Publication(3, 5_500, 1, 1, 15)), 1, 3);
    SafetyCheck.Result r = SafetyCheck.check(List.of(
        new Ack(1, 1, 10, 900, 1_001, false),
        new Ack(2, 2, 20, 4_900, 5_001, false),
        new Ack(1, 1, 10, 6_000, 6_100, true), // an old version again: acknowledges no write
        new Ack(1, 1, 15, 5_200, 5_600, true)), // a new version, asked for after gen 2 had acknowledged
        published, List.of());
    assertThat(r.epochOverlaps()).isEqualTo(1);
    assertThat(r.ackedUnpublished()).isZero();
  }

  @Test
  void aSearchOlderThanOneAlreadyAnsweredByTheSameProcessGoesBackInTime() {
    List<Seen> fine = List.of(
        new Seen(1, 1, 0, 100, 10),
        new Seen(1, 1, 50, 300, 9), // overlapped the first: no order between them
        new Seen(1, 1, 200, 250, 11),
        new Seen(1, 2, 400, 450, 3), // a new process may start from its commit
        new Seen(2, 1, 400, 450, 1));
    assertThat(SafetyCheck.check(List.of(), PUBLISHED, fine).searchesBackInTime()).isZero();
    List<Seen> back = List.of(new Seen(1, 1, 0, 100, 10), new Seen(1, 1, 150, 200, 0), new Seen(1, 1, 300, 320, 10));
    SafetyCheck.Result r = SafetyCheck.check(List.of(), PUBLISHED, back);
    assertThat(r.searchesBackInTime()).isEqualTo(1);
    assertThat(r.examples()).singleElement().asString().contains("searched version 0");
  }
}
