package io.nrtcluster.primary;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 15, defect 2: a refresh whose publication waits on ZooKeeper (Curator retries for many
 * seconds when it is unreachable) must not hold the primary's monitor: closing the primary, what a
 * step-down does, goes on meanwhile (it used to wait for the whole retry).
 */
@Timeout(60)
class PublicationOutsideMonitorTest {
  @TempDir Path dir;

  @Test
  void aPublicationStuckInTheGateDoesNotBlockClosingThePrimary() throws Exception {
    Primary p = TestPrimaries.open(TestPrimaries.config(dir.resolve("p")).build());
    CountDownLatch inGate = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    long initial = p.version();
    p.setPublishGate(version -> {
      if (version > initial) {
        inGate.countDown();
        try {
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        throw new IOException("ZooKeeper unreachable (simulated gate)");
      }
    });
    Document d = new Document();
    d.add(new StringField("id", "1", Field.Store.YES));
    p.writer().addDocument(d);
    // Own threads: the common pool may have a single worker on a small machine.
    ExecutorService threads = Executors.newFixedThreadPool(2);
    CompletableFuture<Long> refresh = CompletableFuture.supplyAsync(() -> {
      try {
        return p.refresh();
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    }, threads);
    assertThat(inGate.await(10, TimeUnit.SECONDS)).isTrue();
    try {
      assertThat(p.version()).as("searches still see only the published version").isEqualTo(initial);
      CompletableFuture.runAsync(() -> {
        try {
          p.close();
        } catch (IOException e) {
          throw new IllegalStateException(e);
        }
      }, threads).get(5, TimeUnit.SECONDS);
    } finally {
      release.countDown();
      threads.shutdown();
    }
    assertThatThrownBy(() -> refresh.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class);
  }
}
