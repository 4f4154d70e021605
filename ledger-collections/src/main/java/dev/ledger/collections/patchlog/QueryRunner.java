package dev.ledger.collections.patchlog;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ledger.collections.Condition;
import dev.ledger.collections.InvalidQueryException;
import dev.ledger.collections.Query;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Runs a {@link Query} over a collection as one transaction sees it. Checks every field path
 * and operand against the document type first, so a malformed query is refused before any
 * document is read. When a condition that must hold (an AND condition, or one in a
 * {@code must} set) is {@code exact} or {@code within} on an indexed field, the candidates
 * come from the index buckets and the transaction's own writes; otherwise every document is
 * a candidate. Each candidate is then tested against the whole filter.
 */
final class QueryRunner {
  /** The matched documents of the page, and the match count before paging. */
  record Page(List<DocTable.Doc> items, long total) {}

  /** A condition with its path split and its operand as JSON. */
  private record Compiled(Condition condition, String[] path, JsonNode value,
      List<JsonNode> values) {}

  private QueryRunner() {}

  static Page run(TxContext tx, TxCollection<?> coll, Query query) {
    List<Compiled> conditions = compile(tx, coll, query.conditions());
    List<List<Compiled>> must = new ArrayList<>();
    for (List<Condition> set : query.must()) {
      must.add(compile(tx, coll, set));
    }
    String[] sortPath = null;
    if (query.sort() != null) {
      check(tx, coll, query.sort().field());
      sortPath = query.sort().field().split("\\.");
    }
    Predicate<JsonNode> filter = filter(conditions, query.aggregate(), must);

    List<DocTable.Doc> matches = new ArrayList<>();
    // A read outside a transaction may be answered by the backend's documents table; with a
    // sort it returns every match in insertion order and the sort and page are done below.
    Optional<dev.ledger.core.spi.DocumentQuery.Page> backend = !IndexedQueries.enabled(tx, coll)
        ? Optional.empty() : IndexedQueries.run(tx, coll, portable(conditions),
            query.aggregate() == Query.Aggregate.OR, portableSets(must),
            sortPath == null ? query.offset() : 0, sortPath == null && query.limit() >= 0
                ? query.limit() : -1);
    if (backend.isPresent()) {
      List<DocTable.Doc> docs = IndexedQueries.docs(backend.get());
      if (sortPath == null) {
        return new Page(List.copyOf(docs), backend.get().total());
      }
      matches.addAll(docs);
    }
    Optional<Set<String>> indexed = backend.isPresent() ? Optional.empty()
        : candidates(coll, conditions, query.aggregate(), must);
    if (backend.isPresent()) {
      // matches hold the backend's answer, in insertion order
    } else if (indexed.isPresent()) {
      for (String key : indexed.get()) {
        DocTable.Doc doc = coll.current(key);
        if (doc != null && filter.test(doc.tree())) {
          matches.add(doc);
        }
      }
      matches.sort(Comparator.comparingLong(d -> d.ordinal));
    } else {
      if (coll.table != null) {
        for (DocTable.Doc doc : coll.table.inOrder()) {
          if (!coll.overlay.containsKey(doc.key) && filter.test(doc.tree())) {
            matches.add(doc);
          }
        }
      }
      boolean appended = false;
      for (DocTable.Doc doc : coll.overlay.values()) {
        if (doc != null && filter.test(doc.tree())) {
          matches.add(doc);
          appended = true;
        }
      }
      if (appended) {
        matches.sort(Comparator.comparingLong(d -> d.ordinal));
      }
    }
    if (sortPath != null) {
      String[] path = sortPath;
      boolean ascending = query.sort().direction() == Query.Direction.ASC;
      // A stable sort keeps insertion order among ties, in both directions.
      matches.sort((a, b) -> {
        JsonNode va = Json.at(a.tree(), path);
        JsonNode vb = Json.at(b.tree(), path);
        if (va == null || vb == null) {
          int missing = Boolean.compare(va == null, vb == null);
          return ascending ? missing : -missing;
        }
        return ascending ? Json.compare(va, vb) : Json.compare(vb, va);
      });
    }
    long total = matches.size();
    int from = Math.min(query.offset(), matches.size());
    int to = query.limit() < 0 ? matches.size()
        : (int) Math.min((long) from + query.limit(), matches.size());
    return new Page(List.copyOf(matches.subList(from, to)), total);
  }

  /** The conditions as the backend's terms, or null when one is not portable. */
  private static List<IndexedQueries.Term> portable(List<Compiled> conditions) {
    List<IndexedQueries.Term> terms = new ArrayList<>(conditions.size());
    for (Compiled c : conditions) {
      List<JsonNode> values = new ArrayList<>();
      switch (c.condition().operator()) {
        case EXACT -> values.add(c.value());
        case WITHIN -> values.addAll(c.values());
        case CONTAINS -> {
          if (c.value() == null) {
            return null;
          }
          values.add(c.value());
        }
        default -> {
          return null;
        }
      }
      for (JsonNode v : values) {
        if (!IndexedQueries.portable(v)) {
          return null;
        }
      }
      terms.add(new IndexedQueries.Term(c.path(),
          c.condition().operator() == Condition.Operator.CONTAINS, values));
    }
    return terms;
  }

  /** The must sets as the backend's terms, or null when one is not portable. */
  private static List<List<IndexedQueries.Term>> portableSets(List<List<Compiled>> must) {
    List<List<IndexedQueries.Term>> sets = new ArrayList<>(must.size());
    for (List<Compiled> set : must) {
      List<IndexedQueries.Term> terms = portable(set);
      if (terms == null) {
        return null;
      }
      sets.add(terms);
    }
    return sets;
  }

