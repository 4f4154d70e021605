package dev.ledger.collections;

import java.util.List;

/**
 * The reads of one FIFO queue of one partition. Valid only inside the callback that handed it
 * out; not thread-safe.
 *
 * @param <T> the item type
 */
public interface QueueReader<T> {
  /**
   * The oldest items, without removing them.
   *
   * @param n how many at most; zero or less returns none
   * @return up to {@code n} items, oldest first
   */
  List<T> peek(int n);

  /**
   * Whether an item equal (as JSON) to {@code item} is waiting. Queues do not deduplicate:
   * this is how a caller avoids duplicates.
   *
   * @param item the item
   * @return true if it is in the queue
   */
  boolean has(T item);

  /**
   * The number of waiting items.
   *
   * @return the count
   */
  long size();
}
