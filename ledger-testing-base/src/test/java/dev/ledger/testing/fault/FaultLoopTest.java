package dev.ledger.testing.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The crash loop on a tiny append-only log: it injects one fault per run until the code no
 * longer reaches the n-th operation, lets the check see every fault, and catches a missing
 * directory force.
 */
class FaultLoopTest {
  private static final int RECORDS = 3;

  @TempDir
  Path tmp;

  private int acknowledged;

  /** Appends RECORDS lines, each forced before it counts as acknowledged. */
  private void appendRecords(Path root, boolean forceDirectory) throws IOException {
    acknowledged = 0;
    Path log = root.resolve("log");
    try (FileChannel channel = FileChannel.open(log, StandardOpenOption.CREATE,
        StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
      if (forceDirectory) {
        try (FileChannel dir = FileChannel.open(root, StandardOpenOption.READ)) {
          dir.force(true);
        }
      }
      for (int i = 1; i <= RECORDS; i++) {
        channel.write(ByteBuffer.wrap(("record " + i + "\n").getBytes(StandardCharsets.UTF_8)));
        channel.force(false);
        acknowledged = i;
      }
    }
  }

  /** Every acknowledged record is there, whole, in order. */
  private void checkAcknowledged(Path root) throws IOException {
    Path log = root.resolve("log");
    // Latin-1: a cut may flip a bit of the unacknowledged tail into invalid UTF-8.
    List<String> lines = Files.exists(log)
        ? Files.readAllLines(log, StandardCharsets.ISO_8859_1) : List.of();
    assertThat(lines.size()).as("lines after %s acknowledged", acknowledged)
        .isGreaterThanOrEqualTo(acknowledged);
    for (int i = 0; i < acknowledged; i++) {
      assertThat(lines.get(i)).isEqualTo("record " + (i + 1));
    }
  }

  @Test
  void powerCutAtEveryForceOfCorrectCode() {
    List<FaultLoop.Fault> seen = new ArrayList<>();
    int faults = FaultLoop.powerCutAt(Op.FORCE).run(tmp,
        root -> appendRecords(root, true),
        (root, fault) -> {
          seen.add(fault);
          assertThat(root.getFileSystem()).isEqualTo(tmp.getFileSystem());
          checkAcknowledged(root);
        });
    // One directory force and one force per record.
    assertThat(faults).isEqualTo(RECORDS + 1);
    assertThat(seen).extracting(FaultLoop.Fault::nth).containsExactly(1L, 2L, 3L, 4L);
    assertThat(seen).allSatisfy(fault -> {
      assertThat(fault.powerCut()).isTrue();
      assertThat(fault.thrown()).isPresent();
    });
    assertThat(tmp).isEmptyDirectory();
  }

  @Test
  void ioErrorAtEveryWrite() {
    int faults = FaultLoop.ioErrorAt(Op.WRITE, Persistence.TRANSIENT).run(tmp,
        root -> appendRecords(root, true),
        (root, fault) -> {
          assertThat(fault.powerCut()).isFalse();
          assertThat(fault.lost()).isEmpty();
          assertThat(fault.thrown()).get().asString().contains("injected WRITE fault");
          checkAcknowledged(root);
        });
    assertThat(faults).isEqualTo(RECORDS);
  }

  @Test
  void setupRunsBeforeTheFaultIsPlanned() {
    int faults = FaultLoop.ioErrorAt(Op.CREATE, Persistence.PERSISTENT)
        .withSetup(root -> Files.createDirectory(root.resolve("made-by-setup")))
        .run(tmp, root -> appendRecords(root.resolve("made-by-setup"), false),
            (root, fault) -> assertThat(root.resolve("made-by-setup")).isDirectory());
    assertThat(faults).isEqualTo(1);
  }

  @Test
  void aMissingDirectoryForceIsCaught() {
    // The log's directory entry is never forced: a cut may take the whole file with it.
    List<String> failures = new ArrayList<>();
    for (int seed = 0; seed < 20; seed++) {
      Path scratch = tmp.resolve("seed-" + seed);
      try {
        Files.createDirectories(scratch);
        FaultLoop.powerCutAt(Op.FORCE).withRandom(new Random(new SplittableRandom(seed).nextLong()))
            .run(scratch, root -> appendRecords(root, false),
                (root, fault) -> checkAcknowledged(root));
      } catch (AssertionError e) {
        failures.add(e.getMessage());
      } catch (IOException e) {
        throw new AssertionError(e);
      }
    }
    assertThat(failures).isNotEmpty();
    assertThat(failures.get(0))
        .contains("power cut at FORCE #")
        .contains("files kept in " + tmp)
        .contains("lost in the cut:")
        .contains("undone create");
  }

  @Test
  void codeWithoutTheOperationFailsTheLoop() {
    assertThatThrownBy(() -> FaultLoop.powerCutAt(Op.MOVE).run(tmp,
        root -> appendRecords(root, true), (root, fault) -> { }))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("the code made no MOVE operation");
  }

  @Test
  void codeFailingWithoutAFaultFailsTheLoop() {
    assertThatThrownBy(() -> FaultLoop.powerCutAt(Op.FORCE).run(tmp,
        root -> {
          throw new IOException("my own bug");
        }, (root, fault) -> { }))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("the code failed before any fault")
        .hasRootCauseMessage("my own bug");
  }

  @Test
  void aLoopThatDoesNotEndIsBounded() {
    assertThatThrownBy(() -> FaultLoop.ioErrorAt(Op.WRITE, Persistence.TRANSIENT)
        .withMaxRuns(2).run(tmp, root -> appendRecords(root, true), (root, fault) -> { }))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("still reached operation #2 after 2 runs");
  }
}
