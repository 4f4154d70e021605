package dev.ledger.core.internal.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ledger.core.LockLostException;
import dev.ledger.core.LockTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileLocksTest {
  @TempDir
  Path dir;

  @Test
  void deletedLockFileIsNoticedBeforeTheNextCommitPoint() throws Exception {
    Path file = dir.resolve(".lock");
    try (FileLocks.Held held = FileLocks.acquire(file, Duration.ofSeconds(1))) {
      held.verify();
      Files.delete(file);
      assertThatThrownBy(held::verify).isInstanceOf(LockLostException.class)
          .hasMessageContaining("deleted").hasMessageContaining(file.toString());
    }
  }

  @Test
  void replacedLockFileIsNoticed() throws Exception {
    Path file = dir.resolve(".lock");
    try (FileLocks.Held held = FileLocks.acquire(file, Duration.ofSeconds(1))) {
      Files.delete(file);
      Files.createFile(file);
      assertThatThrownBy(held::verify).isInstanceOf(LockLostException.class)
          .hasMessageContaining("replaced");
    }
    try (FileLocks.Held again = FileLocks.acquire(file, Duration.ofSeconds(1))) {
      again.verify();
    }
  }

  @Test
  void secondThreadTimesOutNamingThisProcessAndGetsTheLockOnceReleased() throws Exception {
    Path file = dir.resolve(".lock");
    FileLocks.Held held = FileLocks.acquire(file, Duration.ofSeconds(1));
    assertThat(Files.readString(file)).contains("pid=" + ProcessHandle.current().pid());
    CompletableFuture<Throwable> waiter = CompletableFuture.supplyAsync(() -> {
      try (FileLocks.Held other = FileLocks.acquire(file, Duration.ofMillis(100))) {
        return null;
      } catch (Throwable e) {
        return e;
      }
    });
    assertThat(waiter.get(10, TimeUnit.SECONDS)).isInstanceOf(LockTimeoutException.class)
        .hasMessageContaining(file.toString());
    held.close();
    assertThat(Files.readString(file)).isEmpty();
    CompletableFuture<Void> next = CompletableFuture.runAsync(() -> {
      try (FileLocks.Held other = FileLocks.acquire(file, Duration.ofSeconds(5))) {
        other.verify();
      }
    });
    next.get(10, TimeUnit.SECONDS);
  }

  @Test
  void reentrantAcquisitionIsRefusedInsteadOfDeadlocking() {
    Path file = dir.resolve(".lock");
    try (FileLocks.Held held = FileLocks.acquire(file, Duration.ofSeconds(1))) {
      assertThatThrownBy(() -> FileLocks.acquire(file, Duration.ofSeconds(1)))
          .isInstanceOf(IllegalStateException.class).hasMessageContaining("not reentrant");
    }
  }
}
