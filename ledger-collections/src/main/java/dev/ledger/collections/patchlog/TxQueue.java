package dev.ledger.collections.patchlog;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.common.base.Preconditions;
import dev.ledger.collections.InvalidValueException;
import dev.ledger.collections.Queue;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;

/**
 * A queue inside one transaction: the view's items minus those this transaction dequeued
 * (always a prefix, as dequeues take the oldest), then the items it enqueued. {@code has} scans
 * the waiting items: it costs the queue's length.
 */
final class TxQueue<T> implements Queue<T> {
  private final TxContext tx;
  private final String name;
  private final Class<T> type;
  /** The view's queue, or null when the partition never held it. */
  private final ItemTable table;
  /** Sequence numbers of view items this transaction dequeued, oldest first. */
  private final List<Long> taken = new ArrayList<>();
  /** Items this transaction enqueued and still holds, oldest first. */
  private final List<ItemTable.Item> added = new ArrayList<>();
  /** How many of the items this transaction enqueued it also dequeued. */
  private int addedTaken;
  private long next;

  TxQueue(TxContext tx, String name, Class<T> type, ItemTable table) {
    this.tx = tx;
    this.name = name;
    this.type = type;
    this.table = table;
    this.next = table == null ? 0 : table.next;
  }

  /** The waiting items, oldest first, lazily. */
  private Iterator<ItemTable.Item> waiting() {
    Iterator<ItemTable.Item> fromView = table == null ? java.util.Collections.emptyIterator()
        : table.from(taken.isEmpty() ? Long.MIN_VALUE : taken.get(taken.size() - 1) + 1)
            .values().iterator();
    Iterator<ItemTable.Item> fromTx = added.subList(addedTaken, added.size()).iterator();
    return new Iterator<>() {
      @Override
      public boolean hasNext() {
        return fromView.hasNext() || fromTx.hasNext();
      }

      @Override
      public ItemTable.Item next() {
        return fromView.hasNext() ? fromView.next() : fromTx.next();
      }
    };
  }

  @Override
  public List<T> peek(int n) {
    return tx.engine.meters.timed(name, "peek", () -> {
      tx.checkOpen();
      List<T> items = new ArrayList<>();
      Iterator<ItemTable.Item> it = waiting();
      while (items.size() < n && it.hasNext()) {
        items.add(tx.fromTree(name, it.next().value(), type));
      }
      return items;
    });
  }

  @Override
  public boolean has(T item) {
    tx.checkOpen();
    Preconditions.checkNotNull(item, "item");
    JsonNode tree = tx.toTree(name, "item", item);
    Iterator<ItemTable.Item> it = waiting();
    while (it.hasNext()) {
      if (Json.equal(it.next().value(), tree)) {
        return true;
      }
    }
    return false;
  }

  @Override
  public long size() {
    tx.checkOpen();
    return (table == null ? 0 : table.items.size()) - taken.size() + added.size() - addedTaken;
  }

  @Override
  public void enqueue(List<T> items) {
    tx.engine.meters.timed(name, "enqueue", () -> {
      tx.checkWritable();
      Preconditions.checkNotNull(items, "items");
      List<JsonNode> trees = new ArrayList<>(items.size());
      List<Integer> sizes = new ArrayList<>(items.size());
      for (T item : items) {
        Preconditions.checkNotNull(item, "an item of queue '%s' is null", name);
        if (!type.isInstance(item)) {
          throw new InvalidValueException(tx.partition, name, "an item must be a "
              + type.getName() + ", was " + item.getClass().getName());
        }
        JsonNode tree = tx.toTree(name, "item", item);
        sizes.add(tx.checkSize(name, "item", tree));
        trees.add(tree);
      }
      for (int i = 0; i < trees.size(); i++) {
        long seq = next++;
        added.add(new ItemTable.Item(seq, trees.get(i), sizes.get(i)));
        ObjectNode payload = Json.NODES.objectNode();
        payload.put("queue", name);
        payload.set("seq", Json.number(seq));
        payload.set("item", trees.get(i));
        tx.event("queue.enqueue", payload);
      }
    });
  }

  @Override
  public List<T> dequeue(int n) {
    return tx.engine.meters.timed(name, "dequeue", () -> {
      tx.checkWritable();
      List<T> items = new ArrayList<>();
      Iterator<ItemTable.Item> it = waiting();
      List<ItemTable.Item> removed = new ArrayList<>();
      while (removed.size() < n && it.hasNext()) {
        ItemTable.Item item = it.next();
        removed.add(item);
        items.add(tx.fromTree(name, item.value(), type));
      }
      for (ItemTable.Item item : removed) {
        if (addedTaken < added.size() && added.get(addedTaken) == item) {
          addedTaken++;
        } else {
          taken.add(item.seq());
        }
        ObjectNode payload = Json.NODES.objectNode();
        payload.put("queue", name);
        payload.set("seq", Json.number(item.seq()));
        tx.event("queue.dequeue", payload);
      }
      return items;
    });
  }

  /**
   * Applies this queue's writes, as committed, to the view's {@code queue}: what
   * {@link PartitionView#applyPatch} makes of {@link #patch}, with the items this transaction
   * enqueued installed as it holds them (measured; the patch holds the same trees, which
   * the view never changes in place).
   */
  void install(ItemTable queue) {
    for (long seq : taken) {
      queue.remove(seq);
    }
    for (ItemTable.Item item : added.subList(addedTaken, added.size())) {
      queue.put(item);
    }
    queue.next = next;
  }

  /** This queue's part of the transaction's patch, or empty when it wrote nothing. */
  Optional<ObjectNode> patch() {
    if (taken.isEmpty() && added.size() == addedTaken && next == (table == null ? 0
        : table.next)) {
      return Optional.empty();
    }
    ObjectNode patch = Json.NODES.objectNode();
    patch.set("next", Json.number(next));
    ObjectNode items = patch.putObject("items");
    for (long seq : taken) {
      items.putNull(Long.toString(seq));
    }
    for (ItemTable.Item item : added.subList(addedTaken, added.size())) {
      items.set(Long.toString(item.seq()), item.value());
    }
    return Optional.of(patch);
  }
}
