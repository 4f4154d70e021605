package dev.ledger.postgres;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.core.CommitResult;
import dev.ledger.core.EventDraft;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.RevisionConflictException;
import dev.ledger.core.Versioned;
import dev.ledger.testing.base.ChildJvm;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Child main for {@link PostgresRaceTest}: commits {@code count} times to one ledger through
 * its own store, racing the other children. Each commit carries the command id
 * {@code <child>-<k>} and one event naming it; after each acknowledged commit the child
 * appends {@code ACK <revision> <child> <k>} to its ack file and forces it, before the next.
 * A revision conflict re-reads and tries again with the same command.
 *
 * <p>Arguments: JDBC URL, schema, root id, child name, count, ack file.
 */
public final class RacingCommitter {
  /** The ledger's state: how many commits it holds. */
  public record Tally(long commits) {}

  private RacingCommitter() {}

  public static void main(String[] args) throws IOException {
    ChildJvm.exitWhenParentGoes();
    String child = args[3];
    int count = Integer.parseInt(args[4]);
    LedgerOptions options = LedgerOptions.defaults().withLockTimeout(Duration.ofSeconds(30));
    try (PostgresLedgerStore store = PostgresLedgerStore.connect(args[0], "postgres", null,
            args[1], options);
        FileOutputStream acks = new FileOutputStream(Path.of(args[5]).toFile(), true)) {
      Ledger<Tally> ledger = store.ledger(args[2], Tally.class);
      for (int k = 0; k < count; k++) {
        ObjectNode payload = JsonNodeFactory.instance.objectNode().put("child", child)
            .put("k", k);
        EventDraft draft = new EventDraft("tick", payload, child + "-" + k, null);
        CommitResult result;
        while (true) {
          Versioned<Tally> now = ledger.find().orElse(null);
          long revision = now == null ? Ledger.NO_REVISION : now.revision();
          long commits = now == null ? 0 : now.state().commits();
          try {
            result = ledger.commit(revision, new Tally(commits + 1), draft);
            break;
          } catch (RevisionConflictException e) {
            // another child won this revision; read again
          }
        }
        acks.write(("ACK " + result.revision() + " " + child + " " + k + "\n")
            .getBytes(StandardCharsets.UTF_8));
        acks.getFD().sync();
      }
    } catch (RuntimeException | Error e) {
      e.printStackTrace();
      System.exit(1);
    }
    System.out.println("DONE " + child);
  }
}
