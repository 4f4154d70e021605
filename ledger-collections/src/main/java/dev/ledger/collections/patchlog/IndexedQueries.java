package dev.ledger.collections.patchlog;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.core.spi.DocumentQuery;
import dev.ledger.core.spi.DocumentRow;
import dev.ledger.core.spi.PatchLog;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Hands a read's query to the partition's backend when it keeps a documents table (see
 * {@link PatchLog#queryDocuments}): only outside a transaction, only for operands the
 * backend matches exactly as {@link QueryRunner} does (scalars and null; {@code exact} and
 * {@code within} on objects or arrays, and {@code contains} of one, stay in memory), and only
 * at the revision of the view the read holds. When the backend declines at a view's revision
 * for the first time, its table is rebuilt from the view if the ledger is still at that
 * revision (a commit that carried no documents left it behind).
 */
final class IndexedQueries {
  private IndexedQueries() {}

  /** A compiled condition: its path, its operator and its operands. */
  record Term(String[] path, boolean contains, List<JsonNode> values) {}

  /** Whether a query of {@code coll} in {@code tx} may go to the backend at all. */
  static boolean enabled(TxContext tx, TxCollection<?> coll) {
    if (tx.writable || !coll.overlay.isEmpty()) {
      return false;
    }
    PatchLog log = tx.engine.logOf(tx.partition);
    return log != null && log.keepsDocuments();
  }

  /**
   * The page the backend returns for the query, or empty when it is answered in memory.
   *
   * @param terms the compiled conditions, or null when one cannot go to the backend
   * @param must the compiled must sets, or null when one cannot go to the backend
   */
  static Optional<DocumentQuery.Page> run(TxContext tx, TxCollection<?> coll, List<Term> terms,
      boolean any, List<List<Term>> must, int offset, int limit) {
    PatchLog log = tx.engine.logOf(tx.partition);
    if (terms == null || must == null || log == null) {
      return Optional.empty();
    }
    List<List<DocumentQuery.Term>> mustTerms = new ArrayList<>();
    for (List<Term> set : must) {
      mustTerms.add(convert(set));
    }
    DocumentQuery query = new DocumentQuery(coll.name(), convert(terms), any, mustTerms, offset,
        limit);
    long revision = tx.view.revision;
    Optional<DocumentQuery.Page> page = log.queryDocuments(revision, query);
    if (page.isEmpty() && tx.engine.firstDeclineAt(tx.partition, revision)) {
      if (log.rebuildDocuments(revision, () -> rows(tx.view))) {
        page = log.queryDocuments(revision, query);
      }
    }
    return page;
  }

  /** A compiled operand the backend matches as the engine does: null or a scalar. */
  static boolean portable(JsonNode value) {
    if (value == null || value.isTextual() || value.isBoolean()) {
      return true;
    }
    if (value.isNumber()) {
      return !(value.isDouble() || value.isFloat()) || Double.isFinite(value.doubleValue());
    }
    return false;
  }

  private static List<DocumentQuery.Term> convert(List<Term> terms) {
    List<DocumentQuery.Term> out = new ArrayList<>(terms.size());
    for (Term t : terms) {
      List<JsonNode> values = new ArrayList<>(t.values().size());
      for (JsonNode v : t.values()) {
        values.add(v == null ? Json.NODES.nullNode() : v);
      }
      out.add(new DocumentQuery.Term(Arrays.asList(t.path()), t.contains()
          ? DocumentQuery.Operator.CONTAINS : DocumentQuery.Operator.EQUALS, values));
    }
    return out;
  }

  /** The documents the backend returned, as the table's documents. */
  static List<DocTable.Doc> docs(DocumentQuery.Page page) {
    List<DocTable.Doc> docs = new ArrayList<>(page.rows().size());
    for (DocumentRow row : page.rows()) {
      docs.add(new DocTable.Doc(row.key(), row.ordinal(), (ObjectNode) row.document(),
          DocTable.UNMEASURED));
    }
    return docs;
  }

  /** Every document of the view, for a rebuild of the backend's table. */
  private static List<DocumentRow> rows(PartitionView view) {
    List<DocumentRow> rows = new ArrayList<>();
    for (Map.Entry<String, DocTable> table : view.collections.entrySet()) {
      for (DocTable.Doc doc : table.getValue().inOrder()) {
        rows.add(new DocumentRow(table.getKey(), doc.key, doc.ordinal, doc.tree()));
      }
    }
    return rows;
  }
}
