package dev.ledger.collections;

import java.util.List;

/**
 * One FIFO queue of one partition inside a transaction. Reads see the transaction's own
 * writes; an item dequeued by a committed transaction is never dequeued again.
 *
 * @param <T> the item type
 */
public interface Queue<T> extends QueueReader<T> {
  /**
   * Appends items, in order; no deduplication.
   *
   * @param items the items
   * @throws InvalidValueException if an item maps to null; nothing is enqueued
   * @throws dev.ledger.core.LimitExceededException if an item exceeds the size limit
   */
  void enqueue(List<T> items);

  /**
   * Removes and returns the oldest items.
   *
   * @param n how many at most; zero or less removes none
   * @return up to {@code n} items, oldest first
   */
  List<T> dequeue(int n);
}
