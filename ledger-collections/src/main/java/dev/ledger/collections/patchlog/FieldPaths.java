package dev.ledger.collections.patchlog;

import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Resolves dotted field paths against a document class as Jackson maps it, so that a query
 * naming a field the type does not have is refused before any document is read. A path may
 * go into nested beans and records; under a map, {@code JsonNode} or {@code Object} any path
 * is accepted; it may end at, but not pass through, an array or collection. Thread-safe.
 */
final class FieldPaths {
  /** What a path leads to, for operand checks. */
  enum Kind { STRING, NUMBER, BOOLEAN, ARRAY, OTHER }

  private final ObjectMapper mapper;
  private final Map<Class<?>, Map<String, Optional<Kind>>> cache = new ConcurrentHashMap<>();

  FieldPaths(ObjectMapper mapper) {
    this.mapper = mapper;
  }

  /** The kind at {@code path} in {@code type}, or empty when the type has no such field. */
  Optional<Kind> resolve(Class<?> type, String path) {
    return cache.computeIfAbsent(type, t -> new ConcurrentHashMap<>())
        .computeIfAbsent(path, p -> walk(mapper.constructType(type), p.split("\\.")));
  }

  private Optional<Kind> walk(JavaType type, String[] steps) {
    JavaType current = type;
    for (String step : steps) {
      current = unwrap(current);
      if (open(current)) {
        return Optional.of(Kind.OTHER);
      }
      if (current.isContainerType() || current.isArrayType() || scalar(current) != null
          || current.getRawClass().getName().startsWith("java.")) {
        return Optional.empty();
      }
      BeanDescription bean = mapper.getSerializationConfig().introspect(current);
      JavaType next = null;
      for (BeanPropertyDefinition property : bean.findProperties()) {
        if (property.getName().equals(step) && property.couldSerialize()) {
          next = property.getPrimaryType();
          break;
        }
      }
      if (next == null) {
        return Optional.empty();
      }
      current = next;
    }
    current = unwrap(current);
    if (current.isArrayType() || current.isCollectionLikeType()) {
      return Optional.of(Kind.ARRAY);
    }
    Kind kind = scalar(current);
    return Optional.of(kind == null ? Kind.OTHER : kind);
  }

  private static JavaType unwrap(JavaType type) {
    JavaType current = type;
    while (current.isReferenceType()) {
      current = current.getReferencedType();
    }
    return current;
  }

  private static boolean open(JavaType type) {
    Class<?> raw = type.getRawClass();
    return raw == Object.class || JsonNode.class.isAssignableFrom(raw) || type.isMapLikeType();
  }

  private static Kind scalar(JavaType type) {
    Class<?> raw = type.getRawClass();
    if (raw == String.class || raw == Character.class || raw == char.class || raw.isEnum()) {
      return Kind.STRING;
    }
    if (raw == boolean.class || raw == Boolean.class) {
      return Kind.BOOLEAN;
    }
    if (Number.class.isAssignableFrom(raw) || (raw.isPrimitive() && raw != void.class)) {
      return Kind.NUMBER;
    }
    return null;
  }
}
