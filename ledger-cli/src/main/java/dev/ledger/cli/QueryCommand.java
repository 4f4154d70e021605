package dev.ledger.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectReader;
import dev.ledger.collections.CollectionReader;
import dev.ledger.collections.Condition;
import dev.ledger.collections.Query;
import dev.ledger.collections.QueryResult;
import dev.ledger.collections.Schema;
import dev.ledger.collections.patchlog.PatchLogCollectionStore;
import dev.ledger.core.fs.FileLedgerStore;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code ledger query DIR PARTITION COLLECTION [--where field=value]... [--sort f[:desc]]
 * [--limit N] [--offset N]}: the documents of one collection of one ledger-collections
 * partition, as JSON Lines.
 *
 * <p><b>How it knows the schema.</b> It needs none from the application. A partition's state
 * tree (documented on {@code PatchLogCollectionStore}) names its collections, and the query
 * runs through the library's own query code on a collection declared for this run only, with
 * untyped documents ({@code JsonNode}): any field path is accepted, compared as JSON, exactly
 * as the application's typed query would compare it. The declaration has no secondary indexes
 * (every query scans the collection) and no real primary key: the key fields are not stored
 * in the partition, and this command never reads by key nor writes.
 */
@Command(name = "query", mixinStandardHelpOptions = true,
    description = {"Print the documents of collection COLLECTION in partition PARTITION (a "
        + "ledger of the store written by ledger-collections) as JSON Lines, one document per "
        + "line, in insertion order unless --sort is given.",
        "At the end, standard error gets one line 'matched: M, printed: P, revision: R': the "
        + "matches before --offset and --limit, the lines printed, and the partition's "
        + "revision the query saw.",
        "No schema is needed: the collection is read as untyped JSON documents, so any dotted "
        + "field path may be named, and a field that a document lacks matches nothing "
        + "(except --where f=null). Queries scan the collection (no index is used).",
        "Read-only: creates, locks and changes nothing."})
