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
  void anAcquisitionIsUndisturbedOnlyIfNobodyTookTheLockSinceTheOneItNames() throws Exception {
    Path file = dir.resolve(".lock");
    try (FileLocks.Retained kept = FileLocks.retain(file)) {
      long first;
      try (FileLocks.Held held = FileLocks.acquire(file, Duration.ofSeconds(1))) {
        first = held.acquisition();
        assertThat(held.undisturbedSince(0)).isFalse();
      }
      long second;
      try (FileLocks.Held held = FileLocks.acquire(file, Duration.ofSeconds(1))) {
        second = held.acquisition();
        assertThat(held.undisturbedSince(first)).isTrue();
      }
      // Another acquisition of this JVM in between (another store, a repair, a removal).
      try (FileLocks.Held other = FileLocks.acquire(file, Duration.ofSeconds(1))) {
        assertThat(other.acquisition()).isNotIn(0L, first, second);
      }
      long third;
      try (FileLocks.Held held = FileLocks.acquire(file, Duration.ofSeconds(1))) {
        assertThat(held.undisturbedSince(second)).isFalse();
        third = held.acquisition();
      }
      // Another process took the lock in between: it left its own holder line, even one that
      // differs from this process's only in the run id (same pid and host name).
      String own = Files.readString(file);
      assertThat(own).contains(" run=");
      Files.writeString(file, own.replaceAll("run=\\w+", "run=other"));
      long fourth;
      try (FileLocks.Held held = FileLocks.acquire(file, Duration.ofSeconds(1))) {
        assertThat(held.undisturbedSince(third)).isFalse();
        fourth = held.acquisition();
      }
      // ... or it was the last user of its process and emptied the file.
      Files.writeString(file, "");
      try (FileLocks.Held held = FileLocks.acquire(file, Duration.ofSeconds(1))) {
        assertThat(held.undisturbedSince(fourth)).isFalse();
      }
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

  /**
   * Names of one lock file through a linked ancestor, a linked parent, {@code ..} and the
   * real path are one lock in this process (the second acquisition on the same thread is
   * refused as reentrant), and a lock file in a sibling directory of the same parent is
   * another lock: the real directory of a lock file is resolved step by step from cached
   * ancestors, not by a prefix that a link could fake.
   */
  @Test
  void everyNameOfALockFileIsOneLockAndSiblingsAreOthers() throws Exception {
    Path real = Files.createDirectories(dir.resolve("real").resolve("store").resolve("l1"));
    Files.createDirectories(dir.resolve("real").resolve("store").resolve("l2"));
    Path linkedAncestor = Files.createSymbolicLink(dir.resolve("alias"), dir.resolve("real"));
    Path linkedParent = Files.createSymbolicLink(dir.resolve("real").resolve("store")
        .resolve("l3"), real);
    Path file = real.resolve(".lock");
    java.util.List<Path> names = java.util.List.of(
        linkedAncestor.resolve("store").resolve("l1").resolve(".lock"),
        linkedParent.resolve(".lock"),
        real.resolve("..").resolve("l1").resolve(".lock"));
    for (Path name : names) {
      try (FileLocks.Held held = FileLocks.acquire(file, Duration.ofSeconds(1))) {
        assertThatThrownBy(() -> FileLocks.acquire(name, Duration.ofSeconds(1)))
            .as(name.toString())
            .isInstanceOf(IllegalStateException.class).hasMessageContaining("not reentrant");
      }
      try (FileLocks.Held held = FileLocks.acquire(name, Duration.ofSeconds(1))) {
        assertThatThrownBy(() -> FileLocks.acquire(file, Duration.ofSeconds(1)))
            .as(name.toString())
            .isInstanceOf(IllegalStateException.class).hasMessageContaining("not reentrant");
      }
    }
    Path sibling = dir.resolve("real").resolve("store").resolve("l2").resolve(".lock");
    try (FileLocks.Held held = FileLocks.acquire(file, Duration.ofSeconds(1));
        FileLocks.Held other = FileLocks.acquire(sibling, Duration.ofSeconds(1))) {
      assertThat(other).isNotNull();
    }
  }
}
