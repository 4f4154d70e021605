package dev.ledger.collections.patchlog;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.common.base.Preconditions;
import dev.ledger.collections.InvalidValueException;
import dev.ledger.collections.KeyValue;
import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/** A key-value inside one transaction: the view's values under this transaction's writes. */
final class TxKeyValue<K, V> implements KeyValue<K, V> {
  private final TxContext tx;
  private final String name;
  private final Class<V> valueType;
  /** The view's values, or null when the partition never held this key-value. */
  private final Map<String, JsonNode> values;
  /** Keys this transaction wrote: the new value, or null when removed. */
  private final Map<String, JsonNode> overlay = new LinkedHashMap<>();
  private long size;

  TxKeyValue(TxContext tx, String name, Class<K> keyType, Class<V> valueType,
      Map<String, JsonNode> values) {
    this.tx = tx;
    this.name = name;
    this.valueType = valueType;
    this.values = values;
    this.size = values == null ? 0 : values.size();
  }

  private String keyOf(K key) {
    Preconditions.checkNotNull(key, "a key of '%s' is null", name);
    return Json.text(tx.toTree(name, "key", key));
  }

  private JsonNode current(String key) {
    if (overlay.containsKey(key)) {
      return overlay.get(key);
    }
    return values == null ? null : values.get(key);
  }

  private void put(String key, JsonNode value) {
    boolean had = current(key) != null;
    overlay.put(key, value);
    size += (value != null ? 1 : 0) - (had ? 1 : 0);
    ObjectNode payload = Json.NODES.objectNode();
    payload.put("keyValue", name);
    payload.set("key", Json.parse(key));
    if (value != null) {
      payload.set("value", value);
    }
    tx.event(value != null ? "keyValue.set" : "keyValue.delete", payload);
  }

  @Override
  public Optional<V> get(K key) {
    return tx.engine.meters.timed(name, "get", () -> {
      tx.checkOpen();
      JsonNode value = current(keyOf(key));
      return value == null ? Optional.empty() : Optional.of(tx.fromTree(name, value, valueType));
    });
  }

  @Override
  public boolean has(K key) {
    tx.checkOpen();
    return current(keyOf(key)) != null;
  }

  @Override
  public long size() {
    tx.checkOpen();
    return size;
  }

  @Override
  public void set(K key, V value) {
    tx.engine.meters.timed(name, "set", () -> {
      tx.checkWritable();
      String k = keyOf(key);
      Preconditions.checkNotNull(value, "value of key %s of '%s'", k, name);
      JsonNode tree = tx.toTree(name, "value of key " + k, value);
      tx.checkSize(name, "value of key " + k, tree);
      put(k, tree);
    });
  }

  @Override
  public Optional<V> pop(K key) {
    return tx.engine.meters.timed(name, "pop", () -> {
      tx.checkWritable();
      String k = keyOf(key);
      JsonNode before = current(k);
      if (before == null) {
        return Optional.empty();
      }
      put(k, null);
      return Optional.of(tx.fromTree(name, before, valueType));
    });
  }

  @Override
  public V inc(K key, V amount) {
    return tx.engine.meters.timed(name, "inc", () -> {
      return numeric(key, amount, "inc", true);
    });
  }

  @Override
  public V chmax(K key, V value) {
    return tx.engine.meters.timed(name, "chmax", () -> {
      return numeric(key, value, "chmax", false);
    });
  }

  private V numeric(K key, V operand, String op, boolean add) {
    tx.checkWritable();
    String k = keyOf(key);
    if (!(operand instanceof Number) || operand instanceof Boolean) {
      throw new InvalidValueException(tx.partition, name, op + " of key " + k + " needs a "
          + "number, got " + (operand == null ? "null" : operand.getClass().getSimpleName()));
    }
    JsonNode amount = tx.toTree(name, "operand", operand);
    if (!amount.isNumber()) {
      throw new InvalidValueException(tx.partition, name, op + " of key " + k
          + " needs a number, got " + amount.getNodeType());
    }
    JsonNode before = current(k);
    if (before != null && !before.isNumber()) {
      throw new InvalidValueException(tx.partition, name, op + " of key " + k
          + ": the stored value is not a number but " + before.getNodeType());
    }
    JsonNode after;
    if (before == null) {
      after = amount;
    } else if (add) {
      after = sum(k, before, amount);
    } else {
      after = Json.compare(amount, before) > 0 ? amount : before;
    }
    if (after != before) {
      put(k, after);
    }
    return tx.fromTree(name, after, valueType);
  }

  private JsonNode sum(String key, JsonNode a, JsonNode b) {
    if (a.canConvertToExactIntegral() && b.canConvertToExactIntegral() && a.canConvertToLong()
        && b.canConvertToLong() && a.isIntegralNumber() && b.isIntegralNumber()) {
      try {
        return Json.number(Math.addExact(a.longValue(), b.longValue()));
      } catch (ArithmeticException e) {
        throw new InvalidValueException(tx.partition, name, "inc of key " + key
            + " overflows a 64-bit integer");
      }
    }
    BigDecimal total = a.decimalValue().add(b.decimalValue());
    return Json.canonicalNumber(Json.NODES.numberNode(total));
  }

  /** This key-value's part of the transaction's patch, or empty when it wrote nothing. */
  Optional<ObjectNode> patch() {
    ObjectNode patch = Json.NODES.objectNode();
    for (Map.Entry<String, JsonNode> write : overlay.entrySet()) {
      JsonNode before = values == null ? null : values.get(write.getKey());
      if (write.getValue() == null) {
        if (before != null) {
          patch.putNull(write.getKey());
        }
      } else if (before != null && before.isObject() && write.getValue().isObject()) {
        // A merge patch merges objects: the change must be their diff, nulls included.
        ObjectNode diff = Json.diff((ObjectNode) before, (ObjectNode) write.getValue());
        if (!diff.isEmpty()) {
          patch.set(write.getKey(), diff);
        }
      } else if (before == null || !before.equals(write.getValue())) {
        patch.set(write.getKey(), write.getValue());
      }
    }
    return patch.isEmpty() ? Optional.empty() : Optional.of(patch);
  }
}
