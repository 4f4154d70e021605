package dev.ledger.postgres;

import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.function.LongFunction;
import java.util.function.ToLongFunction;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/**
 * A lazy stream read from the database a page at a time: each page is fetched after the key
 * (a revision or a sequence) of the last item of the page before, so no statement or
 * connection stays open between pages. A page shorter than the page size ends the stream.
 */
final class Paged {
  private Paged() {}

  /**
   * The items after {@code start}, in key order.
   *
   * @param start the key the first page is fetched after
   * @param pageSize the most items a fetch returns
   * @param fetchAfter reads up to {@code pageSize} items whose key is after the one given;
   *     its exceptions reach the stream's consumer
   * @param key the key of an item
   * @param <T> the item
   * @return the items, fetched as the stream is consumed
   */
  static <T> Stream<T> after(long start, int pageSize, LongFunction<List<T>> fetchAfter,
      ToLongFunction<T> key) {
    Iterator<T> items = new Iterator<>() {
      private long last = start;
      private Iterator<T> page = List.<T>of().iterator();
      private boolean done;

      @Override
      public boolean hasNext() {
        if (!page.hasNext() && !done) {
          List<T> next = fetchAfter.apply(last);
          done = next.size() < pageSize;
          if (!next.isEmpty()) {
            last = key.applyAsLong(next.get(next.size() - 1));
          }
          page = next.iterator();
        }
        return page.hasNext();
      }

      @Override
      public T next() {
        if (!hasNext()) {
          throw new NoSuchElementException();
        }
        return page.next();
      }
    };
    return StreamSupport.stream(Spliterators.spliteratorUnknownSize(items,
        Spliterator.ORDERED | Spliterator.NONNULL), false);
  }
}
