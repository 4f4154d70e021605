package dev.ledger.collections.patchlog;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/** The live items of one queue of a partition, by sequence number (FIFO order). */
final class ItemTable {
  /** One item and its size. */
  record Item(long seq, JsonNode value, int bytes) {}

  final TreeMap<Long, Item> items = new TreeMap<>();
  /** The sequence number the next enqueued item gets. */
  long next;
  long bytes;

  void put(long seq, JsonNode value) {
    remove(seq);
    Item item = new Item(seq, value, Json.bytes(value));
    items.put(seq, item);
    bytes += item.bytes();
  }

  void remove(long seq) {
    Item item = items.remove(seq);
    if (item != null) {
      bytes -= item.bytes();
    }
  }

  /** Items with a sequence number of at least {@code from}, oldest first. */
  SortedMap<Long, Item> from(long from) {
    return items.tailMap(from);
  }

  /** {@code {"next": n, "items": {"seq": item}}}. */
  ObjectNode toTree() {
    ObjectNode node = Json.NODES.objectNode();
    node.set("next", Json.number(next));
    ObjectNode list = node.putObject("items");
    for (Map.Entry<Long, Item> item : items.entrySet()) {
      list.set(Long.toString(item.getKey()), item.getValue().value());
    }
    return node;
  }
}
