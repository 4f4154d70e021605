package dev.ledger.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.fs.FileLedgerStore;
import java.nio.file.Path;

/**
 * The ledger with a ~64 KiB state (64 fields of ~1,000 characters): each commit changes
 * either one small field (a patch record) or every field (a whole-state record), and
 * appends the ~200-byte event of the standard workload.
 */
final class LargeLedgerTarget implements CommitTarget {
  static final int FIELDS = 64;
  /** The field names, formatted once: the timed loop measures the ledger, not the formatter. */
  private static final String[] NAMES = new String[FIELDS];

  static {
    for (int i = 0; i < FIELDS; i++) {
      NAMES[i] = String.format("f%02d", i);
    }
  }

  private final FileLedgerStore store;
  private final Ledger<JsonNode> ledger;
  private final ObjectNode state;
  private final boolean fullChange;
  private final String body = Workload.filler(1000);
  private long revision;
  private long counter;

  LargeLedgerTarget(Path base, boolean fullChange) {
    this(base, fullChange, LedgerOptions.defaults());
  }

  /** The same target on a store opened with {@code options} (a diagnostic's settings). */
  LargeLedgerTarget(Path base, boolean fullChange, LedgerOptions options) {
    this.store = FileLedgerStore.open(base, options);
    this.ledger = store.ledger("large", JsonNode.class);
    this.fullChange = fullChange;
    this.state = Workload.JSON.createObjectNode();
    fill(0);
    revision = ledger.commit(Ledger.NO_REVISION, state.deepCopy(), Workload.event(0))
        .revision();
  }

  private void fill(long value) {
    for (int i = 0; i < FIELDS; i++) {
      state.put(NAMES[i], fullChange ? value + body : body);
    }
    state.put("counter", value);
  }

  @Override
  public void commit() {
    counter++;
    if (fullChange) {
      fill(counter);
    } else {
      state.put("counter", counter);
    }
    revision = ledger.commit(revision, state, Workload.event(counter)).revision();
  }

  @Override
  public void close() {
    store.close();
  }
}
