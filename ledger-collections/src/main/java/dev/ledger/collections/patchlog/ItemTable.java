package dev.ledger.collections.patchlog;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/** The live items of one queue of a partition, by sequence number (FIFO order). */
final class ItemTable {
  /** One item and its size, or {@link DocTable#UNMEASURED}. */
  record Item(long seq, JsonNode value, int bytes) {}

  final TreeMap<Long, Item> items = new TreeMap<>();
  /** The sequence number the next enqueued item gets. */
  long next;
  /** The sizes of the measured items. */
  private long bytes;
  /**
   * Items put {@link DocTable#UNMEASURED} (some may have left the table): most items a
   * journal's fold puts are dequeued before anything asks for the size, so they are measured
   * only when it does.
   */
  private final List<Item> unmeasured = new ArrayList<>();

  /** Puts an item read from a patch; measured only when {@link #bytes()} needs it. */
  void put(long seq, JsonNode value) {
    remove(seq);
    Item item = new Item(seq, value, DocTable.UNMEASURED);
    items.put(seq, item);
    unmeasured.add(item);
  }

  /** Puts a measured item (a transaction's own, see {@code TxQueue#install}). */
  void put(Item item) {
    remove(item.seq());
    items.put(item.seq(), item);
    bytes += item.bytes();
  }

  void remove(long seq) {
    Item item = items.remove(seq);
    if (item != null && item.bytes() != DocTable.UNMEASURED) {
      bytes -= item.bytes();
    }
  }

  /** Bytes of the items as compact JSON; measures those not measured yet. */
  long bytes() {
    for (Item item : unmeasured) {
      if (items.get(item.seq()) == item) {
        Item measured = new Item(item.seq(), item.value(), Json.bytes(item.value()));
        items.put(item.seq(), measured);
        bytes += measured.bytes();
      }
    }
    unmeasured.clear();
    return bytes;
  }

  /** Items with a sequence number of at least {@code from}, oldest first. */
  SortedMap<Long, Item> from(long from) {
    return items.tailMap(from);
  }

  /** {@code {"next": n, "items": {"seq": item}}}. */
  ObjectNode toTree() {
    // Members in the order canonical JSON writes them (names sorted as strings), so that the
    // checkpoint's writer streams them without sorting: sequence numbers of one length sort
    // as numbers do, a queue whose numbers crossed a power of ten is sorted here.
    String[] names = new String[items.size()];
    Item[] values = new Item[names.length];
    int i = 0;
    boolean sorted = true;
    for (Map.Entry<Long, Item> item : items.entrySet()) {
      names[i] = Long.toString(item.getKey());
      values[i] = item.getValue();
      sorted &= i == 0 || names[i - 1].compareTo(names[i]) < 0;
      i++;
    }
    Integer[] order = null;
    if (!sorted) {
      order = new Integer[names.length];
      for (int k = 0; k < order.length; k++) {
        order[k] = k;
      }
      java.util.Arrays.sort(order, (a, b) -> names[a].compareTo(names[b]));
    }
    ObjectNode node = Json.NODES.objectNode();
    ObjectNode list = node.putObject("items");
    for (int k = 0; k < names.length; k++) {
      int at = order == null ? k : order[k];
      list.set(names[at], values[at].value());
    }
    node.set("next", Json.number(next));
    return node;
  }
}
