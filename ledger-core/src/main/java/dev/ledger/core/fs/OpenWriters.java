package dev.ledger.core.fs;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;

/**
 * The bounded set of a store's ledgers that hold open files for writing (a journal segment
 * channel, the lock file's channel, preallocated zeros), in least recently committed order.
 * When a commit leaves more than {@code limit} of them open, the least recently committed are
 * {@linkplain FileLedger#park() parked}, on the committing thread once its own ledger's lock
 * is released (so no thread waits for one ledger's lock while it holds another's). A ledger
 * whose lock is busy (it is committing, in this process or another) is not parked and stays
 * in the set; the next commit that overflows the set tries again. Thread-safe.
 */
final class OpenWriters {
  private final int limit;
  /** Access-ordered: the first entry is the least recently committed. Guarded by this. */
  private final LinkedHashMap<FileLedger, Boolean> open = new LinkedHashMap<>(16, 0.75f, true);

  OpenWriters(int limit) {
    this.limit = limit;
  }

  /**
   * Records that {@code ledger} committed (or tried to) and may hold open files; parks the
   * least recently committed others while more than the limit are open. Call it with no
   * ledger lock held.
   */
  void committed(FileLedger ledger) {
    List<FileLedger> victims;
    synchronized (this) {
      open.put(ledger, Boolean.TRUE);
      if (open.size() <= limit) {
        return;
      }
      victims = new ArrayList<>(open.size() - limit);
      Iterator<FileLedger> eldest = open.keySet().iterator();
      while (open.size() > limit && eldest.hasNext()) {
        FileLedger candidate = eldest.next();
        if (candidate != ledger) {
          eldest.remove();
          victims.add(candidate);
        }
      }
    }
    for (FileLedger victim : victims) {
      if (!victim.park()) {
        synchronized (this) {
          // Busy: it stays open, and counted, until a later overflow parks it.
          open.put(victim, Boolean.TRUE);
        }
      }
    }
  }

  /** How many ledgers may hold open files now (for tests and the benchmark). */
  synchronized int size() {
    return open.size();
  }

  /** Forgets every ledger (the store is closing them). */
  synchronized void clear() {
    open.clear();
  }
}
