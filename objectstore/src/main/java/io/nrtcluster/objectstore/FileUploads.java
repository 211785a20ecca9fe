package io.nrtcluster.objectstore;

import io.nrtcluster.common.ErrorCode;
import io.nrtcluster.common.NrtClusterException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Uploads the files of a Lucene {@link Directory} for one {@link BlobStore}: one PUT below {@link
 * ObjectStoreConfig#multipartThreshold()}, a multipart upload of {@link ObjectStoreConfig#partSize()}
 * parts from there on, each request sent through the store's {@link StoreCalls}.
 *
 * <p>Guarantees: what a failed upload leaves is invisible (a PUT is atomic; a multipart upload that
 * did not complete is aborted, and were the abort lost too, it is never completed, so never visible).
 * Each attempt reads its bytes from the file afresh, through the {@link UploadCheck} when there is
 * one; the streams a request opened are closed once its call is over, whatever its outcome.
 */
final class FileUploads {
  /** The object stored under a key, if any: what tells a completion whose answer was lost from a failed one. */
  @FunctionalInterface
  interface Head {
    Optional<ObjectInfo> of(String key) throws IOException;
  }

  private final ObjectStoreConfig config;
  private final S3Client s3;
  private final StoreCalls calls;
  private final Head head;

  FileUploads(ObjectStoreConfig config, S3Client s3, StoreCalls calls, Head head) {
    this.config = config;
    this.s3 = s3;
    this.calls = calls;
    this.head = head;
  }

  /**
   * Uploads {@code length} bytes of the file {@code name} of {@code dir} to {@code key}, through
   * {@code check} unless it is null.
   */
  void upload(String key, Directory dir, String name, long length, UploadCheck check) throws IOException {
    if (length < config.multipartThreshold()) {
      List<InputStream> opened = new CopyOnWriteArrayList<>();
      try {
        calls.call("upload", key, () -> s3.putObject(b -> b.bucket(config.bucket()).key(key).contentLength(length),
            RequestBody.fromContentProvider(() -> open(dir, name, 0, length, check, opened), length,
                "application/octet-stream")));
      } finally {
        closeAll(opened);
      }
    } else {
      multipart(key, dir, name, length, check);
    }
  }

  private void multipart(String key, Directory dir, String name, long length, UploadCheck check) throws IOException {
    String uploadId = calls.call("start multipart upload of", key,
        () -> s3.createMultipartUpload(b -> b.bucket(config.bucket()).key(key)).uploadId());
    boolean completed = false;
    try {
      List<CompletedPart> parts = new ArrayList<>();
      long partSize = config.partSize();
      int number = 1;
      for (long offset = 0; offset < length; offset += partSize, number++) {
        long size = Math.min(partSize, length - offset);
        int partNumber = number;
        long partOffset = offset;
        List<InputStream> opened = new CopyOnWriteArrayList<>();
        try {
          String etag = calls.call("upload part " + partNumber + " of", key, () -> s3.uploadPart(
              b -> b.bucket(config.bucket()).key(key).uploadId(uploadId).partNumber(partNumber).contentLength(size),
              RequestBody.fromContentProvider(() -> open(dir, name, partOffset, size, check, opened), size,
                  "application/octet-stream")).eTag());
          parts.add(CompletedPart.builder().partNumber(partNumber).eTag(etag).build());
        } finally {
          closeAll(opened);
        }
      }
      S3Exception gone = calls.call("complete multipart upload of", key, () -> {
        try {
          s3.completeMultipartUpload(b -> b.bucket(config.bucket()).key(key).uploadId(uploadId)
              .multipartUpload(m -> m.parts(parts)));
          return null;
        } catch (S3Exception e) {
          if (e.statusCode() == 404 && !StoreCalls.noSuchBucket(e)) {
            return e; // looked into below, once this attempt gave its connection back
          }
          throw e;
        }
      });
      // A retried completion whose first answer was lost finds the upload gone and the object there.
      if (gone != null && !head.of(key).map(o -> o.size() == length).orElse(false)) {
        throw new NrtClusterException(ErrorCode.INTERNAL, "bucket " + config.bucket() + " rejected complete multipart"
            + " upload of " + key + ": HTTP 404 " + StoreCalls.errorCode(gone), gone);
      }
      completed = true;
    } finally {
      if (!completed) {
        // Best effort: never completed, the upload is never visible; the store drops it by its own lifecycle.
        calls.once("abort multipart upload of", key,
            () -> s3.abortMultipartUpload(b -> b.bucket(config.bucket()).key(key).uploadId(uploadId)));
      }
    }
  }

  private static InputStream open(Directory dir, String name, long offset, long length, UploadCheck check,
      List<InputStream> opened) {
    try {
      IndexInput in = dir.openInput(name, IOContext.DEFAULT);
      InputStream stream;
      try {
        stream = new IndexInputStream(in, offset, length, check);
      } catch (IOException | RuntimeException e) {
        in.close();
        throw e;
      }
      opened.add(stream);
      return stream;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void closeAll(List<InputStream> streams) throws IOException {
    for (InputStream s : streams) {
      s.close();
    }
  }
}
