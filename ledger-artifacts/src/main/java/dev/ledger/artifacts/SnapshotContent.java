package dev.ledger.artifacts;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.common.base.Preconditions;
import dev.ledger.core.internal.json.LedgerJson;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The normalized content of a frozen attempt: the trimmed summary and the ordered artifact
 * and evidence references. Two submissions are "the same" exactly when their normalized
 * contents are equal, which is when their {@link #sha256()} digests are equal.
 *
 * <p>Canonical JSON (keys sorted, compact, absent fields omitted), over which
 * {@link #sha256()} is computed:
 * <pre>
 * {"artifactRefs":[{"blob":"sha256:&lt;hex&gt;","mediaType":"text/html","name":"report.html",
 *                   "uri":"https://..."}, ...],
 *  "evidenceRefs":[{"blob":"sha256:&lt;hex&gt;","description":"...","kind":"test-log",
 *                   "uri":"..."}, ...],
 *  "summary":"trimmed text"}
 * </pre>
 *
 * @param summary the trimmed summary
 * @param artifactRefs artifact references, in submission order
 * @param evidenceRefs evidence references, in submission order
 */
public record SnapshotContent(String summary, List<ArtifactRef> artifactRefs,
    List<EvidenceRef> evidenceRefs) {
  /**
   * Validates, trims the summary and copies the lists.
   *
   * @param summary the summary; stripped of leading and trailing white space
   * @param artifactRefs artifact references, in submission order
   * @param evidenceRefs evidence references, in submission order
   * @throws NullPointerException if an argument or a list element is null
   */
  public SnapshotContent {
    summary = Preconditions.checkNotNull(summary, "summary").strip();
    artifactRefs = List.copyOf(Preconditions.checkNotNull(artifactRefs, "artifactRefs"));
    evidenceRefs = List.copyOf(Preconditions.checkNotNull(evidenceRefs, "evidenceRefs"));
  }

  /**
   * Normalizes a submission: stores its files in {@code blobs} (streaming, in order) and
   * appends a blob reference for each after the explicit artifact references.
   *
   * @param submission what the attempt handed in
   * @param blobs where its files are stored
   * @return the normalized content
   * @throws NullPointerException if {@code submission} is null
   * @throws dev.ledger.core.LedgerIOException if a file cannot be read or stored
   */
  public static SnapshotContent normalize(AttemptSubmission submission, BlobStore blobs) {
    Preconditions.checkNotNull(submission, "submission");
    List<ArtifactRef> refs = new ArrayList<>(submission.artifactRefs());
    for (FileArtifact file : submission.files()) {
      refs.add(ArtifactRef.ofBlob(file.name(), file.mediaType(), blobs.put(file.file())));
    }
    return new SnapshotContent(submission.summary(), refs, submission.evidenceRefs());
  }

  /**
   * Every blob the content references.
   *
   * @return the blobs, each once, in order of first reference (artifacts, then evidence)
   */
  public Set<ContentId> blobs() {
    Set<ContentId> out = new LinkedHashSet<>();
    for (ArtifactRef ref : artifactRefs) {
      if (ref.blob() != null) {
        out.add(ref.blob());
      }
    }
    for (EvidenceRef ref : evidenceRefs) {
      if (ref.blob() != null) {
        out.add(ref.blob());
      }
    }
    return out;
  }

  /**
   * The content as a JSON tree (see the class comment).
   *
   * @return a new tree; changing it changes nothing here
   */
  public ObjectNode toJson() {
    JsonNodeFactory f = JsonNodeFactory.instance;
    ObjectNode node = f.objectNode();
    ArrayNode artifacts = node.putArray("artifactRefs");
    for (ArtifactRef ref : artifactRefs) {
      ObjectNode item = artifacts.addObject();
      putIfPresent(item, "blob", ref.blob() == null ? null : ref.blob().toString());
      putIfPresent(item, "mediaType", ref.mediaType());
      item.put("name", ref.name());
      putIfPresent(item, "uri", ref.uri());
    }
    ArrayNode evidence = node.putArray("evidenceRefs");
    for (EvidenceRef ref : evidenceRefs) {
      ObjectNode item = evidence.addObject();
      putIfPresent(item, "blob", ref.blob() == null ? null : ref.blob().toString());
      putIfPresent(item, "description", ref.description());
      item.put("kind", ref.kind());
      putIfPresent(item, "uri", ref.uri());
    }
    node.put("summary", summary);
    return node;
  }

  /**
   * The canonical JSON of the content.
   *
   * @return UTF-8 bytes, keys sorted, compact
   */
  public byte[] canonicalJson() {
    return LedgerJson.canonical(toJson());
  }

  /**
   * The digest that names the content.
   *
   * @return lower-case hex SHA-256 of {@link #canonicalJson()}
   */
  public String sha256() {
    return LedgerJson.sha256Hex(canonicalJson());
  }

  /**
   * Reads content written by {@link #toJson()}. Strict: unknown or missing fields, wrong
   * types and invalid references are refused.
   *
   * @param node the tree, as {@link #toJson()} writes it
   * @return the content
   * @throws IllegalArgumentException describing the first problem found
   */
  public static SnapshotContent fromJson(JsonNode node) {
    requireObject(node, "content", Set.of("artifactRefs", "evidenceRefs", "summary"));
    List<ArtifactRef> artifacts = new ArrayList<>();
    for (JsonNode item : array(node, "artifactRefs")) {
      requireObject(item, "artifact reference", Set.of("blob", "mediaType", "name", "uri"));
      artifacts.add(new ArtifactRef(text(item, "name", true), text(item, "mediaType", false),
          blob(item), text(item, "uri", false)));
    }
    List<EvidenceRef> evidence = new ArrayList<>();
    for (JsonNode item : array(node, "evidenceRefs")) {
      requireObject(item, "evidence reference", Set.of("blob", "description", "kind", "uri"));
      evidence.add(new EvidenceRef(text(item, "kind", true), text(item, "description", false),
          blob(item), text(item, "uri", false)));
    }
    String summary = text(node, "summary", true);
    Preconditions.checkArgument(summary.equals(summary.strip()), "summary is not trimmed");
    return new SnapshotContent(summary, artifacts, evidence);
  }

  private static void putIfPresent(ObjectNode node, String field, String value) {
    if (value != null) {
      node.put(field, value);
    }
  }

  private static void requireObject(JsonNode node, String what, Set<String> allowed) {
    Preconditions.checkArgument(node != null && node.isObject(), "%s is not an object", what);
    for (Iterator<Map.Entry<String, JsonNode>> it = node.properties().iterator();
        it.hasNext(); ) {
      String key = it.next().getKey();
      Preconditions.checkArgument(allowed.contains(key), "%s has unknown field '%s'", what, key);
    }
  }

  private static Iterable<JsonNode> array(JsonNode node, String field) {
    JsonNode value = node.get(field);
    Preconditions.checkArgument(value != null && value.isArray(), "'%s' is not an array", field);
    return value;
  }

  private static String text(JsonNode node, String field, boolean required) {
    JsonNode value = node.get(field);
    if (value == null && !required) {
      return null;
    }
    Preconditions.checkArgument(value != null && value.isTextual(),
        "'%s' is not a string", field);
    return value.textValue();
  }

  private static ContentId blob(JsonNode item) {
    String text = text(item, "blob", false);
    return text == null ? null : ContentId.parse(text);
  }
}
