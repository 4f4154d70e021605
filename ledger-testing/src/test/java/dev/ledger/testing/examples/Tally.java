package dev.ledger.testing.examples;

import dev.ledger.core.EventDraft;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerStore;
import dev.ledger.core.Versioned;
import java.util.Map;

/**
 * "User code" for the crash example: a tally that commits one increment per item to a
 * ledger. When {@link #add} returns, the increment is acknowledged: it must survive anything.
 */
final class Tally {
  /** The tally's state: how many items were added, and the last one. */
  record Count(long items, String last) {}

  private final Ledger<Count> ledger;

  Tally(LedgerStore store) {
    this.ledger = store.ledger("tally", Count.class);
  }

  /** Adds an item; durable when it returns. */
  void add(String item) {
    Versioned<Count> current = ledger.find().orElse(null);
    long revision = current == null ? Ledger.NO_REVISION : current.revision();
    long items = current == null ? 0 : current.state().items();
    ledger.commit(revision, new Count(items + 1, item),
        EventDraft.of("item.added", Map.of("item", item)).withCommandId("add-" + item));
  }

  /** How many items were added. */
  long count() {
    return ledger.find().map(v -> v.state().items()).orElse(0L);
  }
}
