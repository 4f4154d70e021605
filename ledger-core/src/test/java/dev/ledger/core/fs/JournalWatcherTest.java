package dev.ledger.core.fs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ledger.core.spi.CommitSignal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The directory watch itself, not its polling safety net: a write into a watched directory
 * fires the registered signals (a wait far longer than the polling bound would otherwise be
 * needed), a missing directory gives no registration, and a deleted one ends it.
 */
class JournalWatcherTest {
  @TempDir
  Path dir;

  @Test
  void anAppendToAFileInTheDirectoryFiresTheSignal() throws Exception {
    Path journal = Files.createDirectories(dir.resolve("journal"));
    Path segment = Files.writeString(journal.resolve("segment"), "first\n");
    CommitSignal signal = new CommitSignal();
    try (JournalWatcher.Registration registration =
        JournalWatcher.INSTANCE.register(journal, signal)) {
      assertThat(registration).isNotNull();
      long seen = signal.version();
      Files.writeString(segment, "second\n", StandardCharsets.UTF_8, StandardOpenOption.APPEND);
      assertThat(signal.await(seen, 30, TimeUnit.SECONDS, () -> false))
          .as("fired by the watch within 30 s").isTrue();
    }
  }

  @Test
  void aMissingDirectoryIsNotWatchedAndADeletedOneEndsItsRegistration() throws Exception {
    CommitSignal signal = new CommitSignal();
    assertThat(JournalWatcher.INSTANCE.register(dir.resolve("absent"), signal)).isNull();
    Path journal = Files.createDirectories(dir.resolve("journal"));
    try (JournalWatcher.Registration registration =
        JournalWatcher.INSTANCE.register(journal, signal)) {
      long seen = signal.version();
      Files.delete(journal);
      assertThat(signal.await(seen, 30, TimeUnit.SECONDS, () -> false)).isTrue();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (registration.valid()) {
        assertThat(System.nanoTime()).as("registration ended within 30 s").isLessThan(deadline);
        long again = signal.version();
        signal.await(again, 100, TimeUnit.MILLISECONDS, () -> false);
      }
    }
    assertThat(JournalWatcher.INSTANCE.running()).isFalse();
  }
}
