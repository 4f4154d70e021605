package dev.ledger.core.fs;

import dev.ledger.testing.base.ChildJvm;
import java.nio.file.Path;

/**
 * Child main for {@link RemovalCrashTest}: runs one store operation over and over until it is
 * killed, printing a line before and after each, flushed, so the parent knows exactly which
 * ones returned.
 *
 * <p>Arguments: mode, store directory, ledger count, target directory. Modes:
 * <ul>
 *   <li>{@code delete}: deletes {@code r-0}, {@code r-1}, … in turn: {@code DELETING r-i},
 *       then {@code DELETED r-i};
 *   <li>{@code archive}: archives each to {@code <target>/r-i}: {@code ARCHIVING r-i}, then
 *       {@code ARCHIVED r-i};
 *   <li>{@code backup}: prints {@code START}, backs the store up into {@code target}, prints
 *       {@code DONE}.
 * </ul>
 */
public final class RemovalChild {
  private RemovalChild() {}

  public static void main(String[] args) {
    ChildJvm.exitWhenParentGoes();
    String mode = args[0];
    int count = Integer.parseInt(args[2]);
    Path target = Path.of(args[3]);
    try (FileLedgerStore store = FileLedgerStore.open(Path.of(args[1]),
        AckingCommitter.options())) {
      if (mode.equals("backup")) {
        say("START");
        store.backup(target);
        say("DONE");
        return;
      }
      for (int i = 0; i < count; i++) {
        String root = "r-" + i;
        if (mode.equals("delete")) {
          say("DELETING " + root);
          store.delete(root);
          say("DELETED " + root);
        } else {
          say("ARCHIVING " + root);
          store.archive(root, target.resolve(root));
          say("ARCHIVED " + root);
        }
      }
      say("END");
    } catch (RuntimeException | Error e) {
      e.printStackTrace();
      System.exit(1);
    }
  }

  private static void say(String line) {
    System.out.println(line);
    System.out.flush();
  }
}
