package dev.ledger.core.internal.journal;

import static dev.ledger.core.internal.json.JsonFields.instant;
import static dev.ledger.core.internal.json.JsonFields.integer;
import static dev.ledger.core.internal.json.JsonFields.optionalText;
import static dev.ledger.core.internal.json.JsonFields.text;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.common.base.Preconditions;
import dev.ledger.core.CommitResult;
import dev.ledger.core.Cursor;
import dev.ledger.core.Event;
import dev.ledger.core.EventDraft;
import dev.ledger.core.internal.command.CommandDigests;
import dev.ledger.core.internal.json.CanonicalWriter;
import dev.ledger.core.internal.json.JsonFields;
import dev.ledger.core.internal.json.LedgerJson;
import dev.ledger.core.internal.json.MergePatch;
import dev.ledger.core.spi.CommitRequest;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * One commit as the journal records it: the revision, the events, the command, the state
 * version, and the state change, either the whole new state or a JSON merge patch (RFC 7386)
 * against the previous revision's state, whichever is smaller and exact.
 *
 * <p>JSON form, keys sorted, written by {@link JournalLine}:
 * <pre>
 * {
 *   "command":       {"digest": "&lt;sha256 hex&gt;", "id": "cmd_&lt;sha256 hex&gt;"},  optional
 *   "committedAt":   "2026-11-29T19:22:32.123Z",
 *   "events":        [{"commandId": ..., "id": "&lt;sha256(root:seq)&gt;", "occurredAt": ...,
 *                      "operationId": ..., "payload": {...}, "sequence": 7, "type": "..."}],
 *   "firstSequence": 7,        sequence the first event has (or would have, if none)
 *   "forcedThrough": 3,        format 3 only: see below
 *   "format":        2,        2, or 3 with forcedThrough; newer formats are refused, never misread
 *   "patch":         {...}     merge patch against revision - 1  (exactly one of patch/state)
 *   "revision":      5,
 *   "root":          "run-1",
 *   "state":         {...}     the whole new state
 *   "stateVersion":  0         the state version the new state was written with
 * }
 * </pre>
 * The command digest covers what the caller asked to record: the drafts' types, payloads and
 * operation ids, in order, not the new state ({@link CommandDigests}).
 *
 * <p><b>Format 3: group commit.</b> A format 2 record says nothing of durability: it is written
 * only once every record before it is durable (forced), so a record that fails its checksum
 * with a valid record after it is damage. A writer that groups commits (several records
 * written, then one force for them all) writes records while earlier ones are not yet forced;
 * each such record is format 3 and carries {@code forcedThrough}, the newest revision that was
 * durable when it was written (less than {@code revision - 1}). A power cut may damage any
 * record after {@code forcedThrough} while later ones of the same group survive; those were
 * never acknowledged (an acknowledgement waits for the force that covers it), so recovery keeps
 * the whole records before the first bad one and drops the rest, as for a torn tail. A bad
 * record is damage, not a torn tail, if a valid record after it is format 2 or has
 * {@code forcedThrough} at or after the bad record's revision (it was forced before that record
 * was written). Otherwise format 3 is format 2: records without the field are still written
 * as format 2, so a writer that never groups writes the same bytes as before. Readers that
 * know only format 2 refuse format 3 records as a newer format.
 *
 * <p><b>Format 1</b> (still read, no longer written) has no {@code stateVersion} (its states
 * are version 0), and its command digest covered the new state as well as the drafts. Such a
 * digest cannot be compared with an intent digest, so a format 1 command is compared by the
 * intent digest of its recorded events instead ({@link #intentDigest}): a retry with the same
 * drafts replays, whatever its state, as it does for format 2.
 *
 * <p>Invariants: revision is the previous record's plus one (1 for the first); firstSequence
 * is the previous record's firstSequence plus its event count (1 for the first); event
 * sequences are consecutive from firstSequence; each event's revision is the record's. A patch
 * applies to the previous record's state tree as stored, whatever its state version.
 *
 * @param format the record format: {@link #FORMAT} for records this library writes, 1 for
 *     older ones read back
 * @param root the ledger's root id
 * @param revision the revision this commit produced
 * @param committedAt commit time; also every event's occurredAt
 * @param firstSequence sequence of the first event, or of the next event if there is none
 * @param events the events
 * @param commandId public command id, or null
 * @param commandDigest digest of the command content, or null
 * @param stateVersion the state version of the new state (0 in format 1)
 * @param state the whole new state, or null when {@code patch} is set
 * @param patch the merge patch from revision - 1, or null when {@code state} is set
 */
public record CommitRecord(
    int format,
    String root,
    long revision,
    Instant committedAt,
    long firstSequence,
    List<Event> events,
    String commandId,
    String commandDigest,
    int stateVersion,
    JsonNode state,
    JsonNode patch) {

  /** The record format version of records built here (format 2: no {@code forcedThrough}). */
  public static final int FORMAT = 2;
  /**
   * The format of a record written while earlier records may be unforced, with
   * {@code forcedThrough}; the newest format this library reads.
   */
  public static final int GROUPED_FORMAT = 3;

  private static final Set<String> KEYS_1 = Set.of("command", "committedAt", "events",
      "firstSequence", "format", "patch", "revision", "root", "state");
  private static final Set<String> KEYS = Set.of("command", "committedAt", "events",
      "firstSequence", "format", "patch", "revision", "root", "state", "stateVersion");
  private static final Set<String> KEYS_3 = Set.of("command", "committedAt", "events",
      "firstSequence", "forcedThrough", "format", "patch", "revision", "root", "state",
      "stateVersion");
  private static final Set<String> EVENT_KEYS = Set.of("commandId", "id", "occurredAt",
      "operationId", "payload", "sequence", "type");

  /** Checks the invariants that hold within one record. */
  public CommitRecord {
    Preconditions.checkArgument(format >= 1 && format <= GROUPED_FORMAT, "format %s", format);
    Preconditions.checkArgument(stateVersion >= 0, "stateVersion %s", stateVersion);
    Preconditions.checkArgument(format >= 2 || stateVersion == 0,
        "format 1 records have state version 0, got %s", stateVersion);
    Preconditions.checkArgument(revision >= 1, "revision %s", revision);
    Preconditions.checkArgument(firstSequence >= 1, "firstSequence %s", firstSequence);
    events = List.copyOf(events);
    Preconditions.checkArgument((state == null) != (patch == null),
        "exactly one of state and patch");
    Preconditions.checkArgument((commandId == null) == (commandDigest == null),
        "command id and digest come together");
    for (int i = 0; i < events.size(); i++) {
      Event e = events.get(i);
      Preconditions.checkArgument(e.sequence() == firstSequence + i,
          "event %s has sequence %s, expected %s", i, e.sequence(), firstSequence + i);
      Preconditions.checkArgument(e.revision() == revision, "event revision %s != %s",
          e.revision(), revision);
    }
  }

  /**
   * Builds the record that commits {@code request} after {@code previousState} at
   * {@code previousRevision}, stamping {@code now}.
   */
  public static CommitRecord next(String root, long previousRevision, long nextSequence,
      JsonNode previousState, CommitRequest request, Instant now) {
    long revision = previousRevision + 1;
    List<Event> events = new ArrayList<>(request.events().size());
    long sequence = nextSequence;
    for (EventDraft draft : request.events()) {
      events.add(new Event(eventId(root, sequence), root, sequence, revision, draft.type(), now,
          draft.payload(), request.publicCommandId(), draft.operationId()));
      sequence++;
    }
    JsonNode patch = null;
    if (previousState != null) {
      Optional<MergePatch.Diff> diff = MergePatch.diffOf(previousState, request.state());
      if (diff.isPresent() && patchBytes(diff.get(), request) < request.stateBytes()) {
        patch = diff.get().patch();
      }
    }
    return new CommitRecord(FORMAT, root, revision, now, nextSequence, events,
        request.publicCommandId(), request.commandDigest(), request.stateVersion(),
        patch == null ? request.state() : null, patch);
  }

  /**
   * The canonical size of {@code diff}'s patch. A patch that is the whole new state has the
   * state's canonical bytes; when the request says its {@code stateBytes} is their size
   * ({@link CommitRequest#stateBytesExact}), that is the answer without a walk of every string
   * of a state that changed throughout. Otherwise the patch is counted, so the choice between
   * patch and state is always the one counting every patch makes.
   */
  private static long patchBytes(MergePatch.Diff diff, CommitRequest request) {
    if (diff.wholeTarget() && request.stateBytesExact()) {
      return request.stateBytes();
    }
    return LedgerJson.canonicalSize(diff.patch());
  }

  /**
   * Whether {@code request} performs the command this record recorded (the caller checked
   * that the command ids are equal): the same drafts in the same order.
   */
  public boolean sameCommand(CommitRequest request) {
    return intentDigest().equals(request.commandDigest());
  }

  /**
   * The intent digest of this record's command ({@link CommandDigests}): the one it carries,
   * or for a format 1 record, whose digest also covered the state, the one of its events.
   */
  public String intentDigest() {
    Preconditions.checkState(commandId != null, "revision %s has no command", revision);
    return format >= 2 ? commandDigest : CommandDigests.intentOfRecorded(events);
  }

  /** The deterministic event id: SHA-256 hex of {@code root:sequence}. */
  public static String eventId(String root, long sequence) {
    return LedgerJson.sha256Hex(root + ":" + sequence);
  }

  /** The sequence the next record's first event gets. */
  public long nextSequence() {
    return firstSequence + events.size();
  }

  /** The sequence of this record's last event, or {@code firstSequence - 1} without events. */
  public long lastSequence() {
    return firstSequence + events.size() - 1;
  }

  /** The state after this record, given the state before it (null before revision 1). */
  public JsonNode applyTo(JsonNode previousState) {
    if (state != null) {
      return state;
    }
    return MergePatch.apply(previousState, patch);
  }

  /** The result a commit of this record reports, with {@code cursor} after its events. */
  public CommitResult result(Cursor cursor, boolean replayed) {
    return new CommitResult(root, revision, committedAt, events, cursor, replayed);
  }

  /** This record as a JSON tree (the form documented above). */
  public ObjectNode toJson() {
    ObjectNode node = JsonNodeFactory.instance.objectNode();
    if (commandId != null) {
      ObjectNode command = node.putObject("command");
      command.put("digest", commandDigest);
      command.put("id", commandId);
    }
    node.put("committedAt", committedAt.toString());
    ArrayNode list = node.putArray("events");
    for (Event e : events) {
      ObjectNode item = list.addObject();
      if (e.commandId() != null) {
        item.put("commandId", e.commandId());
      }
      item.put("id", e.id());
      item.put("occurredAt", e.occurredAt().toString());
      if (e.operationId() != null) {
        item.put("operationId", e.operationId());
      }
      item.set("payload", e.payload());
      item.put("sequence", e.sequence());
      item.put("type", e.type());
    }
    node.put("firstSequence", firstSequence);
    node.put("format", format);
    if (patch != null) {
      node.set("patch", patch);
    }
    node.put("revision", revision);
    node.put("root", root);
    if (state != null) {
      node.set("state", state);
    }
    if (format >= 2) {
      node.put("stateVersion", stateVersion);
    }
    return node;
  }

  /**
   * Writes this record's canonical JSON (the bytes of {@code canonical(toJson())}) to
   * {@code out} without building the tree; with {@code forcedThrough} of 0 or more, as a
   * format 3 record carrying it (the bytes of {@code canonical} of that tree with
   * {@code format} 3 and {@code forcedThrough} set).
   *
   * @return false if a payload, state or patch holds a node kind only Jackson's writer
   *     covers: part of the record may have been written, and the caller discards it and
   *     writes {@link #toJson} instead
   * @throws IllegalArgumentException if a payload, state or patch is nested too deep to be
   *     read back inside the record
   */
  boolean writeJson(CanonicalWriter out, long forcedThrough) {
    out.raw('{');
    if (commandId != null) {
      out.raw(COMMAND_DIGEST);
      out.string(commandDigest);
      out.raw(COMMAND_ID);
      out.string(commandId);
      out.raw(END_COMMAND);
    }
    // Formatted once: every event of a commit written here occurred at its commit time.
    String at = JsonFields.instantText(committedAt);
    out.raw(COMMITTED_AT);
    out.string(at);
    out.raw(EVENTS);
    boolean first = true;
    for (Event e : events) {
      out.raw(first ? START_EVENT : NEXT_EVENT);
      first = false;
      if (e.commandId() != null) {
        out.raw(EVENT_COMMAND_ID);
        out.string(e.commandId());
        out.raw(',');
      }
      out.raw(EVENT_ID);
      out.string(e.id());
      out.raw(OCCURRED_AT);
      out.string(e.occurredAt().equals(committedAt) ? at
          : JsonFields.instantText(e.occurredAt()));
      if (e.operationId() != null) {
        out.raw(OPERATION_ID);
        out.string(e.operationId());
      }
      out.raw(PAYLOAD);
      // Inside the record, the events array and the event: as deep as the generator counts.
      if (!out.tree(e.payload(), 3)) {
        return false;
      }
      out.raw(SEQUENCE);
      out.number(e.sequence());
      out.raw(TYPE);
      out.string(e.type());
      out.raw('}');
    }
    out.raw(FIRST_SEQUENCE);
    out.number(firstSequence);
    if (forcedThrough >= 0) {
      out.raw(FORCED_THROUGH);
      out.number(forcedThrough);
    }
    out.raw(FORMAT_FIELD);
    out.number(forcedThrough >= 0 ? GROUPED_FORMAT : format);
    if (patch != null) {
      out.raw(PATCH);
      if (!out.tree(patch, 1)) {
        return false;
      }
    }
    out.raw(REVISION);
    out.number(revision);
    out.raw(ROOT);
    out.string(root);
    if (state != null) {
      out.raw(STATE);
      if (!out.tree(state, 1)) {
        return false;
      }
    }
    if (format >= 2) {
      out.raw(STATE_VERSION);
      out.number(stateVersion);
    }
    out.raw('}');
    return true;
  }

  private static byte[] ascii(String text) {
    return text.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
  }

  // The record's names and punctuation, in the sorted order of the class comment.
  private static final byte[] COMMAND_DIGEST = ascii("\"command\":{\"digest\":");
  private static final byte[] COMMAND_ID = ascii(",\"id\":");
  private static final byte[] END_COMMAND = ascii("},");
  private static final byte[] COMMITTED_AT = ascii("\"committedAt\":");
  private static final byte[] EVENTS = ascii(",\"events\":[");
  private static final byte[] START_EVENT = ascii("{");
  private static final byte[] NEXT_EVENT = ascii(",{");
  private static final byte[] EVENT_COMMAND_ID = ascii("\"commandId\":");
  private static final byte[] EVENT_ID = ascii("\"id\":");
  private static final byte[] OCCURRED_AT = ascii(",\"occurredAt\":");
  private static final byte[] OPERATION_ID = ascii(",\"operationId\":");
  private static final byte[] PAYLOAD = ascii(",\"payload\":");
  private static final byte[] SEQUENCE = ascii(",\"sequence\":");
  private static final byte[] TYPE = ascii(",\"type\":");
  private static final byte[] FIRST_SEQUENCE = ascii("],\"firstSequence\":");
  private static final byte[] FORCED_THROUGH = ascii(",\"forcedThrough\":");
  private static final byte[] FORMAT_FIELD = ascii(",\"format\":");
  private static final byte[] PATCH = ascii(",\"patch\":");
  private static final byte[] REVISION = ascii(",\"revision\":");
  private static final byte[] ROOT = ascii(",\"root\":");
  private static final byte[] STATE = ascii(",\"state\":");
  private static final byte[] STATE_VERSION = ascii(",\"stateVersion\":");

  /**
   * Reads a record from its JSON tree.
   *
   * @throws FutureFormatException if the record's format is newer than {@link #GROUPED_FORMAT}
   * @throws IllegalArgumentException naming the first field that is missing or malformed
   */
  public static CommitRecord fromJson(JsonNode node) {
    return fromJson(node, null);
  }

  /**
   * Reads a record whose {@code events} were read apart ({@code events} non-null; the node's
   * {@code events} member is then only checked to be there).
   */
  static CommitRecord fromJson(JsonNode node, List<Event> readEvents) {
    Preconditions.checkArgument(node.isObject(), "record is not a JSON object");
    long format = integer(node, "format");
    if (format > GROUPED_FORMAT) {
      throw new FutureFormatException(format);
    }
    Preconditions.checkArgument(format >= 1, "format %s", format);
    unknownKeys(node, format == 1 ? KEYS_1 : format == 2 ? KEYS : KEYS_3, "record");
    if (format == GROUPED_FORMAT) {
      Preconditions.checkArgument(forcedThrough(node) >= 0, "forcedThrough is negative");
    }
    long stateVersion = format == 1 ? 0 : integer(node, "stateVersion");
    Preconditions.checkArgument(stateVersion >= 0 && stateVersion <= Integer.MAX_VALUE,
        "stateVersion %s", stateVersion);
    String root = text(node, "root");
    long revision = integer(node, "revision");
    Instant committedAt = instant(node, "committedAt");
    long firstSequence = integer(node, "firstSequence");
    String commandId = null;
    String commandDigest = null;
    JsonNode command = node.get("command");
    if (command != null) {
      Preconditions.checkArgument(command.isObject() && command.size() == 2,
          "command must be an object with id and digest");
      commandId = text(command, "id");
      commandDigest = text(command, "digest");
    }
    JsonNode list = node.get("events");
    Preconditions.checkArgument(list != null && list.isArray(), "events must be an array");
    if (readEvents != null) {
      List<Event> events = new ArrayList<>(readEvents.size());
      for (Event e : readEvents) {
        events.add(new Event(e.id(), root, e.sequence(), revision, e.type(), e.occurredAt(),
            e.payload(), e.commandId(), e.operationId()));
      }
      return new CommitRecord((int) format, root, revision, committedAt, firstSequence, events,
          commandId, commandDigest, (int) stateVersion, node.get("state"), node.get("patch"));
    }
    List<Event> events = new ArrayList<>(list.size());
    for (JsonNode item : list) {
      Preconditions.checkArgument(item.isObject(), "event is not an object");
      unknownKeys(item, EVENT_KEYS, "event");
      JsonNode payload = item.get("payload");
      Preconditions.checkArgument(payload != null, "event payload missing");
      events.add(new Event(text(item, "id"), root, integer(item, "sequence"), revision,
          text(item, "type"), instant(item, "occurredAt"), payload,
          optionalText(item, "commandId"), optionalText(item, "operationId")));
    }
    return new CommitRecord((int) format, root, revision, committedAt, firstSequence, events,
        commandId, commandDigest, (int) stateVersion, node.get("state"), node.get("patch"));
  }

  /**
   * The {@code forcedThrough} of a record's JSON tree: the newest revision durable when it was
   * written, for a format 3 record (see the class comment).
   *
   * @return the revision, or {@link Long#MAX_VALUE} for a record without the field (every
   *     record before it was durable when it was written)
   * @throws IllegalArgumentException if the field is malformed or not before the revision
   */
  public static long forcedThrough(JsonNode node) {
    if (node == null || !node.has("forcedThrough")) {
      return Long.MAX_VALUE;
    }
    long forced = integer(node, "forcedThrough");
    Preconditions.checkArgument(forced < integer(node, "revision") - 1,
        "forcedThrough %s is not before the previous revision", forced);
    return forced;
  }

  private static void unknownKeys(JsonNode node, Set<String> allowed, String what) {
    Iterator<String> names = node.fieldNames();
    while (names.hasNext()) {
      String name = names.next();
      Preconditions.checkArgument(allowed.contains(name), "unknown %s field '%s'", what, name);
    }
  }

  /** A record in a format newer than this library reads. */
  public static final class FutureFormatException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final long format;

    FutureFormatException(long format) {
      super("record format " + format + " is newer than " + GROUPED_FORMAT);
      this.format = format;
    }

    /** The format found. */
    public long format() {
      return format;
    }
  }
}
