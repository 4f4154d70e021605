package dev.ledger.collections.patchlog;

import java.util.Arrays;
import java.util.Comparator;
import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * A collection's documents by ordinal, in ascending order: what a {@code TreeMap<Long, Doc>}
 * gave {@link DocTable}, for the way a table changes. After a view is open, a document put
 * is either inserted, with an ordinal above every other (the partition's next), or a new
 * version at its own ordinal: an append to two parallel arrays, or a binary search over a
 * {@code long[]}, where a tree map walked and rebalanced boxed keys on every insert. A put
 * below the greatest ordinal that is not already there (a checkpoint loads documents in key
 * order) is appended out of order, and the arrays are sorted once before the next ordered
 * access, of the first {@link #remove} or {@link #values}; until then, a later put of an
 * ordinal replaces an earlier one, as in a map. Removed entries are left as holes, skipped
 * when iterating, and squeezed out when they are more than half the slots.
 *
 * <p>Not thread-safe: mutated, like its table, only while the view's write side is held.
 * Readers iterate it under the read side, and find it sorted: its table sorts it after an
 * out-of-order put unless it defers its indexes (a view being opened, which nothing reads),
 * and then when it builds them ({@link DocTable#put}, {@link DocTable#buildIndexes}).
 */
final class OrdinalMap {
  private static final Comparator<DocTable.Doc> BY_ORDINAL =
      Comparator.comparingLong(doc -> doc.ordinal);

  private long[] ordinals = new long[8];
  private DocTable.Doc[] docs = new DocTable.Doc[8];
  /** Slots in use, holes included. */
  private int used;
  /** Holes (removed entries) among the slots in use. */
  private int holes;
  /** Whether the slots are in ascending order of ordinal, each ordinal once. */
  private boolean sorted = true;

  /** Puts {@code doc} at its ordinal, in the place of any document there. */
  void put(DocTable.Doc doc) {
    long ordinal = doc.ordinal;
    if (sorted && used > 0 && ordinal <= ordinals[used - 1]) {
      int at = Arrays.binarySearch(ordinals, 0, used, ordinal);
      if (at >= 0) {
        if (docs[at] == null) {
          holes--;
        }
        docs[at] = doc;
        return;
      }
      sorted = false;
    }
    if (used == ordinals.length) {
      int capacity = Math.max(8, used * 2);
      ordinals = Arrays.copyOf(ordinals, capacity);
      docs = Arrays.copyOf(docs, capacity);
    }
    ordinals[used] = ordinal;
    docs[used] = doc;
    used++;
  }

  /** Removes the document at {@code ordinal}, if any. */
  void remove(long ordinal) {
    sort();
    int at = Arrays.binarySearch(ordinals, 0, used, ordinal);
    if (at < 0 || docs[at] == null) {
      return;
    }
    docs[at] = null;
    holes++;
    if (holes > 16 && holes > used / 2) {
      squeeze();
    }
  }

  /** The documents in ascending order of ordinal. */
  Iterable<DocTable.Doc> values() {
    sort();
    return () -> new Iterator<>() {
      private int next = advance(0);

      private int advance(int from) {
        int i = from;
        while (i < used && docs[i] == null) {
          i++;
        }
        return i;
      }

      @Override
      public boolean hasNext() {
        return next < used;
      }

      @Override
      public DocTable.Doc next() {
        if (next >= used) {
          throw new NoSuchElementException();
        }
        DocTable.Doc doc = docs[next];
        next = advance(next + 1);
        return doc;
      }
    };
  }

  /**
   * Sorts {@code live[0..n)} by ordinal, stably (entries of one ordinal stay in the order they
   * were put). A cold open sorts every document of a checkpoint here: each entry's ordinal and
   * place are packed into one {@code long} (ordinal high, place low, so the place breaks ties)
   * and the longs sorted as primitives, several times faster than sorting the documents with
   * a comparator; ordinals too large to pack (never seen: a partition's ordinals count its
   * inserts) take the comparator sort.
   */
  private static void sortStable(DocTable.Doc[] live, int n) {
    int placeBits = 64 - Long.numberOfLeadingZeros(Math.max(1, n - 1));
    long max = 0;
    long min = 0;
    for (int i = 0; i < n; i++) {
      max = Math.max(max, live[i].ordinal);
      min = Math.min(min, live[i].ordinal);
    }
    if (n < 2 || min < 0 || placeBits >= 63
        || max >= (1L << (63 - placeBits))) {
      Arrays.sort(live, 0, n, BY_ORDINAL);
      return;
    }
    long[] packed = new long[n];
    for (int i = 0; i < n; i++) {
      packed[i] = (live[i].ordinal << placeBits) | i;
    }
    Arrays.sort(packed);
    DocTable.Doc[] from = Arrays.copyOf(live, n);
    long mask = (1L << placeBits) - 1;
    for (int i = 0; i < n; i++) {
      live[i] = from[(int) (packed[i] & mask)];
    }
  }

  /**
   * Puts the slots in order after out-of-order puts: of the entries of one ordinal the last
   * put wins, and holes go.
   */
  void sort() {
    if (sorted) {
      return;
    }
    DocTable.Doc[] live = new DocTable.Doc[used - holes];
    int n = 0;
    for (int i = 0; i < used; i++) {
      if (docs[i] != null) {
        live[n++] = docs[i];
      }
    }
    sortStable(live, n);
    int kept = 0;
    for (int i = 0; i < n; i++) {
      if (kept > 0 && live[kept - 1].ordinal == live[i].ordinal) {
        live[kept - 1] = live[i];
      } else {
        live[kept++] = live[i];
      }
    }
    long[] keys = new long[Math.max(8, kept)];
    for (int i = 0; i < kept; i++) {
      keys[i] = live[i].ordinal;
    }
    ordinals = keys;
    docs = kept == keys.length ? live : Arrays.copyOf(live, keys.length);
    used = kept;
    holes = 0;
    sorted = true;
  }

  private void squeeze() {
    int kept = 0;
    for (int i = 0; i < used; i++) {
      if (docs[i] != null) {
        ordinals[kept] = ordinals[i];
        docs[kept] = docs[i];
        kept++;
      }
    }
    Arrays.fill(docs, kept, used, null);
    used = kept;
    holes = 0;
  }
}
