package dev.ledger.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.core.LedgerException;
import dev.ledger.core.LedgerHead;
import dev.ledger.core.RootIdCursor;
import dev.ledger.core.RootIdPage;
import dev.ledger.core.fs.FileLedgerStore;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code ledger ls DIR [--json]}: the ledgers of a store, one line each. */
@Command(name = "ls", mixinStandardHelpOptions = true,
    description = {"List the ledgers of the store in DIR, in root id order: revision, events, "
        + "last commit time and the bytes of the ledger's files.",
        "Read-only: creates, locks and changes nothing. A ledger whose files are damaged is "
        + "listed with its error on standard error, and the exit code is then 1."})
final class LsCommand implements Callable<Integer>, StoreCommand {
  private static final int PAGE = 1000;

  @Spec
  CommandSpec spec;

  @Parameters(index = "0", paramLabel = "DIR", description = "The store directory.")
  Path dir;

  @Override
  public Path dir() {
    return dir;
  }

  @Option(names = "--json", description = "A JSON array, one object per ledger and line: "
      + "root, revision, events, lastCommitAt, bytes.")
  boolean json;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    int exit = ExitCodes.OK;
    boolean first = true;
    try (FileLedgerStore store = Stores.ledgersReadOnly(dir)) {
      if (json) {
        out.print("[");
      } else {
        out.printf("%-24s %9s %9s %-30s %10s%n", "ROOT", "REVISION", "EVENTS", "LAST COMMIT",
            "BYTES");
      }
      RootIdCursor cursor = RootIdCursor.START;
      RootIdPage page;
      do {
        page = store.rootIds(cursor, PAGE);
        for (String root : page.rootIds()) {
          Optional<LedgerHead> head;
          try {
            head = store.head(root);
          } catch (LedgerException e) {
            err.println(spec.qualifiedName() + ": ledger '" + root + "': "
                + Failures.describe(e));
            exit = Math.max(exit, Failures.exitCode(e));
            continue;
          }
          if (head.isEmpty()) {
            continue; // listed while its first commit was in flight
          }
          long bytes = bytes(store.base().resolve("ledgers").resolve(directoryName(root)));
          if (json) {
            ObjectNode node = Json.MAPPER.createObjectNode();
            node.put("root", root);
            node.put("revision", head.get().revision());
            node.put("events", head.get().events());
            node.put("lastCommitAt", head.get().lastCommitAt().toString());
            node.put("bytes", bytes);
            out.print((first ? "\n" : ",\n") + Json.line(node));
          } else {
            out.printf("%-24s %9d %9d %-30s %10d%n", root, head.get().revision(),
                head.get().events(), head.get().lastCommitAt(), bytes);
          }
          first = false;
        }
        cursor = page.nextCursor();
      } while (page.hasMore());
      if (json) {
        out.println(first ? "]" : "\n]");
      }
    }
    out.flush();
    return exit;
  }

  /**
   * The directory name of a root id, as {@code FileLedgerStore} documents its layout: the id
   * with each upper-case letter written as {@code !} and the letter in lower case, so that
   * ids differing only in case stay apart on case-insensitive file systems.
   */
  static String directoryName(String rootId) {
    StringBuilder name = new StringBuilder(rootId.length() + 4);
    for (char c : rootId.toCharArray()) {
      if (c >= 'A' && c <= 'Z') {
        name.append('!').append(Character.toLowerCase(c));
      } else {
        name.append(c);
      }
    }
    return name.toString();
  }

  /** The bytes of the regular files below {@code dir}; files that vanish meanwhile count 0. */
  private static long bytes(Path dir) {
    long[] total = {0};
    try {
      Files.walkFileTree(dir, new SimpleFileVisitor<>() {
        @Override
        public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) {
          if (attributes.isRegularFile()) {
            total[0] += attributes.size();
          }
          return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult visitFileFailed(Path file, IOException e) {
          return FileVisitResult.CONTINUE; // a temp file a writer renamed or removed
        }
      });
    } catch (NoSuchFileException e) {
      return 0;
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return total[0];
  }
}
