package dev.ledger.artifacts.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ledger.artifacts.ArtifactBackupResult;
import dev.ledger.artifacts.ArtifactRef;
import dev.ledger.artifacts.ArtifactVerification;
import dev.ledger.artifacts.AttemptSubmission;
import dev.ledger.artifacts.ContentId;
import dev.ledger.core.BackupResult;
import dev.ledger.core.Cursor;
import dev.ledger.core.Event;
import dev.ledger.core.EventDraft;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerIOException;
import dev.ledger.core.RevisionConflictException;
import dev.ledger.core.VerifyReport;
import dev.ledger.core.fs.FileLedgerStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A base directory holding a ledger store and an artifact store, backed up online into one
 * target (ledgers first, then artifacts) while 4 writers put blobs, freeze snapshots and
 * commit events naming them: both copies verify, and every attempt an event of the ledger
 * copy names has its snapshot and blob in the artifact copy.
 */
class StoreBackupTest {
  private static final int WRITERS = 4;

  @TempDir
  Path dir;

  /**
   * A ledger's state: the attempts recorded.
   *
   * @param attempts how many
   */
  record Attempts(long attempts) {}

  @Test
  void ledgersThenArtifactsBackedUpUnderFourWritersVerifyAndAgree() throws Exception {
    Path base = dir.resolve("base");
    Path target = dir.resolve("backup");
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong done = new AtomicLong();
    AtomicReference<Throwable> failed = new AtomicReference<>();
    BackupResult ledgerCopy;
    ArtifactBackupResult artifactCopy;
    try (FileLedgerStore ledgers = FileLedgerStore.open(base);
        FileArtifactStore artifacts = FileArtifactStore.open(base)) {
      List<Thread> threads = new ArrayList<>();
      for (int w = 0; w < WRITERS; w++) {
        String writer = "w" + w;
        Thread t = new Thread(() -> {
          try {
            for (int i = 0; !stop.get(); i++) {
              String attempt = writer + "-" + i;
              ContentId blob = artifacts.blobs().put(("output of " + attempt)
                  .getBytes(StandardCharsets.UTF_8));
              artifacts.freeze("run", attempt, AttemptSubmission.of(attempt,
                  List.of(ArtifactRef.ofBlob("out", "text/plain", blob)), List.of()));
              record(ledgers.ledger("run-" + writer, Attempts.class), attempt);
              done.incrementAndGet();
            }
          } catch (RuntimeException | Error e) {
            failed.compareAndSet(null, e);
          }
        }, writer);
        threads.add(t);
        t.start();
      }
      await(done, 40, failed);
      ledgerCopy = ledgers.backup(target);
      artifactCopy = artifacts.backup(target);
      await(done, done.get() + 20, failed);
      stop.set(true);
      for (Thread t : threads) {
        t.join(60_000);
      }
      assertThat(failed.get()).isNull();
      assertThatThrownBy(() -> artifacts.backup(target)).isInstanceOf(LedgerIOException.class)
          .hasMessageContaining("artifacts");
    }
    assertThat(ledgerCopy.ledgers()).isEqualTo(WRITERS);
    try (FileLedgerStore ledgers = FileLedgerStore.openReadOnly(target);
        FileArtifactStore artifacts = FileArtifactStore.openReadOnly(target)) {
      VerifyReport report = ledgers.verify();
      assertThat(report.clean()).as("%s", report.findings()).isTrue();
      ArtifactVerification verification = artifacts.verify();
      assertThat(verification.sound()).as("%s", verification).isTrue();
      int named = 0;
      for (String root : ledgers.rootIds()) {
        try (Stream<Event> events = ledgers.ledger(root, Attempts.class).replay(Cursor.START)) {
          for (Event e : events.toList()) {
            String attempt = e.payload().get("attempt").asText();
            assertThat(artifacts.getForAttempt("run", attempt)).as(attempt).isPresent();
            named++;
          }
        }
      }
      assertThat(named).isGreaterThan(0);
      assertThat(artifactCopy.snapshots()).isGreaterThanOrEqualTo(named);
      // Blobs are listed after snapshots: those put meanwhile are copied too.
      assertThat(artifactCopy.blobs()).isGreaterThanOrEqualTo(artifactCopy.snapshots());
      System.out.printf("backup of ledgers (%s) and artifacts (%d snapshots, %d blobs, %d bytes)"
          + " under %d writers: %d attempts named by the ledgers, all present%n",
          ledgerCopy.revisions(), artifactCopy.snapshots(), artifactCopy.blobs(),
          artifactCopy.bytes(), WRITERS, named);
    }
  }

  private static void record(Ledger<Attempts> ledger, String attempt) {
    while (true) {
      long at = ledger.find().map(v -> v.revision()).orElse(Ledger.NO_REVISION);
      try {
        ledger.commit(at, new Attempts(at + 1), EventDraft.of("attempt.frozen",
            Map.of("attempt", attempt)));
        return;
      } catch (RevisionConflictException e) {
        // one writer per ledger here, but keep the loop honest
      }
    }
  }

  private static void await(AtomicLong done, long atLeast, AtomicReference<Throwable> failed)
      throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    while (done.get() < atLeast && failed.get() == null) {
      assertThat(System.nanoTime()).as("%d steps within 120 s", atLeast).isLessThan(deadline);
      Thread.sleep(5);
    }
    assertThat(failed.get()).isNull();
  }
}