final class QueryCommand implements Callable<Integer>, StoreCommand {
  /** Names as {@code Schema} allows them. */
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,64}");
  /**
   * The primary key the run's declaration names: not a field of the documents, and never
   * used, since this command reads no document by key (see the class comment).
   */
  /** Reads one JSON value and refuses text after it ({@code 1 2} is a string). */
  private static final ObjectReader WHOLE_VALUE = Json.MAPPER.reader()
      .with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
  private static final String UNUSED_KEY = "(key not used by the command line)";

  @Spec
  CommandSpec spec;

  @Parameters(index = "0", paramLabel = "DIR", description = "The store directory.")
  Path dir;

  @Override
  public Path dir() {
    return dir;
  }

  @Parameters(index = "1", paramLabel = "PARTITION",
      description = "The partition: the root id of its ledger.")
  String partition;

  @Parameters(index = "2", paramLabel = "COLLECTION", description = "The collection's name.")
  String collection;

  @Option(names = {"-w", "--where"}, paramLabel = "FIELD=VALUE",
      description = {"Only documents whose FIELD (a dotted path such as meta.owner) equals "
          + "VALUE; repeat to require several (all must hold).",
          "VALUE is read as JSON when it is valid JSON (42, true, null, \"42\", [1,2], "
          + "{\"a\":1}), otherwise as a plain string (running). So quote a string that looks "
          + "like JSON, as in --where 'code=\"42\"'. Numbers compare by value (1 equals 1.0), "
          + "strings case-sensitively; null matches a missing field."})
  List<String> where = new ArrayList<>();

  @Option(names = "--sort", paramLabel = "FIELD[:asc|:desc]",
      description = "Sort by FIELD, ascending unless ':desc' follows; documents without the "
          + "field come last ascending and first descending; ties keep insertion order.")
  String sort;

  @Option(names = "--limit", paramLabel = "N",
      description = "Print at most N documents (0: only the count on standard error).")
  Integer limit;

  @Option(names = "--offset", paramLabel = "N", defaultValue = "0",
      description = "Skip the first N matches (default: ${DEFAULT-VALUE}).")
  int offset;

  @Override
  public Integer call() {
    Query query = query();
    if (!NAME.matcher(collection).matches()) {
      throw new Failures.UsageException("a collection name has 1 to 64 characters of "
          + "[A-Za-z0-9_-]: '" + collection + "'");
    }
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    try (FileLedgerStore store = Stores.ledgersReadOnly(dir)) {
      if (!store.exists(partition)) {
        throw new Failures.DataException("partition '" + partition + "': no ledger of that "
            + "root id in " + store.base());
      }
      Schema schema = Schema.builder()
          .collection(collection, JsonNode.class, List.of(UNUSED_KEY))
          .build();
      PatchLogCollectionStore collections = PatchLogCollectionStore.on(store, schema);
      Answer answer = collections.read(partition, view -> {
        CollectionReader<JsonNode> reader = view.collection(collection, JsonNode.class);
        return new Answer(reader.query(query), reader.size(), view.revision());
      });
      if (answer.size() == 0) {
        requireCollection(store, answer.revision());
      }
      for (JsonNode document : answer.result().items()) {
        out.println(Json.line(document));
      }
      out.flush();
      err.println("matched: " + answer.result().total() + ", printed: "
          + answer.result().items().size() + ", revision: " + answer.revision());
      err.flush();
    }
    return ExitCodes.OK;
  }

  /** What one consistent read saw. */
  private record Answer(QueryResult<JsonNode> result, long size, long revision) {}

  /**
   * An empty collection and one the partition never had read the same: tells them apart by
   * the partition's state tree, and refuses a name the partition does not hold, naming those
   * it does.
   */
  private void requireCollection(FileLedgerStore store, long revision) {
    JsonNode names = store.ledger(partition, JsonNode.class).load().state().get("c");
    if (names != null && names.has(collection)) {
      return;
    }
    List<String> known = new ArrayList<>();
    if (names != null) {
      names.fieldNames().forEachRemaining(known::add);
      java.util.Collections.sort(known);
    }
    throw new Failures.DataException("partition '" + partition + "' in " + store.base()
        + " has no collection '" + collection + "' at revision " + revision
        + (known.isEmpty() ? " (it holds no collection)" : " (its collections: "
            + String.join(", ", known) + ")"));
  }

  private Query query() {
    if (limit != null && limit < 0) {
      throw new Failures.UsageException("--limit must be at least 0: " + limit);
    }
    if (offset < 0) {
      throw new Failures.UsageException("--offset must be at least 0: " + offset);
    }
    Query.Builder builder = Query.builder().limit(limit == null ? -1 : limit).offset(offset);
    for (String condition : where) {
      int equals = condition.indexOf('=');
      if (equals <= 0) {
        throw new Failures.UsageException("--where takes FIELD=VALUE, got '" + condition + "'");
      }
      builder = builder.where(Condition.exact(condition.substring(0, equals),
          value(condition.substring(equals + 1))));
    }
    if (sort != null) {
      int colon = sort.lastIndexOf(':');
      String field = colon < 0 ? sort : sort.substring(0, colon);
      String direction = colon < 0 ? "asc" : sort.substring(colon + 1);
      if (field.isEmpty() || !(direction.equals("asc") || direction.equals("desc"))) {
        throw new Failures.UsageException("--sort takes FIELD, FIELD:asc or FIELD:desc, got '"
            + sort + "'");
      }
      builder = direction.equals("asc") ? builder.sortAscending(field)
          : builder.sortDescending(field);
    }
    return builder.build();
  }

  /**
   * A {@code --where} value: its JSON value when the whole text is one JSON value, otherwise
   * the text as a string.
   *
   * @param text the text after the first {@code =}
   * @return a JSON node, or null for JSON {@code null}
   */
  static JsonNode value(String text) {
    try {
      JsonNode parsed = WHOLE_VALUE.readTree(text);
      if (parsed == null || parsed.isMissingNode()) {
        return Json.MAPPER.getNodeFactory().textNode(text); // empty or only blanks
      }
      return parsed.isNull() ? null : parsed;
    } catch (JsonProcessingException e) {
      return Json.MAPPER.getNodeFactory().textNode(text);
    }
  }
}
