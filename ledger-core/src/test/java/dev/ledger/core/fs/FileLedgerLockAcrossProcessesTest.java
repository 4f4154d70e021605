package dev.ledger.core.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ledger.core.CommitResult;
import dev.ledger.core.Cursor;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.LockTimeoutException;
import dev.ledger.testing.base.ChildJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ledger's writer lock between processes: another process holding it makes a writer
 * time out with a message naming the lock file and the holder's pid, while readers go on
 * unblocked (promise 6); a holder killed with SIGKILL leaves no stale lock; a holder that
 * releases lets a waiting writer in.
 */
class FileLedgerLockAcrossProcessesTest {
  private static final Duration LOCK_TIMEOUT = Duration.ofMillis(200);
  private static final Duration CHILD_DEADLINE = Duration.ofSeconds(30);

  @TempDir
  Path dir;

  private FileLedgerStore store;
  private Ledger<Counter> ledger;
  private Path lockFile;

  @BeforeEach
  void createLedger() {
    store = FileLedgerStore.open(dir.resolve("store"),
        LedgerOptions.defaults().withLockTimeout(LOCK_TIMEOUT));
    ledger = store.ledger("locked", Counter.class);
    ledger.commit(Ledger.NO_REVISION, new Counter(0), Counter.incremented("parent", 0));
    lockFile = store.base().resolve("ledgers").resolve("locked").resolve(".lock");
    assertThat(lockFile).exists();
  }

  @AfterEach
  void closeStore() {
    store.close();
  }

  @Test
  void writerTimesOutNamingTheOtherProcessAndGetsTheLockOnceItIsKilled() throws Exception {
    try (ChildJvm holder = ChildJvm.start(LockHolder.class, lockFile.toString())) {
      holder.awaitLine("LOCKED", CHILD_DEADLINE);

      long started = System.nanoTime();
      assertThatThrownBy(() -> ledger.commit(1, new Counter(1)))
          .isInstanceOfSatisfying(LockTimeoutException.class, e -> {
            assertThat(e.lockFile()).isEqualTo(lockFile);
            assertThat(e.holder()).hasValueSatisfying(
                h -> assertThat(h).contains("pid=" + holder.pid() + " "));
          })
          .hasMessageContaining(lockFile.toString())
          .hasMessageContaining("pid=" + holder.pid() + " ");
      assertThat(Duration.ofNanos(System.nanoTime() - started))
          .isGreaterThanOrEqualTo(LOCK_TIMEOUT);

      // Nothing was written, and readers take no lock: they see revision 1 meanwhile.
      assertThat(ledger.load().revision()).isEqualTo(1);
      assertThat(ledger.events(Cursor.START, 10).events()).hasSize(1);

      holder.kill();
    }
    // The OS dropped the dead holder's lock: the commit gets it within its 200 ms.
    CommitResult result = ledger.commit(1, new Counter(1), Counter.incremented("parent", 1));
    assertThat(result.revision()).isEqualTo(2);
    assertThat(ledger.load().state()).isEqualTo(new Counter(1));
    // While this store writes it keeps the lock channel and its holder line; closing clears it.
    assertThat(Files.readString(lockFile)).contains("pid=" + ProcessHandle.current().pid() + " ");
    store.close();
    assertThat(Files.size(lockFile)).as("holder line cleared when the store closes").isZero();
  }

  @Test
  void waitingWriterProceedsWhenTheOtherProcessReleases() throws Exception {
    try (FileLedgerStore patient = FileLedgerStore.open(store.base(),
            LedgerOptions.defaults().withLockTimeout(CHILD_DEADLINE));
        ChildJvm holder = ChildJvm.start(LockHolder.class, lockFile.toString())) {
      holder.awaitLine("LOCKED", CHILD_DEADLINE);
      Ledger<Counter> waiting = patient.ledger("locked", Counter.class);
      CompletableFuture<CommitResult> commit = new CompletableFuture<>();
      Thread writer = new Thread(() -> {
        try {
          commit.complete(waiting.commit(1, new Counter(1), Counter.incremented("parent", 1)));
        } catch (RuntimeException e) {
          commit.completeExceptionally(e);
        }
      }, "waiting-writer");
      writer.start();
      awaitParked(writer);
      assertThat(commit).as("commit while another process holds the lock").isNotDone();

      holder.send("RELEASE");
      holder.awaitLine("RELEASED", CHILD_DEADLINE);
      assertThat(commit.get(CHILD_DEADLINE.toSeconds(), TimeUnit.SECONDS).revision())
          .isEqualTo(2);
      assertThat(holder.awaitExit(CHILD_DEADLINE)).as(holder.describe()).isZero();
    }
    assertThat(ledger.load().revision()).isEqualTo(2);
  }

  /** Waits (with a deadline) until {@code thread} parks between two tries of the lock. */
  private static void awaitParked(Thread thread) {
    long deadline = System.nanoTime() + CHILD_DEADLINE.toNanos();
    while (thread.getState() != Thread.State.TIMED_WAITING) {
      assertThat(System.nanoTime()).as("%s parked waiting for the lock", thread.getName())
          .isLessThan(deadline);
      assertThat(thread.isAlive()).as("%s still waiting", thread.getName()).isTrue();
      Thread.onSpinWait();
      Thread.yield();
    }
  }
}
