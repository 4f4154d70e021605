package dev.ledger.core.fs;

import dev.ledger.core.internal.io.FileLocks;
import dev.ledger.testing.base.ChildJvm;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Child main for {@link FileLedgerLockAcrossProcessesTest}: takes the lock on the given lock
 * file, prints {@code LOCKED}, holds it until the parent sends {@code RELEASE} on stdin, then
 * releases it and prints {@code RELEASED}. Halts without releasing if stdin ends first.
 *
 * <p>Arguments: lock file.
 */
public final class LockHolder {
  private LockHolder() {}

  public static void main(String[] args) throws Exception {
    try (FileLocks.Held held = FileLocks.acquire(Path.of(args[0]), Duration.ofSeconds(30))) {
      System.out.println("LOCKED");
      System.out.flush();
      ChildJvm.awaitFromParent("RELEASE");
    }
    System.out.println("RELEASED");
    System.out.flush();
  }
}
