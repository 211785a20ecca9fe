package io.nrtcluster.stress.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Figure 3's baselines at one moment, on one set of files: raw loopback TCP and raw disk writes
 * ({@link RawSpeed}), then raw receiver processes ({@link RawReceiver}), each as many transfers at
 * once as there are receivers (as many as replicas copy). Each phase starts after a page-cache flush;
 * the disk writes and the receivers' writes start onto a cache left dirty as a merge leaves it for
 * its pre-copy ({@link RawSpeed#dirtyLikeAMerge}). Whatever a phase wrote is deleted after it.
 */
final class CopyBaseline {
  private CopyBaseline() {}

  /** The raw speeds of {@code files} with one transfer per receiver at once; {@code dir} takes the disk writes. */
  static BenchReport.RawSpeeds measure(List<Path> files, List<RawReceiver> receivers, Path dir)
      throws IOException, InterruptedException {
    int streams = receivers.size();
    long bytes = totalBytes(files);
    RawSpeed.flushPageCache();
    double loopback = RawSpeed.loopback(files, streams);
    Path mergeOutput = dir.resolve("merge-output");
    RawSpeed.flushPageCache();
    RawSpeed.dirtyLikeAMerge(files, mergeOutput);
    double disk;
    try {
      disk = RawSpeed.diskWrite(files, dir, streams);
    } finally {
      RawSpeed.delete(files, mergeOutput);
    }
    RawSpeed.flushPageCache();
    RawSpeed.dirtyLikeAMerge(files, mergeOutput);
    AtomicInteger next = new AtomicInteger();
    AtomicLong cpuNanos = new AtomicLong();
    AtomicLong userNanos = new AtomicLong();
    double received;
    try {
      received = RawSpeed.concurrently(streams, () -> {
        RawReceiver.Received r = receivers.get(next.getAndIncrement()).receive(files);
        if (r.bytes() != bytes) {
          throw new IOException("the raw receiver wrote " + r.bytes() + " of " + bytes + " bytes");
        }
        cpuNanos.addAndGet(r.cpuNanos());
        userNanos.accumulateAndGet(r.userNanos(), (sum, n) -> sum < 0 || n < 0 ? -1 : sum + n);
        return r.bytesPerSec();
      });
    } finally {
      RawSpeed.delete(files, mergeOutput);
      for (RawReceiver r : receivers) {
        r.deleteCopies();
      }
    }
    // Per receiver, as the replicas' CPU is per replica.
    double gib = bytes / (double) (1L << 30);
    double cpuSecPerGiB = cpuNanos.get() / 1e9 / streams / gib;
    double userSecPerGiB = userNanos.get() < 0 ? -1 : userNanos.get() / 1e9 / streams / gib;
    return new BenchReport.RawSpeeds(bytes, loopback / (1 << 20), disk / (1 << 20), received / (1 << 20), cpuSecPerGiB,
        userSecPerGiB);
  }

  private static long totalBytes(List<Path> files) throws IOException {
    long bytes = 0;
    for (Path f : files) {
      bytes += Files.size(f);
    }
    return bytes;
  }
}