  private static List<Compiled> compile(TxContext tx, TxCollection<?> coll,
      List<Condition> conditions) {
    List<Compiled> compiled = new ArrayList<>(conditions.size());
    for (Condition c : conditions) {
      FieldPaths.Kind kind = check(tx, coll, c.field());
      String[] path = c.field().split("\\.");
      switch (c.operator()) {
        case EXACT -> {
          JsonNode value = operand(tx, c.field(), c.value());
          checkKind(tx, c, kind, value);
          compiled.add(new Compiled(c, path, value, null));
        }
        case WITHIN -> {
          List<JsonNode> values = new ArrayList<>();
          for (Object v : (List<?>) c.value()) {
            JsonNode value = operand(tx, c.field(), v);
            checkKind(tx, c, kind, value);
            values.add(value);
          }
          compiled.add(new Compiled(c, path, null, values));
        }
        case CONTAINS -> compiled.add(new Compiled(c, path, operand(tx, c.field(), c.value()),
            null));
        default -> throw new InvalidQueryException(tx.partition, c.field(),
            "unknown operator " + c.operator());
      }
    }
    return compiled;
  }

  /** Refuses a field the collection's type does not have, naming it. */
  static FieldPaths.Kind check(TxContext tx, TxCollection<?> coll, String field) {
    return tx.engine.paths.resolve(coll.spec.type(), field).orElseThrow(() ->
        new InvalidQueryException(tx.partition, field, "is not a field of "
            + coll.spec.type().getName() + " (collection '" + coll.name() + "')"));
  }

  private static JsonNode operand(TxContext tx, String field, Object value) {
    if (value == null) {
      return null;
    }
    JsonNode tree = tx.engine.mapper.valueToTree(value);
    try {
      return tree == null || tree.isNull() ? null : Json.withoutNulls(tree);
    } catch (IllegalArgumentException e) {
      throw new InvalidQueryException(tx.partition, field, "has a value that is not JSON: "
          + e.getMessage());
    }
  }

  /** Refuses a string for a number field and the like; null always passes. */
  private static void checkKind(TxContext tx, Condition c, FieldPaths.Kind kind,
      JsonNode value) {
    if (value == null) {
      return;
    }
    boolean wrong = switch (kind) {
      case STRING -> !value.isTextual();
      case NUMBER -> !value.isNumber();
      case BOOLEAN -> !value.isBoolean();
      default -> false;
    };
    if (wrong) {
      throw new InvalidQueryException(tx.partition, c.field(), "the field holds a "
          + kind.name().toLowerCase(java.util.Locale.ROOT) + ", not a "
          + value.getNodeType().name().toLowerCase(java.util.Locale.ROOT));
    }
  }

  private static Predicate<JsonNode> filter(List<Compiled> conditions, Query.Aggregate aggregate,
      List<List<Compiled>> must) {
    return doc -> {
      for (List<Compiled> set : must) {
        for (Compiled c : set) {
          if (!test(c, doc)) {
            return false;
          }
        }
      }
      if (conditions.isEmpty()) {
        return true;
      }
      if (aggregate == Query.Aggregate.AND) {
        for (Compiled c : conditions) {
          if (!test(c, doc)) {
            return false;
          }
        }
        return true;
      }
      for (Compiled c : conditions) {
        if (test(c, doc)) {
          return true;
        }
      }
      return false;
    };
  }

  private static boolean test(Compiled c, JsonNode doc) {
    JsonNode field = Json.at(doc, c.path());
    switch (c.condition().operator()) {
      case EXACT:
        return Json.equal(field, c.value());
      case WITHIN:
        for (JsonNode value : c.values()) {
          if (Json.equal(field, value)) {
            return true;
          }
        }
        return false;
      case CONTAINS:
        if (field == null) {
          return false;
        }
        if (field.isTextual()) {
          return c.value().isTextual() && field.textValue().contains(c.value().textValue());
        }
        if (field.isArray()) {
          for (JsonNode element : field) {
            if (Json.equal(element, c.value())) {
              return true;
            }
          }
        }
        return false;
      default:
        return false;
    }
  }

  /** Keys from an index that must hold, plus the transaction's writes; empty for a scan. */
  private static Optional<Set<String>> candidates(TxCollection<?> coll, List<Compiled> conditions,
      Query.Aggregate aggregate, List<List<Compiled>> must) {
    List<Compiled> required = new ArrayList<>();
    must.forEach(required::addAll);
    if (aggregate == Query.Aggregate.AND || conditions.size() == 1) {
      required.addAll(conditions);
    }
    for (Compiled c : required) {
      if (c.path().length != 1 || coll.table == null || !coll.table.indexed(c.path()[0])) {
        continue;
      }
      List<JsonNode> values;
      if (c.condition().operator() == Condition.Operator.EXACT) {
        values = new ArrayList<>();
        values.add(c.value());
      } else if (c.condition().operator() == Condition.Operator.WITHIN) {
        values = c.values();
      } else {
        continue;
      }
      Set<String> keys = new LinkedHashSet<>();
      Set<String> buckets = new HashSet<>();
      for (JsonNode value : values) {
        String bucket = Json.indexKey(value);
        if (buckets.add(bucket)) {
          keys.addAll(coll.table.lookup(c.path()[0], bucket));
        }
      }
      for (Map.Entry<String, DocTable.Doc> write : coll.overlay.entrySet()) {
        keys.add(write.getKey());
      }
      return Optional.of(keys);
    }
    return Optional.empty();
  }
}
