package dev.ledger.artifacts.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.ledger.artifacts.ArtifactOptions;
import dev.ledger.artifacts.ArtifactRef;
import dev.ledger.artifacts.ArtifactSnapshot;
import dev.ledger.artifacts.AttemptSubmission;
import dev.ledger.artifacts.ContentId;
import dev.ledger.core.LedgerException;
import dev.ledger.testing.base.SeedExtension;
import dev.ledger.testing.base.TestSeed;
import dev.ledger.testing.fault.FaultyFileSystem;
import dev.ledger.testing.fault.Op;
import dev.ledger.testing.fault.Persistence;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * I/O error and power-cut loops for blob put and freeze, on core's fault-injecting file
 * system: after every fault, what was acknowledged is intact and a retry succeeds.
 */
@ExtendWith(SeedExtension.class)
class ArtifactFaultInjectionTest {
  private static final byte[] A = "blob A: the first output".getBytes(StandardCharsets.UTF_8);
  private static final byte[] B = "blob B: the second output, a little longer"
      .getBytes(StandardCharsets.UTF_8);

  @TempDir
  Path tmp;

  private static ArtifactOptions options() {
    return ArtifactOptions.defaults()
        .withClock(Clock.fixed(Instant.parse("2026-11-29T12:00:00Z"), ZoneOffset.UTC));
  }

  private static AttemptSubmission submission(String summary, ContentId blob) {
    return AttemptSubmission.of(summary, List.of(ArtifactRef.ofBlob("out", "text/plain", blob)),
        List.of());
  }

  /** What the script acknowledged before the fault. */
  private static final class Acks {
    ContentId a;
    ArtifactSnapshot first;
    ContentId b;
    ArtifactSnapshot second;
  }

  private static void script(FileArtifactStore store, Acks acks) {
    acks.a = store.blobs().put(A);
    acks.first = store.freeze("root-1", "attempt-1", submission("first", acks.a));
    acks.b = store.blobs().put(B);
    acks.second = store.freeze("root-1", "attempt-2", submission("second", acks.b));
  }

  private static byte[] read(FileArtifactStore store, ContentId id) throws IOException {
    try (InputStream in = store.blobs().open(id)) {
      return in.readAllBytes();
    }
  }

  private static void verify(Path root, Acks acks, String context) throws IOException {
    try (FileArtifactStore store = FileArtifactStore.open(root, options())) {
      if (acks.a != null) {
        assertThat(read(store, acks.a)).as(context).isEqualTo(A);
      }
      if (acks.first != null) {
        assertThat(store.getForAttempt("root-1", "attempt-1")).as(context).contains(acks.first);
      }
      if (acks.b != null) {
        assertThat(read(store, acks.b)).as(context).isEqualTo(B);
      }
      if (acks.second != null) {
        assertThat(store.getForAttempt("root-1", "attempt-2")).as(context).contains(acks.second);
      }
      Optional<ArtifactSnapshot> maybe = store.getForAttempt("root-1", "attempt-2");
      maybe.ifPresent(s -> assertThat(s.content().summary()).as(context).isEqualTo("second"));
      assertThat(store.blobs().verify().damaged()).as(context).isEmpty();
      // A retry of the whole script succeeds and gives the same snapshots.
      Acks again = new Acks();
      script(store, again);
      if (acks.second != null) {
        assertThat(again.second).as(context).isEqualTo(acks.second);
      }
    }
  }

  @ParameterizedTest
  @EnumSource(value = Op.class, names = {"WRITE", "FORCE", "LINK", "CREATE", "DELETE"})
  void everyFailedOperationLeavesAcknowledgedArtifactsIntact(Op op) throws IOException {
    int faults = 0;
    for (Persistence persistence : Persistence.values()) {
      for (int n = 1; ; n++) {
        String context = op + " " + persistence + " fault at #" + n;
        Path dir = Files.createDirectories(tmp.resolve(op + "-" + persistence + "-" + n));
        FaultyFileSystem fs = FaultyFileSystem.over(dir);
        Path root = fs.root().resolve("store");
        FileArtifactStore.open(root, options()).close();
        fs.failAt(op, n, persistence);
        Acks acks = new Acks();
        try (FileArtifactStore store = FileArtifactStore.open(root, options())) {
          script(store, acks);
        } catch (LedgerException e) {
          assertThat(fs.injected()).as(context + ": " + e).isPositive();
        }
        fs.clearFaults();
        if (fs.injected() == 0) {
          break;
        }
        faults++;
        verify(root, acks, context);
        assertThat(n).as(context).isLessThan(200);
      }
    }
    System.out.printf("artifact fault loop %s: %d faults injected%n", op, faults);
  }

  @ParameterizedTest
  @EnumSource(value = Op.class, names = {"WRITE", "FORCE", "LINK", "CREATE"})
  void powerCutAtEveryOperationLosesNoAcknowledgedArtifact(Op op, TestSeed seed)
      throws IOException {
    Random random = seed.random();
    int cuts = 0;
    for (int n = 1; ; n++) {
      String context = seed + ": power cut at " + op + " #" + n;
      Path dir = Files.createDirectories(tmp.resolve("cut-" + op + "-" + n));
      FaultyFileSystem fs = FaultyFileSystem.over(dir);
      Path root = fs.root().resolve("store");
      fs.powerCutAt(op, n, random);
      Acks acks = new Acks();
      try (FileArtifactStore store = FileArtifactStore.open(root, options())) {
        script(store, acks);
      } catch (LedgerException e) {
        if (fs.injected() == 0) {
          fail(context + ": failure without a fault", e);
        }
      }
      if (fs.injected() == 0) {
        break;
      }
      cuts++;
      verify(root, acks, context);
    }
    System.out.printf("artifact power-cut loop %s: %d cuts (%s)%n", op, cuts, seed);
  }
}
