package dev.ledger.postgres;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.common.hash.Hashing;
import dev.ledger.core.spi.DocumentQuery;
import dev.ledger.core.spi.DocumentRow;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The collection store's documents as rows (schema version 5), so that a read's query runs
 * as SQL on expression indexes instead of on each process's in-memory view.
 *
 * <pre>
 * documents(root_id text COLLATE "C",              the partition (ledger)
 *           collection text COLLATE "C",
 *           key text COLLATE "C",                  the document's key, canonical JSON array
 *           PRIMARY KEY (root_id, collection, key),
 *           generation bigint,                     the head row's generation that wrote it
 *           revision bigint,                       the revision that wrote it
 *           ordinal bigint,                        insertion ordinal: query order and ties
 *           doc jsonb,                             the document, for filters and indexes
 *           body text)                             the same document as the JSON text the
 *                                                  store wrote, which queries return (jsonb
 *                                                  would rewrite numbers: 1.0E10, 1e300)
 * documents_order ON documents (root_id, collection, ordinal)
 * documents_&lt;hash of the path&gt; ON documents (root_id, collection, (doc -&gt; 'a' -&gt; 'b'))
 *                                                  one per declared secondary index path
 *
 * document_marks(root_id text COLLATE "C" PRIMARY KEY,
 *                generation bigint,                the head row's generation and revision
 *                revision bigint)                  whose documents the rows of root_id hold
 * </pre>
 *
 * <p><b>Keeping in step.</b> A collection commit ({@code PatchLog.appendPatch} with rows)
 * writes its documents and moves the mark from the expected revision to the new one inside
 * its guarded statement, so rows, mark and head row change in one transaction; its revision
 * 1 (a new head row, a new generation) resets the mark to that generation. Every other write
 * of the ledger (a plain {@code Ledger} commit, a patch without rows, an import, a delete and
 * re-creation) moves the head row and not the mark, which then stays behind: the table is
 * stale, and a query never reads it. Rows of an older generation are never read. The
 * collection store rebuilds a stale table from its view ({@link #rebuild}), under a share
 * lock on the head row at the view's revision.
 *
 * <p><b>Queries</b> run as one statement (one snapshot, one round trip): it reads the rows
 * only if the head row and the mark are at the caller's revision (and of one generation), so
 * the rows are that revision's, and returns the match count with the page. Matching follows the collection
 * engine: a path steps through objects only ({@code ->} with a text key, never an array
 * index); equality is jsonb equality (numbers by value, strings exactly); a null operand
 * matches SQL NULL or JSON null; {@code contains} is {@code strpos} in the "C" collation on a
 * string field, or an element equal to the operand in an array field. Results come in
 * insertion order; sorting by a field is done by the caller.
 *
 * <p><b>Statistics.</b> The planner chooses the expression index over {@code documents_order}
 * only once the table has statistics; commits and rebuilds count their rows and the store
 * runs {@code ANALYZE} on the table in the background after many (see
 * {@link DocumentStatistics}).
 */
final class DocumentTable {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final PostgresLedgerStore.Tables tables;
  /** Queries answered from the table (not declined), for tests and diagnostics. */
  final java.util.concurrent.atomic.LongAdder answered = new java.util.concurrent.atomic.LongAdder();
  private final String documents;
  private final String marks;

  DocumentTable(PostgresLedgerStore.Tables tables) {
    this.tables = tables;
    String schema = schemaOf(tables);
    this.documents = schema + ".documents";
    this.marks = schema + ".document_marks";
  }

  private static String schemaOf(PostgresLedgerStore.Tables tables) {
    String ledgers = tables.ledgers();
    return ledgers.substring(0, ledgers.length() - ".ledgers".length());
  }

  /** The schema version 5 migration: the tables above. */
  static final List<String> MIGRATION = List.of(
      """
      CREATE TABLE %1$s.documents (
        root_id text COLLATE "C" NOT NULL,
        collection text COLLATE "C" NOT NULL,
        key text COLLATE "C" NOT NULL,
        generation bigint NOT NULL,
        revision bigint NOT NULL,
        ordinal bigint NOT NULL,
        doc jsonb NOT NULL,
        body text NOT NULL,
        PRIMARY KEY (root_id, collection, key))""",
      "CREATE INDEX documents_order ON %1$s.documents (root_id, collection, ordinal)",
      """
      CREATE TABLE %1$s.document_marks (
        root_id text COLLATE "C" PRIMARY KEY,
        generation bigint NOT NULL,
        revision bigint NOT NULL)""");

  // ------------------------------------------------------------------ commit

  /**
   * The common table expressions a commit with rows adds to its guarded statement, after
   * {@code head} (which returns root_id and generation): the upserts, the deletes and the
   * mark. Their parameters are bound by {@link Rows#bind}.
   */
  String commitCtes(boolean first) {
    String mark = first
        ? " doc_mark AS (INSERT INTO " + marks + " (root_id, generation, revision)"
            + " SELECT root_id, generation, ? FROM head ON CONFLICT (root_id) DO UPDATE"
            + " SET generation = excluded.generation, revision = excluded.revision),"
        : " doc_mark AS (UPDATE " + marks + " m SET revision = ? FROM head"
            + " WHERE m.root_id = head.root_id AND m.generation = head.generation"
            + " AND m.revision = ?),";
    return " doc_put AS (INSERT INTO " + documents + " (root_id, collection, key, generation,"
        + " revision, ordinal, doc, body) SELECT head.root_id, d.c, d.k, head.generation, ?,"
        + " d.o, d.b::jsonb, d.b FROM head, unnest(?::text[], ?::text[], ?::bigint[],"
        + " ?::text[]) AS d (c, k, o, b) ON CONFLICT (root_id, collection, key) DO UPDATE"
        + " SET generation = excluded.generation, revision = excluded.revision,"
        + " ordinal = excluded.ordinal, doc = excluded.doc, body = excluded.body),"
        + " doc_del AS (DELETE FROM " + documents + " x USING head, unnest(?::text[],"
        + " ?::text[]) AS d (c, k) WHERE x.root_id = head.root_id AND x.collection = d.c"
        + " AND x.key = d.k)," + mark;
  }

  /**
   * A commit's rows as statement parameters, or null when one cannot be stored as jsonb (a
   * string with U+0000): the commit then carries no rows and leaves the table stale.
   */
  static Rows rows(List<DocumentRow> rows) {
    List<String> putC = new ArrayList<>();
    List<String> putK = new ArrayList<>();
    List<Long> putO = new ArrayList<>();
    List<String> putB = new ArrayList<>();
    List<String> delC = new ArrayList<>();
    List<String> delK = new ArrayList<>();
    for (DocumentRow row : rows) {
      if (row.document() == null) {
        delC.add(row.collection());
        delK.add(row.key());
      } else {
        String body = text(row.document());
        if (!storable(body) || !storable(row.key()) || !storable(row.collection())) {
          return null;
        }
        putC.add(row.collection());
        putK.add(row.key());
        putO.add(row.ordinal());
        putB.add(body);
      }
    }
    return new Rows(putC, putK, putO, putB, delC, delK);
  }

  /** The parameters of {@link #commitCtes}. */
  record Rows(List<String> putC, List<String> putK, List<Long> putO, List<String> putB,
      List<String> delC, List<String> delK) {
    /** The rows written and deleted. */
    int size() {
      return putC.size() + delC.size();
    }

    int bind(Connection c, PreparedStatement ps, int first, long revision)
        throws SQLException {
      int p = first;
      ps.setLong(p++, revision);
      ps.setArray(p++, c.createArrayOf("text", putC.toArray()));
      ps.setArray(p++, c.createArrayOf("text", putK.toArray()));
      ps.setArray(p++, c.createArrayOf("bigint", putO.toArray()));
      ps.setArray(p++, c.createArrayOf("text", putB.toArray()));
      ps.setArray(p++, c.createArrayOf("text", delC.toArray()));
      ps.setArray(p++, c.createArrayOf("text", delK.toArray()));
      ps.setLong(p++, revision);
      if (revision > 1) {
        ps.setLong(p++, revision - 1);
      }
      return p;
    }
  }

  private static boolean storable(String text) {
    return text.indexOf('\0') < 0 && !text.contains("\\u0000");
  }

  private static String text(JsonNode node) {
    try {
      return JSON.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("document cannot be written as JSON: "
          + e.getMessage(), e);
    }
  }

  // ------------------------------------------------------------------ indexes

  /** The SQL expression of a field path: {@code (doc -> 'a' -> 'b')}, or null if unusable. */
  static String path(List<String> steps) {
    StringBuilder sql = new StringBuilder("(doc");
    for (String step : steps) {
      if (!storable(step)) {
        return null;
      }
      sql.append(" -> '").append(step.replace("'", "''")).append('\'');
    }
    return sql.append(')').toString();
  }

  /**
   * Creates the expression index of every declared path, if absent, under the migration's
   * advisory lock (two processes opening at once create each index once).
   */
  void declare(Map<String, List<String>> indexes) {
    List<String> paths = new ArrayList<>();
    indexes.values().forEach(fields -> fields.forEach(f -> {
      if (!paths.contains(f)) {
        paths.add(f);
      }
    }));
    try (Connection c = tables.connect("Creating document indexes")) {
      c.setAutoCommit(false);
      try (Statement s = c.createStatement()) {
        s.execute("SELECT pg_advisory_xact_lock(" + Schema.MIGRATION_LOCK + ")");
        for (String field : paths) {
          String expression = path(List.of(field.split("\\.", -1)));
          if (expression == null) {
            continue;
          }
          String name = "documents_" + Hashing.sha256().hashString(field,
              StandardCharsets.UTF_8).toString().substring(0, 24);
          s.execute("CREATE INDEX IF NOT EXISTS " + name + " ON " + documents
              + " (root_id, collection, " + expression + ")");
        }
        c.commit();
      } catch (SQLException | RuntimeException e) {
        Schema.rollbackQuietly(c, e);
        throw e;
      } finally {
        c.setAutoCommit(true);
      }
    } catch (SQLException e) {
      throw new DatabaseException("Creating the document indexes of " + documents, e, false);
    }
  }

  // ------------------------------------------------------------------ queries

  /** SQL text and its parameters (jsonb and text operands, as strings). */
  private static final class Sql {
    final StringBuilder text = new StringBuilder();
    final List<String> params = new ArrayList<>();
    final List<String> types = new ArrayList<>();
  }

  /**
   * The matches of {@code query} at {@code revision}, or empty when the head row or the mark
   * is not at it (or a path cannot be written as SQL).
   */
  Optional<DocumentQuery.Page> query(Connection c, String root, long revision,
      DocumentQuery query) throws SQLException {
    Sql where = where(query);
    if (where == null) {
      return Optional.empty();
    }
    // One statement, one snapshot: the head row and the mark are checked and the rows read
    // in the same statement, so the rows are those of the revision the check saw.
    List<DocumentRow> rows = new ArrayList<>();
    long total;
    try (PreparedStatement ps = c.prepareStatement(statement(query, where))) {
      int p = 1;
      ps.setString(p++, root);
      ps.setLong(p++, revision);
      bind(c, ps, p, root, query.collection(), where);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        if (rs.getInt(1) != 1) {
          return Optional.empty();
        }
        total = rs.getLong(2);
        do {
          String key = rs.getString(3);
          if (key != null) {
            rows.add(new DocumentRow(query.collection(), key, rs.getLong(4),
                parse(rs.getString(5), root, query.collection(), key)));
          }
        } while (rs.next());
      }
    }
    answered.increment();
    return Optional.of(new DocumentQuery.Page(rows, total));
  }

  /**
   * The query as one statement: whether the head row and the mark are at the revision (1
   * or 0), the number of matches, and the page's rows (none: one row of nulls).
   */
  private String statement(DocumentQuery query, Sql where) {
    return "WITH h AS (SELECT l.generation FROM " + tables.ledgers() + " l JOIN " + marks
        + " m ON m.root_id = l.root_id AND m.generation = l.generation"
        + " AND m.revision = l.revision WHERE l.root_id = ? AND l.revision = ?),"
        + " matches AS (SELECT key, ordinal, body FROM " + documents + " d, h"
        + " WHERE d.root_id = ? AND d.collection = ? AND d.generation = h.generation AND "
        + where.text + ")"
        + " SELECT (SELECT count(*) FROM h)::int, (SELECT count(*) FROM matches),"
        + " page.key, page.ordinal, page.body FROM (SELECT 1) AS one LEFT JOIN LATERAL"
        + " (SELECT key, ordinal, body FROM matches ORDER BY ordinal"
        + (query.limit() >= 0 ? " LIMIT " + query.limit() : "") + " OFFSET " + query.offset()
        + ") AS page ON true ORDER BY page.ordinal";
  }

  /** The filter of {@code query}, or null when a term cannot be written as SQL. */
  private static Sql where(DocumentQuery query) {
    Sql where = new Sql();
    if (!all(where, query.must().stream().flatMap(List::stream).toList(), false)) {
      return null;
    }
    if (!query.conditions().isEmpty()) {
      where.text.append(" AND ");
      if (!all(where, query.conditions(), query.any())) {
        return null;
      }
    }
    return where;
  }

  /**
   * The plan PostgreSQL chooses for the statement of {@code query} on the rows of
   * {@code root} at {@code revision}, as {@code EXPLAIN} prints it; for tests.
   */
  List<String> explain(Connection c, String root, long revision, DocumentQuery query)
      throws SQLException {
    Sql where = where(query);
    if (where == null) {
      throw new IllegalArgumentException("the query cannot be written as SQL: " + query);
    }
    List<String> plan = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement("EXPLAIN " + statement(query, where))) {
      ps.setString(1, root);
      ps.setLong(2, revision);
      bind(c, ps, 3, root, query.collection(), where);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          plan.add(rs.getString(1));
        }
      }
    }
    return plan;
  }

  private static void bind(Connection c, PreparedStatement ps, int first, String root,
      String collection, Sql where) throws SQLException {
    int p = first;
    ps.setString(p++, root);
    ps.setString(p++, collection);
    for (int i = 0; i < where.params.size(); i++) {
      if (where.types.get(i).equals("text[]")) {
        ps.setArray(p++, c.createArrayOf("text", where.params.get(i).split("\0", -1)));
      } else {
        ps.setString(p++, where.params.get(i));
      }
    }
  }

  /** Appends the terms joined by AND ({@code any} false) or OR; false if one is unusable. */
  private static boolean all(Sql sql, List<DocumentQuery.Term> terms, boolean any) {
    if (terms.isEmpty()) {
      sql.text.append("TRUE");
      return true;
    }
    sql.text.append('(');
    for (int i = 0; i < terms.size(); i++) {
      if (i > 0) {
        sql.text.append(any ? " OR " : " AND ");
      }
      if (!term(sql, terms.get(i))) {
        return false;
      }
    }
    sql.text.append(')');
    return true;
  }

  private static boolean term(Sql sql, DocumentQuery.Term term) {
    String e = path(term.path());
    if (e == null) {
      return false;
    }
    if (term.operator() == DocumentQuery.Operator.CONTAINS) {
      JsonNode value = term.values().get(0);
      String json = text(value);
      if (!storable(json)) {
        return false;
      }
      sql.text.append('(');
      if (value.isTextual()) {
        sql.text.append("(jsonb_typeof(").append(e).append(") = 'string' AND strpos((")
            .append(e).append(" #>> '{}') COLLATE \"C\", ?) > 0) OR ");
        sql.params.add(value.textValue());
        sql.types.add("text");
      }
      sql.text.append("EXISTS (SELECT 1 FROM jsonb_array_elements(CASE WHEN jsonb_typeof(")
          .append(e).append(") = 'array' THEN ").append(e)
          .append(" END) AS el (v) WHERE el.v = ?::jsonb))");
      sql.params.add(json);
      sql.types.add("jsonb");
      return true;
    }
    List<String> values = new ArrayList<>();
    boolean nulls = false;
    for (JsonNode value : term.values()) {
      if (value.isNull()) {
        nulls = true;
      } else {
        String json = text(value);
        if (!storable(json)) {
          return false;
        }
        values.add(json);
      }
    }
    List<String> alternatives = new ArrayList<>();
    if (values.size() == 1) {
      alternatives.add(e + " = ?::jsonb");
      sql.params.add(values.get(0));
      sql.types.add("jsonb");
    } else if (values.size() > 1) {
      alternatives.add(e + " = ANY(CAST(? AS text[])::jsonb[])");
      sql.params.add(String.join("\0", values));
      sql.types.add("text[]");
    }
    if (nulls) {
      alternatives.add(e + " IS NULL");
      alternatives.add(e + " = 'null'::jsonb");
    }
    sql.text.append(alternatives.isEmpty() ? "FALSE" : "(" + String.join(" OR ",
        alternatives) + ")");
    return true;
  }

  private JsonNode parse(String body, String root, String collection, String key) {
    try {
      return JSON.readTree(body);
    } catch (JsonProcessingException e) {
      throw HeadState.damaged(root, tables, "document " + key + " of"
          + " collection '" + collection + "' in " + documents + " is not JSON: "
          + e.getMessage());
    }
  }

  // ------------------------------------------------------------------ rebuild

  /**
   * Rewrites the rows of {@code root} from {@code source} if the head row is at
   * {@code revision} and the mark is not; holds a share lock on the head row meanwhile, so
   * that no commit moves it.
   */
  boolean rebuild(Connection c, String root, long revision,
      Supplier<List<DocumentRow>> source) throws SQLException {
    boolean autoCommit = c.getAutoCommit();
    c.setAutoCommit(false);
    try {
      long generation;
      try (PreparedStatement ps = c.prepareStatement("SELECT revision, generation FROM "
          + tables.ledgers() + " WHERE root_id = ? FOR SHARE")) {
        ps.setString(1, root);
        try (ResultSet rs = ps.executeQuery()) {
          if (!rs.next() || rs.getLong(1) != revision) {
            return false;
          }
          generation = rs.getLong(2);
        }
      }
      try (PreparedStatement ps = c.prepareStatement("SELECT 1 FROM " + marks
          + " WHERE root_id = ? AND generation = ? AND revision = ?")) {
        ps.setString(1, root);
        ps.setLong(2, generation);
        ps.setLong(3, revision);
        try (ResultSet rs = ps.executeQuery()) {
          if (rs.next()) {
            return true;
          }
        }
      }
      Rows rows = rows(source.get());
      if (rows == null) {
        return false;
      }
      int deleted;
      try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + documents
          + " WHERE root_id = ?")) {
        ps.setString(1, root);
        deleted = ps.executeUpdate();
      }
      try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + documents
          + " (root_id, collection, key, generation, revision, ordinal, doc, body)"
          + " SELECT ?, d.c, d.k, ?, ?, d.o, d.b::jsonb, d.b FROM unnest(?::text[], ?::text[],"
          + " ?::bigint[], ?::text[]) AS d (c, k, o, b)")) {
        ps.setString(1, root);
        ps.setLong(2, generation);
        ps.setLong(3, revision);
        ps.setArray(4, c.createArrayOf("text", rows.putC().toArray()));
        ps.setArray(5, c.createArrayOf("text", rows.putK().toArray()));
        ps.setArray(6, c.createArrayOf("bigint", rows.putO().toArray()));
        ps.setArray(7, c.createArrayOf("text", rows.putB().toArray()));
        ps.executeUpdate();
      }
      try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + marks
          + " (root_id, generation, revision) VALUES (?, ?, ?) ON CONFLICT (root_id)"
          + " DO UPDATE SET generation = excluded.generation, revision = excluded.revision")) {
        ps.setString(1, root);
        ps.setLong(2, generation);
        ps.setLong(3, revision);
        ps.executeUpdate();
      }
      c.commit();
      tables.documentStatistics().wrote(deleted + rows.size());
      return true;
    } finally {
      c.rollback();
      c.setAutoCommit(autoCommit);
    }
  }
}
